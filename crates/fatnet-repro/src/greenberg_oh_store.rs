//! Greenberg & Oh, *Universal wormhole routing* (1997): readings of the STORE step against
//! Table I's STORE cells and Figure 3's RP-versus-GP ordering.
//!
//! Our STORE-RP-RR ([`crate::greenberg_oh::TableOne`]) runs 4.5–7.9% above Table I on random
//! instances at every `N`, and our STORE-GP-RR beats STORE-RP-RR at `N ≥ 256`, where the text
//! calls RP "the best path selection scheme" (Figure 3). The paper describes STORE in one
//! sentence (§III.B.2): "At each step, each node scans its input queues once and sends out
//! available packets greedily (whenever the corresponding output edge is idling and the
//! queue at the end of that edge is not full)", and RP in three: "When a packet needs to go
//! up, it selects an up link randomly. If the link is blocked, the packet waits. The
//! selection is oblivious, i.e., each time a packet seeks to go up, it makes a selection
//! randomly." This experiment runs every reading of those sentences we could name
//! ([`READINGS`]) on the same instances and seeds as Table I, and reports each against
//! Table I's STORE cells and the RP/GP ordering.
//!
//! **Key design decision: the table reports, it does not choose.** No reading is adopted
//! because it fits; the engine's default ([`StoreTiming::Snapshot`], queue sinks, the clock
//! stopping when the last packet crosses into its destination's queue) stays what it is, and
//! Table I is unchanged. The notes say what the text supports.

use std::sync::Arc;

use fatnet::online::packet::{
    self, FlowControl, Outcome, PacketConfig, PathPolicy, SinkModel, StoreTiming,
};

use crate::cell::{field, fixed, float, signed};
use crate::greenberg_oh::{
    self, Algorithm, FLITS, PAPER_TABLE1, Pattern, SEED, STORE_TOLERANCE, Scan, Stat, Trial,
    instance, row_seed,
};
use crate::runner::try_run_trials;
use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Value,
    Verdict, derive_seed, detail, tabulate,
};

/// The experiment, as its errors name it.
const EXPERIMENT: ExperimentId = ExperimentId::new(Paper::GreenbergOh, "store_variants");

/// One reading of the STORE step: the engine's [`StoreTiming`] and [`SinkModel`], and where
/// the latency clock stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The row label.
    pub name: &'static str,
    /// The engine's reading of the step.
    pub timing: StoreTiming,
    /// What the destination does with a packet that reaches it.
    pub sink: SinkModel,
    /// The clock stops when the destination has drained the last packet from its queue (one
    /// packet-step after it crossed into it) instead of when it crossed.
    pub clock_at_drain: bool,
    /// The sentence of the paper the reading rests on, and how.
    pub basis: &'static str,
}

/// Every reading, the engine's default first.
///
/// `clock at drain` is not a separate simulation: with queue sinks of one packet the last
/// packet to arrive is drained exactly one packet-step after it crossed into its
/// destination's queue (the terminal drains the front of a non-empty queue every step, and
/// the queue holds one packet), so its latency is the default run's plus `L` flit-steps,
/// trial by trial.
pub const READINGS: [Reading; 7] = [
    Reading {
        name: "snapshot (default)",
        timing: StoreTiming::Snapshot,
        sink: SinkModel::Queue,
        clock_at_drain: false,
        basis: "\"the queue at the end of that edge is not full\" tested on the occupancy at the start of the step; RP: \"If the link is blocked, the packet waits\"; the clock stops when the last packet crosses into its destination (\"until the tail of the last packet arrives at its destination\")",
    },
    Reading {
        name: "(a) other up link",
        timing: StoreTiming::OtherUpLink,
        sink: SinkModel::Queue,
        clock_at_drain: false,
        basis: "\"sends out available packets greedily\" read as letting a packet whose drawn up link is blocked take the other one in the same step; the RP definition (\"If the link is blocked, the packet waits\") speaks against it",
    },
    Reading {
        name: "(b) same-step moves",
        timing: StoreTiming::SameStep,
        sink: SinkModel::Queue,
        clock_at_drain: false,
        basis: "\"the queue at the end of that edge is not full\" read as the occupancy after the step's departures, so a packet may enter a queue whose packet leaves in the same step",
    },
    Reading {
        name: "(a) + (b)",
        timing: StoreTiming::OtherUpLinkSameStep,
        sink: SinkModel::Queue,
        clock_at_drain: false,
        basis: "both of the above",
    },
    Reading {
        name: "(c1) immediate sink",
        timing: StoreTiming::Snapshot,
        sink: SinkModel::Immediate,
        clock_at_drain: false,
        basis: "\"Queues for 1 packet\" read as the switches' queues only: the destination absorbs a packet the moment it arrives (\"the tail of the last packet arrives at its destination\")",
    },
    Reading {
        name: "(c2) clock at drain",
        timing: StoreTiming::Snapshot,
        sink: SinkModel::Queue,
        clock_at_drain: true,
        basis: "\"arrives at its destination\" read as leaving the destination's input queue (one packet-step after crossing into it)",
    },
    Reading {
        name: "(d) sticky RP draw",
        timing: StoreTiming::StickyDraw,
        sink: SinkModel::Queue,
        clock_at_drain: false,
        basis: "\"each time a packet seeks to go up, it makes a selection randomly\" read as once per arrival at a switch, and \"If the link is blocked, the packet waits\" as waiting for that link",
    },
];

/// Sizes: the paper's five in the full run, `N ≤ 256` in the quick run.
pub fn sizes(effort: Effort) -> &'static [u32] {
    match effort {
        Effort::Full => &greenberg_oh::SIZES,
        Effort::Quick => &greenberg_oh::SIZES[..3],
    }
}

/// Trials per cell: the paper's 30 in the full run (the default reading's runs are then
/// Table I's own), 5 in the quick run.
pub fn trials(effort: Effort) -> u64 {
    match effort {
        Effort::Full => 30,
        Effort::Quick => 5,
    }
}

/// STORE-FP-RR of Figure 3: under (d) RP draws each up link uniformly and independently of
/// the network's state, once per switch, which is the law of FP's uniform shortest path.
const STORE_FP: Algorithm = Algorithm::new(
    FlowControl::StoreAndForward,
    PathPolicy::Fixed,
    Scan::RoundRobin,
);

/// STORE-GP-RR of Figure 3.
const STORE_GP: Algorithm = Algorithm::new(
    FlowControl::StoreAndForward,
    PathPolicy::Greedy,
    Scan::RoundRobin,
);

/// The engine configuration of `algorithm` (STORE-RP-RR or STORE-GP-RR) under `reading`.
pub fn config(algorithm: Algorithm, reading: &Reading, n: u32) -> PacketConfig {
    PacketConfig {
        store_timing: reading.timing,
        sink: reading.sink,
        ..algorithm.config(n)
    }
}

/// `trials` trials of `algorithm` on `pattern` at size `n` under `reading`, with Table I's
/// instances and seeds (trial `i`: [`instance`] of `s = derive_seed(row_seed(pattern, n),
/// i)`, engine seed `derive_seed(s, 1)`), so every reading is paired with every other and
/// with Table I. The default reading is [`greenberg_oh::runs`] itself (shared memo).
///
/// # Errors
///
/// [`ReproError::Experiment`] if the engine rejects the configuration or a trial does not
/// deliver every packet.
pub fn runs(
    algorithm: Algorithm,
    reading: &Reading,
    pattern: Pattern,
    n: u32,
    trials: u64,
) -> Result<Arc<[Trial]>, ReproError> {
    let default = READINGS[0];
    let base = Reading {
        clock_at_drain: false,
        ..*reading
    };
    let simulated = if (base.timing, base.sink) == (default.timing, default.sink) {
        greenberg_oh::runs(algorithm, pattern, n, trials)?
    } else {
        simulate(algorithm, &base, pattern, n, trials)?
    };
    if !reading.clock_at_drain {
        return Ok(simulated);
    }
    Ok(simulated
        .iter()
        .map(|t| Trial {
            latency: t.latency + u64::from(FLITS),
            ..*t
        })
        .collect())
}

/// The simulation behind [`runs`], for a reading other than the default.
fn simulate(
    algorithm: Algorithm,
    reading: &Reading,
    pattern: Pattern,
    n: u32,
    trials: u64,
) -> Result<Arc<[Trial]>, ReproError> {
    let net = greenberg_oh::net(n)?;
    let config = config(algorithm, reading, n);
    type Failure = Box<dyn std::error::Error + Send + Sync>;
    let outcomes = try_run_trials(row_seed(pattern, n), trials, |i, trial_seed| {
        let messages = instance(pattern, n, trial_seed)?;
        let r = packet::batch_trial(&net, &messages, 1, &config, derive_seed(trial_seed, 1))?;
        if r.outcome != Outcome::Delivered {
            return Err(format!(
                "trial {i} ended with {:?} after {} steps, {} of {} delivered",
                r.outcome, r.steps, r.delivered, r.messages
            )
            .into());
        }
        Ok(Trial {
            latency: r.latency,
            congestion: r.congestion,
        })
    })
    .map_err(|e| EXPERIMENT.error(e))?
    .map_err(|e: Failure| {
        EXPERIMENT.error_in(
            format!(
                "{} ({}) on {} at N = {n}",
                algorithm.label(),
                reading.name,
                pattern.label()
            ),
            e,
        )
    })?;
    Ok(outcomes.into())
}

/// The readings and their runs at one size.
#[derive(Clone, Debug)]
pub struct SizeReadings {
    n: u32,
    /// Per reading: STORE-RP-RR on [`Pattern::ALL`], then STORE-GP-RR on random instances.
    runs: Vec<[Arc<[Trial]>; 4]>,
    /// STORE-FP-RR on random instances (Figure 3's), for the claim that RP beats FP.
    fp: Arc<[Trial]>,
}

/// The runs of every reading at `sizes`, `trials` per cell.
///
/// # Errors
///
/// As [`runs`].
pub fn rows(sizes: &[u32], trials: u64) -> Result<Vec<SizeReadings>, ReproError> {
    sizes
        .iter()
        .map(|&n| {
            let runs = READINGS
                .iter()
                .map(|r| {
                    Ok([
                        runs(Algorithm::STORE, r, Pattern::Random, n, trials)?,
                        runs(Algorithm::STORE, r, Pattern::Complement, n, trials)?,
                        runs(Algorithm::STORE, r, Pattern::ManyToOne, n, trials)?,
                        runs(STORE_GP, r, Pattern::Random, n, trials)?,
                    ])
                })
                .collect::<Result<Vec<_>, ReproError>>()?;
            let fp = greenberg_oh::runs(STORE_FP, Pattern::Random, n, trials)?;
            Ok(SizeReadings { n, runs, fp })
        })
        .collect()
}

fn index_of(n: u32) -> usize {
    (n.ilog2() / 2 - 2) as usize
}

/// The label of the RP/GP ordering column.
pub const ORDERING: &str = "RP vs GP (random)";

/// The label of the RP/FP claim column.
pub const VERSUS_FP: &str = "RP vs FP (random)";

/// The paired comparison of `a` (RP under a reading) with `b` (GP or FP) on the same
/// instances and seeds: the cell `[n, reading, column]` with the verdict of
/// [`Verdict::positive`] on the paired difference `b − a` (RP significantly faster: match;
/// significantly slower: MISMATCH; else not significant).
fn versus(
    n: u32,
    reading: &str,
    column: &str,
    paper: &str,
    a: &[Trial],
    b: &[Trial],
    other: &str,
) -> Cell {
    let (sa, sb) = (Stat::latency(a), Stat::latency(b));
    let diff: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(x, y)| y.latency as f64 - x.latency as f64)
        .collect();
    let paired = Stat::of(&diff);
    let gain = 100.0 * (sb.mean / sa.mean - 1.0);
    let significance = if paired.low() > 0.0 {
        "RP significantly faster"
    } else if paired.high() < 0.0 {
        "RP significantly slower"
    } else {
        "not significant"
    };
    Cell {
        key: vec![n.into(), reading.into(), column.into()],
        paper: Some(paper.into()),
        ours: detail![
            if sa.mean < sb.mean {
                "RP < "
            } else {
                "RP ≥ "
            },
            other,
            " (",
            fixed(sa.mean, 1),
            " vs ",
            fixed(sb.mean, 1),
            ")",
        ]
        .into(),
        detail: detail![
            other,
            "/RP − 1 = ",
            signed(gain, 1),
            "%; paired difference ",
            other,
            " − RP: 99% CI [",
            fixed(paired.low(), 1),
            ", ",
            fixed(paired.high(), 1),
            "] (",
            significance,
            ")",
        ],
        verdict: Verdict::positive(&paired.est(1)),
        note: String::new(),
    }
}

/// The cells of one size: per reading, Table I's three STORE cells and the RP/GP ordering.
fn cells_of(row: &SizeReadings) -> Vec<Cell> {
    let n = row.n;
    let paper = PAPER_TABLE1[index_of(n)];
    let mut cells = Vec::new();
    for (reading, runs) in READINGS.iter().zip(&row.runs) {
        for (p, pattern) in Pattern::ALL.into_iter().enumerate() {
            let t = &runs[p];
            let s = Stat::latency(t);
            let printed = paper[p];
            let delta = 100.0 * greenberg_oh::relative_difference(printed as f64, s.mean);
            let judgement = greenberg_oh::judged(printed as f64, &s, STORE_TOLERANCE);
            let (ours, verdict): (Value, Verdict) = if pattern == Pattern::ManyToOne {
                let lat: Vec<u64> = t.iter().map(|t| t.latency).collect();
                let ours = if s.min == s.max {
                    Value::Int(s.min as i128)
                } else {
                    s.estimate(1)
                };
                (ours, Verdict::every_sample(printed, &lat))
            } else {
                (s.estimate(1), judgement.verdict)
            };
            cells.push(Cell {
                key: vec![n.into(), reading.name.into(), pattern.label().into()],
                paper: Some(printed.into()),
                ours,
                detail: detail![
                    ..s.ci(1),
                    ", range ",
                    float(s.min),
                    "–",
                    float(s.max),
                    "; ",
                    field("Δ", signed(delta, 1)),
                    "% (",
                    ..judgement.detail(),
                    ")",
                ],
                verdict,
                note: String::new(),
            });
        }
        cells.push(versus(
            n,
            reading.name,
            ORDERING,
            "RP best (Figure 3)",
            &runs[0],
            &runs[3],
            "GP",
        ));
        if reading.timing == StoreTiming::StickyDraw {
            cells.push(versus(
                n,
                reading.name,
                VERSUS_FP,
                "adaptive RP significantly outperforms FP (Figure 3)",
                &runs[0],
                &row.fp,
                "FP",
            ));
        }
    }
    cells
}

/// Readings of the STORE step against Table I's STORE cells and Figure 3's RP/GP ordering.
#[derive(Clone, Copy, Debug, Default)]
pub struct StoreVariants;

impl Experiment for StoreVariants {
    fn paper(&self) -> Paper {
        Paper::GreenbergOh
    }

    fn id(&self) -> &'static str {
        "store_variants"
    }

    fn cost(&self) -> u32 {
        6
    }

    fn seed(&self) -> Option<u64> {
        Some(SEED)
    }

    fn quick_differs(&self) -> bool {
        true
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

/// What a reading gives at every size, for the notes.
struct ReadingOutcome {
    /// Signed offsets from Table I, in percent, on random and complement instances.
    offsets: [Vec<f64>; 2],
    /// Random and complement cells whose printed value lies in our 99% CI.
    printed_in_ci: usize,
    /// Sizes where every many-to-1 trial equals Table I.
    exact: usize,
    /// Sizes where RP's mean is below GP's, and where GP is significantly faster (paired).
    rp_below_gp: usize,
    gp_significantly_faster: usize,
    sizes: usize,
}

impl ReadingOutcome {
    fn of(i: usize, rows: &[SizeReadings]) -> ReadingOutcome {
        let mut o = ReadingOutcome {
            offsets: [Vec::new(), Vec::new()],
            printed_in_ci: 0,
            exact: 0,
            rp_below_gp: 0,
            gp_significantly_faster: 0,
            sizes: rows.len(),
        };
        for row in rows {
            let paper = PAPER_TABLE1[index_of(row.n)];
            let runs = &row.runs[i];
            for (p, offsets) in o.offsets.iter_mut().enumerate() {
                let s = Stat::latency(&runs[p]);
                let printed = paper[p] as f64;
                offsets.push(100.0 * greenberg_oh::relative_difference(printed, s.mean));
                o.printed_in_ci += usize::from(s.low() <= printed && printed <= s.high());
            }
            o.exact += usize::from(runs[2].iter().all(|t| t.latency == paper[2]));
            let (rp, gp) = (Stat::latency(&runs[0]), Stat::latency(&runs[3]));
            o.rp_below_gp += usize::from(rp.mean < gp.mean);
            let diff: Vec<f64> = runs[0]
                .iter()
                .zip(runs[3].iter())
                .map(|(r, g)| g.latency as f64 - r.latency as f64)
                .collect();
            o.gp_significantly_faster += usize::from(Stat::of(&diff).high() < 0.0);
        }
        o
    }

    /// Whether the reading reproduces every STORE cell: printed values inside our CIs and
    /// many-to-1 exact at every size.
    fn reproduces(&self) -> bool {
        self.printed_in_ci == 2 * self.sizes && self.exact == self.sizes
    }

    fn line(&self, reading: &Reading) -> String {
        let list = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:+.1}%"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "{}: offsets from Table I, random {}, complement {}; printed value inside our 99% CI in {} of {} random/complement cells; many-to-1 exact at {} of {} sizes; RP's mean below GP's at {} of {} sizes, GP significantly faster (paired 99%) at {}.",
            reading.name,
            list(&self.offsets[0]),
            list(&self.offsets[1]),
            self.printed_in_ci,
            2 * self.sizes,
            self.exact,
            self.sizes,
            self.rp_below_gp,
            self.sizes,
            self.gp_significantly_faster,
        )
    }
}

impl Tabular for StoreVariants {
    type Row = SizeReadings;

    fn frame(&self) -> Frame {
        Frame {
            title: "Greenberg–Oh, STORE readings: each reading of the STORE step against Table I's STORE-RP-RR cells (q = 1 packet, L = 32, R = 1) and Figure 3's RP-vs-GP ordering".into(),
            key_columns: vec!["N".into(), "reading".into(), "pattern or claim".into()],
            detail_column: "99% CI, spread, difference from the paper".into(),
        }
    }

    fn compute(&self, effort: Effort) -> Result<Vec<SizeReadings>, ReproError> {
        rows(sizes(effort), trials(effort))
    }

    fn cells(&self, row: &SizeReadings) -> Vec<Cell> {
        cells_of(row)
    }

    fn notes(&self, effort: Effort, rows: &[SizeReadings], _cells: &[Cell]) -> Vec<String> {
        let count = trials(effort);
        let mut notes = vec![
            format!(
                "Butterfly fat-tree, one packet per processor, STORE with queues of 1 packet, L = {FLITS}, R = 1, RR scan; {count} trials per cell{}, on Table I's instances with Table I's seeds, so every reading is paired with every other and the default reading's cells are Table I's STORE cells. Verdicts: random and complement cells by Table I's rule (`verdict::judge`: the difference against the two-sample 99% noise of our mean and the paper's 30-trial mean, then Table I's STORE band ±{:.0}%, with the test's power); many-to-1 cells must be exact in every trial. RP vs GP and RP vs FP: the paired 99% test on the per-trial differences (Figure 3: RP is \"the best path selection scheme\"): match when RP is significantly faster, MISMATCH when significantly slower, else not significant.",
                if effort == Effort::Quick {
                    " (quick run: N ≤ 256, 5 trials)"
                } else {
                    ""
                },
                100.0 * STORE_TOLERANCE,
            ),
            "The paper's whole description of STORE (§III.B.2): \"At each step, each node scans its input queues once and sends out available packets greedily (whenever the corresponding output edge is idling and the queue at the end of that edge is not full).\" RP (§III.B.2): \"When a packet needs to go up, it selects an up link randomly. If the link is blocked, the packet waits. The selection is oblivious, i.e., each time a packet seeks to go up, it makes a selection randomly.\" Latency (§III.B.3): \"the time elapsed after the routing has begun until the tail of the last packet arrives at its destination\".".into(),
        ];
        for r in &READINGS {
            notes.push(format!("Reading {}: {}.", r.name, r.basis));
        }
        notes.push("(c2) is the default run with L flit-steps added to every trial (exact: the last packet waits one packet-step in its destination's 1-packet queue), not a separate simulation. Under (a), (c2) and (d) STORE-GP-RR is the default's GP in law and in every trial (the readings change only RP's draw or the clock, and (c2) shifts GP as much as RP); it is simulated under the reading's configuration anyway. (d) is also compared with Figure 3's STORE-FP-RR: its draws are uniform and independent of the network's state, one per switch, which is the law of FP's uniform shortest path.".into());
        let outcomes: Vec<ReadingOutcome> = (0..READINGS.len())
            .map(|i| ReadingOutcome::of(i, rows))
            .collect();
        for (r, o) in READINGS.iter().zip(&outcomes) {
            notes.push(o.line(r));
        }
        let reproducing: Vec<&str> = READINGS
            .iter()
            .zip(&outcomes)
            .filter(|(_, o)| o.reproduces())
            .map(|(r, _)| r.name)
            .collect();
        notes.push("What the text decides. (a) is contradicted by the RP definition itself: \"If the link is blocked, the packet waits\" is said of the packet whose draw is blocked. (d) makes RP a fixed-path scheme in law (see above), while the text says \"Adaptive schemes significantly outperform the fixed-path scheme\" and counts RP among them. (b), (c1) and (c2) are not decided by the words (\"not full\" and \"arrives\" are not tied to a point of the step), but they move the many-to-1 cells, which the default reproduces exactly in every trial (L·(2c + d − 3)), the only exact evidence the paper gives about its step: (b) and (c1) lift the halving of the 1-packet queues, (c2) adds L.".into());
        notes.push(format!(
            "Choice: none of the readings is adopted by its fit, and the engine's default is unchanged (Table I regenerates bit for bit). {} Documented search, no cause found: the default's STORE random offset from Table I, and GP's lead over RP at large N, are not explained by a reading the text supports.",
            if reproducing.is_empty() {
                "No reading reproduces every STORE cell (printed values inside our CIs and many-to-1 exact).".to_string()
            } else {
                format!(
                    "Readings that reproduce every STORE cell here: {} — a fit, which the text would have to support before it could be adopted.",
                    reproducing.join(", ")
                )
            }
        ));
        notes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_reading_is_table_one() {
        for &n in &[16, 64] {
            for pattern in Pattern::ALL {
                let table1 = greenberg_oh::runs(Algorithm::STORE, pattern, n, 4).unwrap();
                let ours = simulate(Algorithm::STORE, &READINGS[0], pattern, n, 4).unwrap();
                assert_eq!(table1, ours, "N = {n}, {}", pattern.label());
            }
        }
    }

    #[test]
    fn clock_at_drain_is_the_default_plus_one_packet_step_and_is_exact() {
        let drain = READINGS[5];
        assert!(drain.clock_at_drain);
        let shifted = runs(Algorithm::STORE, &drain, Pattern::Random, 16, 4).unwrap();
        let default = greenberg_oh::runs(Algorithm::STORE, Pattern::Random, 16, 4).unwrap();
        for (s, d) in shifted.iter().zip(default.iter()) {
            assert_eq!(s.latency, d.latency + u64::from(FLITS));
        }
        // Many-to-1: Table I's closed form L·(2c + d − 3) = 544 at N = 16, plus L.
        let m1 = runs(Algorithm::STORE, &drain, Pattern::ManyToOne, 16, 2).unwrap();
        assert!(m1.iter().all(|t| t.latency == 544 + 32));
    }

    #[test]
    fn readings_configure_the_engine_and_are_distinct() {
        for (i, a) in READINGS.iter().enumerate() {
            let c = config(Algorithm::STORE, a, 64);
            assert_eq!(c.store_timing, a.timing);
            assert_eq!(c.sink, a.sink);
            assert!(c.validate().is_ok());
            for b in &READINGS[i + 1..] {
                assert_ne!(
                    (a.timing, a.sink, a.clock_at_drain),
                    (b.timing, b.sink, b.clock_at_drain)
                );
            }
        }
    }
}
