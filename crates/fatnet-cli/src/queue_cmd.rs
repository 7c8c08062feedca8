//! `fatnet queue <FORMULA>`: evaluate any of Stamoulis' closed forms
//! (`fatnet_queueing::stamoulis`) from the command line.

use std::io::Write;

use anyhow::{Result, anyhow, bail};
use clap::Args;
use fatnet::queueing::QueueingError;
use fatnet::queueing::stamoulis::{broadcast, greedy, queues};
use serde::Serialize;

/// Arguments of `fatnet queue`.
#[derive(Debug, Args)]
#[command(after_long_help = formula_help())]
pub struct QueueArgs {
    /// The formula (see the list below, or `fatnet queue list`).
    formula: String,
    /// Cube or butterfly dimension d.
    #[arg(long)]
    d: Option<u32>,
    /// Load factor ρ (per arc; for broadcasts ρ = λ(2^d − 1)/d).
    #[arg(long)]
    rho: Option<f64>,
    /// Destination bit-flip probability p [default: 0.5].
    #[arg(long)]
    p: Option<f64>,
    /// Number of servers c of the M/D/c queue.
    #[arg(long)]
    c: Option<u64>,
    /// Synchronisation period Δ (services start at multiples of Δ) [default: 1].
    #[arg(long)]
    delta: Option<f64>,
    /// Dimensions m and i of g_{m,i}.
    #[arg(long)]
    m: Option<u32>,
    /// See --m.
    #[arg(long)]
    i: Option<u32>,
    /// An arrival rate λ given directly (Lemma 7.2's rate per path start, or the broadcast
    /// rate per node that `broadcast-load` turns into ρ).
    #[arg(long)]
    lambda: Option<f64>,
    /// Lemma 7.2's path lengths l_1, …, l_n, comma-separated (each at least 1).
    #[arg(long, value_delimiter = ',')]
    lengths: Option<Vec<u64>>,
    /// Root-bound slots K per cycle of the generalised Rule C (Rule C is K = 1, L = 2).
    #[arg(long)]
    k: Option<u32>,
    /// Broadcast slots L per cycle of the generalised Rule C.
    #[arg(long)]
    l: Option<u32>,
    /// Second factorial moment E\[A(A − 1)\] of the G/D/1 arrivals per slot (Poisson: E[A]²).
    #[arg(long)]
    second_factorial: Option<f64>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

/// Whether the thesis proves a formula.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "kebab-case")]
enum Status {
    /// Proved in the thesis (or exact).
    Proved,
    /// Stated without a complete proof.
    Claimed,
    /// An approximation.
    Approximation,
    /// Printed wrong; shown only for comparison.
    WrongAsPrinted,
    /// Not from the thesis: the notes' correction or an external formula.
    External,
}

/// The parameters a formula reads.
struct Params<'a> {
    args: &'a QueueArgs,
}

impl Params<'_> {
    fn d(&self) -> Result<u32> {
        self.args.d.ok_or_else(|| anyhow!("this formula needs --d"))
    }
    fn rho(&self) -> Result<f64> {
        self.args
            .rho
            .ok_or_else(|| anyhow!("this formula needs --rho"))
    }
    fn p(&self) -> f64 {
        self.args.p.unwrap_or(0.5)
    }
    fn c(&self) -> Result<u64> {
        self.args.c.ok_or_else(|| anyhow!("this formula needs --c"))
    }
    fn delta(&self) -> f64 {
        self.args.delta.unwrap_or(1.0)
    }
    fn lambda(&self) -> Result<f64> {
        self.args
            .lambda
            .ok_or_else(|| anyhow!("this formula needs --lambda"))
    }
    fn lengths(&self) -> Result<&[u64]> {
        self.args
            .lengths
            .as_deref()
            .ok_or_else(|| anyhow!("this formula needs --lengths L1,L2,..."))
    }
    fn k(&self) -> Result<u32> {
        self.args.k.ok_or_else(|| anyhow!("this formula needs --k"))
    }
    fn l(&self) -> Result<u32> {
        self.args.l.ok_or_else(|| anyhow!("this formula needs --l"))
    }
    fn second_factorial(&self) -> Result<f64> {
        self.args
            .second_factorial
            .ok_or_else(|| anyhow!("this formula needs --second-factorial"))
    }
    /// λ of the hypercube with load ρ and flip probability p: ρ/p.
    fn cube_lambda(&self) -> Result<f64> {
        let p = self.p();
        if !(p > 0.0 && p <= 1.0) {
            bail!("--p must be in (0, 1] to turn --rho into a rate, not {p}");
        }
        Ok(self.rho()? / p)
    }
    /// λ of the butterfly with load ρ: ρ / max{p, 1 − p}.
    fn butterfly_lambda(&self) -> Result<f64> {
        let p = self.p();
        if !(0.0..=1.0).contains(&p) {
            bail!("--p must be a probability in [0, 1], not {p}");
        }
        Ok(self.rho()? / p.max(1.0 - p))
    }
}

type Eval = fn(&Params<'_>) -> Result<f64>;

/// One formula: name, reference, status, parameters, description, evaluation.
struct Formula {
    name: &'static str,
    reference: &'static str,
    status: Status,
    params: &'static str,
    what: &'static str,
    eval: Eval,
}

fn q<T>(r: Result<T, QueueingError>) -> Result<T> {
    r.map_err(|e| anyhow!("{e}"))
}

const FORMULAS: &[Formula] = &[
    Formula {
        name: "discrete-gd1",
        reference: "(2.3)",
        status: Status::Proved,
        params: "--rho (E[A]), --second-factorial",
        what: "discrete-time G/D/1 delay, unit service: 1 + E[A(A − 1)]/(2E[A](1 − E[A]))",
        eval: |p| Ok(q(queues::discrete_gd1(p.rho()?, p.second_factorial()?))?.delay),
    },
    Formula {
        name: "discrete-md1",
        reference: "(2.4)",
        status: Status::Proved,
        params: "--rho",
        what: "discrete-time M/D/1 delay, Poisson(ρ) arrivals per slot: 1 + ρ/(2(1 − ρ))",
        eval: |p| q(queues::discrete_md1_delay(p.rho()?)),
    },
    Formula {
        name: "slotted-service",
        reference: "(2.5)",
        status: Status::Proved,
        params: "--rho",
        what: "Poisson arrivals in continuous time, service at slot boundaries: 3/2 + ρ/(2(1 − ρ))",
        eval: |p| q(queues::slotted_service_delay(p.rho()?)),
    },
    Formula {
        name: "synchronised-md1",
        reference: "(2.6)",
        status: Status::Proved,
        params: "--rho (the arrival rate λ), --delta",
        what: "M/D/1 with synchronisation Δ: Δ[3/2 + λΔ/(2(1 − λΔ))]",
        eval: |p| q(queues::synchronised_md1_delay(p.rho()?, p.delta())),
    },
    Formula {
        name: "md1",
        reference: "F7 (Pollaczek–Khinchine)",
        status: Status::Proved,
        params: "--rho",
        what: "continuous M/D/1 sojourn, unit service: 1 + ρ/(2(1 − ρ))",
        eval: |p| q(queues::md1_sojourn(p.rho()?)),
    },
    Formula {
        name: "mdc",
        reference: "Crommelin (notes F14)",
        status: Status::External,
        params: "--c, --rho",
        what: "M/D/c sojourn 𝒟(c; ρ), unit service, total rate cρ",
        eval: |p| q(queues::mdc_sojourn(p.c()?, p.rho()?)),
    },
    Formula {
        name: "mdc-lower",
        reference: "notes F15",
        status: Status::External,
        params: "--c, --rho",
        what: "lower bound 1/2 + ρ/(2c(1 − ρ)) on 𝒟(c; ρ)",
        eval: |p| q(queues::mdc_lower_bound(p.c()?, p.rho()?)),
    },
    Formula {
        name: "brumelle-printed",
        reference: "Prop. 5.2 ([Bru71] as quoted)",
        status: Status::WrongAsPrinted,
        params: "--c, --rho",
        what: "1 + ρ/(2c(1 − ρ)): NOT a bound for c ≥ 2 (notes 002a §6 #1)",
        eval: |p| q(queues::brumelle_bound_as_printed(p.c()?, p.rho()?)),
    },
    Formula {
        name: "universal-lower",
        reference: "Prop. 5.2",
        status: Status::Proved,
        params: "--d, --rho, --p",
        what: "any scheme on the d-cube: T ≥ max{dp, p𝒟(2^d; ρ)}",
        eval: |p| {
            q(greedy::universal_lower_bound(
                p.d()?,
                p.cube_lambda()?,
                p.p(),
            ))
        },
    },
    Formula {
        name: "oblivious-lower",
        reference: "Prop. 5.3",
        status: Status::Proved,
        params: "--d, --rho, --p",
        what: "oblivious schemes on the d-cube: T ≥ max{dp, p[1 + ρ/(2(1 − ρ))]}",
        eval: |p| {
            q(greedy::oblivious_lower_bound(
                p.d()?,
                p.cube_lambda()?,
                p.p(),
            ))
        },
    },
    Formula {
        name: "greedy-lower",
        reference: "Prop. 5.13",
        status: Status::Proved,
        params: "--d, --rho, --p",
        what: "greedy on the d-cube: T ≥ dp + pρ/(2(1 − ρ)) (exact for p = 1)",
        eval: |p| q(greedy::greedy_lower_bound(p.d()?, p.cube_lambda()?, p.p())),
    },
    Formula {
        name: "greedy-upper",
        reference: "Prop. 5.12",
        status: Status::Proved,
        params: "--d, --rho, --p",
        what: "greedy on the d-cube: T ≤ dp/(1 − ρ)",
        eval: |p| q(greedy::greedy_upper_bound(p.d()?, p.cube_lambda()?, p.p())),
    },
    Formula {
        name: "greedy-claimed",
        reference: "(5.18) + Prop. 5.13",
        status: Status::Claimed,
        params: "--d, --rho, --p",
        what: "greedy on the d-cube: T ≥ dp + (d − 1)ρp²(1 − p) + pρ/(2(1 − ρ))",
        eval: |p| {
            q(greedy::greedy_claimed_lower_bound(
                p.d()?,
                p.cube_lambda()?,
                p.p(),
            ))
        },
    },
    Formula {
        name: "greedy-node-queue",
        reference: "(5.15)",
        status: Status::Proved,
        params: "--d, --rho, --p",
        what: "greedy on the d-cube: mean packets per node ≤ dρ/(1 − ρ)",
        eval: |p| {
            q(greedy::greedy_node_queue_upper_bound(
                p.d()?,
                p.cube_lambda()?,
                p.p(),
            ))
        },
    },
    Formula {
        name: "butterfly-lower",
        reference: "Prop. 5.14",
        status: Status::Proved,
        params: "--d, --rho, --p",
        what: "any scheme on the butterfly: d + p·λp/(2(1 − λp)) + (1 − p)·λ(1 − p)/(2(1 − λ(1 − p)))",
        eval: |p| {
            q(greedy::butterfly_lower_bound(
                p.d()?,
                p.butterfly_lambda()?,
                p.p(),
            ))
        },
    },
    Formula {
        name: "butterfly-upper",
        reference: "Prop. 5.17",
        status: Status::Proved,
        params: "--d, --rho, --p",
        what: "greedy on the butterfly: T ≤ dp/(1 − λp) + d(1 − p)/(1 − λ(1 − p))",
        eval: |p| {
            q(greedy::butterfly_upper_bound(
                p.d()?,
                p.butterfly_lambda()?,
                p.p(),
            ))
        },
    },
    Formula {
        name: "butterfly-slotted-lower",
        reference: "Prop. 5.18, (5.33)",
        status: Status::Proved,
        params: "--d, --rho, --p",
        what: "greedy on the butterfly, slotted: T̄ ≥ d + (1/2)(d − 1)λp(1 − p)",
        eval: |p| {
            q(greedy::butterfly_slotted_lower_bound(
                p.d()?,
                p.butterfly_lambda()?,
                p.p(),
            ))
        },
    },
    Formula {
        name: "butterfly-claimed",
        reference: "Prop. 5.18 (continuous)",
        status: Status::Claimed,
        params: "--d, --rho, --p",
        what: "greedy on the butterfly: T ≥ d + (1/2)(d − 1)ρ·min{p, 1 − p}",
        eval: |p| {
            q(greedy::butterfly_claimed_lower_bound(
                p.d()?,
                p.butterfly_lambda()?,
                p.p(),
            ))
        },
    },
    Formula {
        name: "butterfly-q-rho",
        reference: "Prop. 5.17",
        status: Status::Proved,
        params: "--d, --rho, --p",
        what: "greedy on the butterfly, per-node estimate q_ρ ≥ N/(d2^d): λp/(1 − λp) + λ(1 − p)/(1 − λ(1 − p))",
        eval: |p| {
            q(greedy::butterfly_q_rho(
                p.d()?,
                p.butterfly_lambda()?,
                p.p(),
            ))
        },
    },
    Formula {
        name: "broadcast-load",
        reference: "(6.1), F1",
        status: Status::Proved,
        params: "--d, --lambda",
        what: "broadcasts at rate λ per node: load factor ρ = λ(2^d − 1)/d",
        eval: |p| q(broadcast::load_factor(p.d()?, p.lambda()?)),
    },
    Formula {
        name: "broadcast-rate",
        reference: "(6.1), F1",
        status: Status::Proved,
        params: "--d, --rho",
        what: "the broadcast rate per node for load factor ρ: λ = ρd/(2^d − 1)",
        eval: |p| q(broadcast::rate_for_load(p.d()?, p.rho()?)),
    },
    Formula {
        name: "prop-6-1",
        reference: "Prop. 6.1",
        status: Status::Proved,
        params: "--d, --rho",
        what: "broadcasts, any scheme: T ≥ max{d, (1 − 2^−d)[𝒟(d; ρ) + 1/2]}",
        eval: |p| q(broadcast::prop_6_1_lower_bound(p.d()?, p.rho()?)),
    },
    Formula {
        name: "prop-6-2",
        reference: "Prop. 6.2",
        status: Status::Proved,
        params: "--d, --rho",
        what: "broadcasts, oblivious schemes: T ≥ max{d, (1 − 2^−d)[3/2 + ρ/(2(1 − ρ))]}",
        eval: |p| q(broadcast::prop_6_2_lower_bound(p.d()?, p.rho()?)),
    },
    Formula {
        name: "one-tree-limit",
        reference: "§6.3.1, F8",
        status: Status::Proved,
        params: "--d",
        what: "one fixed tree per node: stable only if ρ < (2/d)(1 − 2^−d)",
        eval: |p| Ok(q(broadcast::simple_scheme_limits(p.d()?))?.one_tree),
    },
    Formula {
        name: "periodic-limit",
        reference: "(6.7), F9",
        status: Status::Proved,
        params: "--d",
        what: "periodic scheme P1 (one BOSTT91 tree per node): stable iff ρ < ((2^d − 1)/d)/⌈(2^d − 1)/d⌉",
        eval: |p| Ok(q(broadcast::simple_scheme_limits(p.d()?))?.periodic_p1),
    },
    Formula {
        name: "direct-light-traffic",
        reference: "§6.3.3",
        status: Status::Proved,
        params: "--d",
        what: "direct non-idling schemes: T → d + 1/2 as ρ → 0",
        eval: |p| q(broadcast::direct_light_traffic_delay(p.d()?)),
    },
    Formula {
        name: "inferior-limit",
        reference: "§6.3.3, F10",
        status: Status::Proved,
        params: "--d",
        what: "sequential single-node broadcasts: stable iff ρ < ρ*_d = (2^d − 1)/(d²2^d)",
        eval: |p| q(broadcast::inferior_scheme_limit(p.d()?)),
    },
    Formula {
        name: "inferior-delay",
        reference: "§6.3.3, F10",
        status: Status::Proved,
        params: "--d, --rho",
        what: "sequential single-node broadcasts (upper bound on the direct non-idling schemes): d + 1/2 + dρ/(2(ρ*_d − ρ))",
        eval: |p| q(broadcast::inferior_scheme_delay(p.d()?, p.rho()?)),
    },
    Formula {
        name: "approx-6-19",
        reference: "(6.19)",
        status: Status::Approximation,
        params: "--d, --rho",
        what: "efficient direct scheme: T ≈ d/2 + d(1 − ρc_d)/(2(1 − ρ)) + 1/2",
        eval: |p| q(broadcast::approximation_6_19(p.d()?, p.rho()?)),
    },
    Formula {
        name: "c-d",
        reference: "§6.5",
        status: Status::Proved,
        params: "--d",
        what: "c_d = Σ_m g_{m,i}²",
        eval: |p| q(broadcast::c_d(p.d()?)),
    },
    Formula {
        name: "g",
        reference: "(6.10)",
        status: Status::Proved,
        params: "--d, --m, --i",
        what: "g_{m,i} = (2^((m − i) mod d) − 1)/(2^d − 1)",
        eval: |p| {
            let m = p.args.m.ok_or_else(|| anyhow!("g needs --m"))?;
            let i = p.args.i.ok_or_else(|| anyhow!("g needs --i"))?;
            q(broadcast::g(p.d()?, m, i))
        },
    },
    Formula {
        name: "indirect-limit",
        reference: "Prop. 7.3, (7.2)",
        status: Status::Proved,
        params: "--d",
        what: "the indirect scheme is stable iff ρ < (2/3)(1 − 2^−d)",
        eval: |p| q(broadcast::indirect_stability_limit(p.d()?)),
    },
    Formula {
        name: "single-root-limit",
        reference: "§7.1.1, F14",
        status: Status::Proved,
        params: "--d",
        what: "every broadcast from one root: stable only if ρ < (1/d)(1 − 2^−d)",
        eval: |p| Ok(q(broadcast::simple_scheme_limits(p.d()?))?.single_root),
    },
    Formula {
        name: "lemma-7-2",
        reference: "Lemma 7.2",
        status: Status::Proved,
        params: "--lambda, --lengths, --delta",
        what: "n paths of lengths l_i sharing their last arc, Poisson(λ) per start, period Δ: Δ[3/2 + λnΔ/(2(1 − λnΔ))] + (Δ/n)Σl_i − Δ",
        eval: |p| {
            q(broadcast::lemma_7_2_delay(
                p.lambda()?,
                p.lengths()?,
                p.delta(),
            ))
        },
    },
    Formula {
        name: "rule-c-limit",
        reference: "§7.3.1, (7.16)",
        status: Status::Proved,
        params: "--d, --k, --l",
        what: "K root-bound and L broadcast slots per cycle: stable only if ρ < (1 − 2^−d)min{L, 2K}/(K + L); largest at L = 2K (Rule C)",
        eval: |p| q(broadcast::generalised_rule_c_limit(p.d()?, p.k()?, p.l()?)),
    },
    Formula {
        name: "prop-7-4",
        reference: "Prop. 7.4",
        status: Status::Proved,
        params: "--d, --rho",
        what: "indirect scheme: T = 3d + 1 + 3ρ/(2[(2/3)(1 − 2^−d) − ρ])",
        eval: |p| q(broadcast::prop_7_4_delay(p.d()?, p.rho()?)),
    },
    Formula {
        name: "prop-7-5-printed",
        reference: "Prop. 7.5",
        status: Status::WrongAsPrinted,
        params: "--d, --rho",
        what: "indirect scheme's mean queue size as printed (3× too large a term; notes 002b §3.12)",
        eval: |p| q(broadcast::prop_7_5_printed(p.d()?, p.rho()?)),
    },
    Formula {
        name: "prop-7-5",
        reference: "Prop. 7.5, corrected (notes 002b §3.12)",
        status: Status::External,
        params: "--d, --rho",
        what: "indirect scheme's mean queue size, per-slot Little's law",
        eval: |p| q(broadcast::prop_7_5_corrected(p.d()?, p.rho()?)),
    },
    Formula {
        name: "nonidling-light-traffic",
        reference: "App. 7.B",
        status: Status::Proved,
        params: "--d",
        what: "non-idling indirect scheme: T → 3d/2 as ρ → 0",
        eval: |p| q(broadcast::nonidling_indirect_light_traffic_delay(p.d()?)),
    },
    Formula {
        name: "prop-7-6",
        reference: "Prop. 7.6, (7.14)",
        status: Status::Proved,
        params: "--d",
        what: "split evenly, stay on own tree: stable only if ρ < (2/3)(1 − (1/3)/(2^d − 2/3))",
        eval: |p| q(broadcast::prop_7_6_limit(p.d()?)),
    },
];

/// The list printed by `--help` and `fatnet queue list`.
fn formula_help() -> String {
    let mut s = String::from(
        "FORMULAS (fatnet queue NAME [params]; `fatnet queue list` prints this table):\n",
    );
    for f in FORMULAS {
        s.push_str(&format!(
            "  {:<24}{} [{}; {}]\n  {:<24}  {}\n",
            f.name,
            f.reference,
            status_word(f.status),
            f.params,
            "",
            f.what
        ));
    }
    s.push_str(
        "\nOn the hypercube the rate is λ = ρ/p, on the butterfly λ = ρ/max{p, 1 − p}; p defaults \
         to 0.5. Formulas of Stamoulis' thesis (chapters 2, 5, 6, 7); `wrong-as-printed` ones \
         are kept to show the disagreement and must not be used as bounds.",
    );
    s
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Proved => "proved",
        Status::Claimed => "claimed, no complete proof",
        Status::Approximation => "approximation",
        Status::WrongAsPrinted => "WRONG as printed",
        Status::External => "not in the thesis",
    }
}

#[derive(Debug, Serialize)]
struct Output {
    formula: &'static str,
    reference: &'static str,
    status: Status,
    value: f64,
    d: Option<u32>,
    rho: Option<f64>,
    p: Option<f64>,
    c: Option<u64>,
    delta: Option<f64>,
    m: Option<u32>,
    i: Option<u32>,
    lambda: Option<f64>,
    lengths: Option<Vec<u64>>,
    k: Option<u32>,
    l: Option<u32>,
    second_factorial: Option<f64>,
}

/// Runs `fatnet queue`.
pub fn run(args: &QueueArgs, out: &mut impl Write) -> Result<()> {
    if args.formula == "list" {
        writeln!(out, "{}", formula_help())?;
        return Ok(());
    }
    let Some(f) = FORMULAS.iter().find(|f| f.name == args.formula) else {
        let names: Vec<&str> = FORMULAS.iter().map(|f| f.name).collect();
        bail!(
            "unknown formula `{}`; known: {} (or `list`)",
            args.formula,
            names.join(", ")
        );
    };
    let value = (f.eval)(&Params { args }).map_err(|e| anyhow!("{}: {e}", f.name))?;
    let o = Output {
        formula: f.name,
        reference: f.reference,
        status: f.status,
        value,
        d: args.d,
        rho: args.rho,
        p: args.p,
        c: args.c,
        delta: args.delta,
        m: args.m,
        i: args.i,
        lambda: args.lambda,
        lengths: args.lengths.clone(),
        k: args.k,
        l: args.l,
        second_factorial: args.second_factorial,
    };
    if args.json {
        serde_json::to_writer_pretty(&mut *out, &o)?;
        writeln!(out)?;
    } else {
        writeln!(
            out,
            "{} = {value:.6}   ({}; {})",
            f.name,
            f.reference,
            status_word(f.status)
        )?;
        writeln!(out, "  {}", f.what)?;
    }
    Ok(())
}
