//! Yuan, "On Nonblocking Folded-Clos Networks": Table I.
//!
//! Table I compares the size of the nonblocking two-level folded Clos `ftree(n+n², n+n²)`
//! (built from `N = n+n²`-port switches, nonblocking under Yuan's n² routing) with the
//! traditional rearrangeably nonblocking two-level m-port tree `FT(N, 2)`, for 20-, 30- and
//! 42-port switches. Our numbers come from the networks themselves: we build
//! [`FoldedClos::nonblocking`] and [`FoldedClos::two_level_mport`] and count their switches and
//! processor ports; the closed forms (`2n²+n`, `n³+n²`, `3N/2`, `N²/2`) are printed beside them
//! as a cross-check.
//!
//! Choices recorded here (Table I of the OCR'd paper is incomplete):
//! - the OCR lost the table's first column; rows are the switch sizes 20, 30, 42 (n = 4, 5, 6)
//!   named in the text;
//! - the third row prints 88 switches and 884 ports where both the formulas and the built
//!   networks give 78 and 882. We report both numbers and mark the cells as suspected
//!   misprints; we do not correct the paper's value;
//! - rows for other radices of the form n+n² are added as extensions, marked "not in paper".

use fatnet::topology::{FoldedClos, Topology};

use crate::{
    Cell, Effort, Experiment, ExperimentId, Frame, Paper, ReproError, Table, Tabular, Verdict,
    detail, tabulate,
};

/// A value printed in the paper, with the implementation notes' remark if they flag it.
#[derive(Clone, Copy, Debug)]
struct Printed {
    value: u64,
    suspected_misprint: Option<&'static str>,
}

const fn ok(value: u64) -> Option<Printed> {
    Some(Printed {
        value,
        suspected_misprint: None,
    })
}

/// One row of Table I: switch radix N and the four printed values (None: not in the paper).
#[derive(Debug)]
struct Row {
    radix: u64,
    printed: [Option<Printed>; 4],
}

const ROWS: [Row; 7] = [
    Row {
        radix: 20,
        printed: [ok(36), ok(80), ok(30), ok(200)],
    },
    Row {
        radix: 30,
        printed: [ok(55), ok(150), ok(45), ok(450)],
    },
    Row {
        radix: 42,
        printed: [
            Some(Printed {
                value: 88,
                suspected_misprint: Some(
                    "printed 88; 2n²+n = 78 for n = 6 and the built network has 78 switches (OCR or print slip 7→8?)",
                ),
            }),
            ok(252),
            ok(63),
            Some(Printed {
                value: 884,
                suspected_misprint: Some(
                    "printed 884; N²/2 = 882 for N = 42 and the built network has 882 ports (OCR or print slip 2→4?)",
                ),
            }),
        ],
    },
    Row {
        radix: 6,
        printed: [None; 4],
    },
    Row {
        radix: 12,
        printed: [None; 4],
    },
    Row {
        radix: 56,
        printed: [None; 4],
    },
    Row {
        radix: 72,
        printed: [None; 4],
    },
];

/// Yuan's Table I: size of nonblocking `ftree(n+n², n+n²)` and `FT(n+n², 2)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TableOne;

/// `n` with `n + n² = radix`, if there is one.
pub fn n_for_radix(radix: u64) -> Option<u64> {
    let n = ((1 + 4 * radix).isqrt() - 1) / 2;
    (n * n + n == radix && n >= 1).then_some(n)
}

/// One computed row of Table I: the built networks' four counts.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    row: &'static Row,
    n: u64,
    /// Switches and ports of the nonblocking ftree, then of FT(N, 2).
    ours: [u64; 4],
}

impl Experiment for TableOne {
    fn paper(&self) -> Paper {
        Paper::Yuan
    }

    fn id(&self) -> &'static str {
        "table1"
    }

    fn seed(&self) -> Option<u64> {
        None
    }

    fn quick_differs(&self) -> bool {
        false
    }

    fn run(&self, effort: Effort) -> Result<Table, ReproError> {
        tabulate(self, effort)
    }
}

impl Tabular for TableOne {
    type Row = Sizes;

    fn frame(&self) -> Frame {
        Frame {
            title: "Yuan, Table I: size of nonblocking ftree(n+n², n+n²) and FT(n+n², 2)"
                .to_string(),
            key_columns: vec!["switch".into(), "network".into(), "quantity".into()],
            detail_column: "formula".into(),
        }
    }

    fn compute(&self, _effort: Effort) -> Result<Vec<Sizes>, ReproError> {
        const EXPERIMENT: ExperimentId = ExperimentId {
            paper: Paper::Yuan,
            id: "table1",
        };
        ROWS.iter()
            .map(|row| {
                let n = n_for_radix(row.radix).ok_or_else(|| {
                    ReproError::check(
                        EXPERIMENT,
                        format!("radix {} is not of the form n+n²", row.radix),
                    )
                })?;
                let nb = FoldedClos::nonblocking(n).map_err(|e| EXPERIMENT.error(e))?;
                let ft = FoldedClos::two_level_mport(row.radix).map_err(|e| EXPERIMENT.error(e))?;
                Ok(Sizes {
                    row,
                    n,
                    ours: [
                        u64::from(nb.num_switches()),
                        u64::from(nb.num_processors()),
                        u64::from(ft.num_switches()),
                        u64::from(ft.num_processors()),
                    ],
                })
            })
            .collect()
    }

    fn cells(&self, sizes: &Sizes) -> Vec<Cell> {
        let Sizes { row, n, ours } = *sizes;
        let formulas = [
            ("2n²+n", 2 * n * n + n),
            ("n³+n²", n * n * n + n * n),
            ("3N/2", 3 * row.radix / 2),
            ("N²/2", row.radix * row.radix / 2),
        ];
        let networks = [
            format!("nonblocking ftree({n}+{}, {})", n * n, n + n * n),
            format!("nonblocking ftree({n}+{}, {})", n * n, n + n * n),
            format!(
                "FT({}, 2) = ftree({}+{}, {})",
                row.radix,
                row.radix / 2,
                row.radix / 2,
                row.radix
            ),
            format!(
                "FT({}, 2) = ftree({}+{}, {})",
                row.radix,
                row.radix / 2,
                row.radix / 2,
                row.radix
            ),
        ];
        let quantities = ["switches", "ports", "switches", "ports"];
        (0..4)
            .map(|i| {
                let (formula, formula_value) = formulas[i];
                let (paper, verdict, note) = match row.printed[i] {
                    None => (None, Verdict::NotInPaper, String::new()),
                    Some(p) => (
                        Some(p.value.into()),
                        Verdict::compared(p.value == ours[i], p.suspected_misprint.is_some()),
                        match p.suspected_misprint {
                            Some(why) if p.value != ours[i] => why.to_string(),
                            _ => String::new(),
                        },
                    ),
                };
                let agree = if formula_value == ours[i] {
                    "="
                } else {
                    "≠ (built network disagrees with the formula)"
                };
                Cell {
                    key: vec![
                        format!("{}-port (n={n})", row.radix).into(),
                        networks[i].clone().into(),
                        quantities[i].into(),
                    ],
                    paper,
                    ours: ours[i].into(),
                    detail: detail![formula, " ", agree, " ", formula_value],
                    verdict,
                    note,
                }
            })
            .collect()
    }

    fn notes(&self, _effort: Effort, _rows: &[Sizes], cells: &[Cell]) -> Vec<String> {
        let mut notes = vec![
            "Ours counts the switches and processor ports of the networks built by `FoldedClos::nonblocking(n)` (ftree(n+n², n+n²): n+n² bottom and n² top switches) and `FoldedClos::two_level_mport(N)` (FT(N, 2) as ftree(N/2+N/2, N)).".into(),
            "The OCR of the paper lost the table's first column; the rows are the 20-, 30- and 42-port switches named in the text. Rows for 6-, 12-, 56- and 72-port switches are extensions.".into(),
        ];
        // The printed values that disagree with ours, and ours, as the cells hold them.
        let misprints: Vec<&Cell> = cells
            .iter()
            .filter(|c| c.verdict == Verdict::SuspectedMisprint)
            .collect();
        if !misprints.is_empty() {
            let printed: Vec<String> = misprints
                .iter()
                .filter_map(|c| c.paper.as_ref().map(ToString::to_string))
                .collect();
            let ours: Vec<String> = misprints.iter().map(|c| c.ours.to_string()).collect();
            notes.push(format!(
                "The paper's third row prints {}; {} with the formulas and the built networks ({}). Reported as suspected misprints, not corrected.",
                printed.join(" and "),
                if misprints.len() == 2 { "both disagree" } else { "each disagrees" },
                ours.join(", ")
            ));
        }
        notes
    }
}
