//! Yuan vs OpenSM (`yuan/opensm`): the committed OpenSM dumps, the n² routing and d-mod-m on
//! the same networks, judged against Yuan's theorems.

use fatnet_repro::yuan_opensm::{ENGINES, NETWORKS, OpenSm};
use fatnet_repro::{Effort, Experiment, Paper, Value, Verdict, command_for, select};

#[test]
fn yuan_experiments_are_registered() {
    let ids: Vec<&str> = select(Some(Paper::Yuan)).iter().map(|e| e.id()).collect();
    assert_eq!(ids, ["table1", "min_m", "opensm", "adaptive"]);
    assert!(!OpenSm.quick_differs());
    assert_eq!(OpenSm.seed(), None);
    assert_eq!(
        command_for(&OpenSm, Effort::Quick),
        "cargo xtask reproduce --paper yuan"
    );
}

#[test]
fn opensm_table_agrees_with_the_theorems() {
    let t = OpenSm.run(Effort::Quick).unwrap();
    let cell = |net: &str, routing: &str, quantity: &str| {
        t.cells
            .iter()
            .find(|c| {
                c.key[0] == net && c.key[1] == routing && c.key[2].to_string().starts_with(quantity)
            })
            .unwrap_or_else(|| panic!("no cell {net} {routing} {quantity}"))
    };
    // Every OpenSM table is traced completely, and blocks: one LID per CA needs m >= (r-1)n.
    for (n, m, r) in NETWORKS {
        let net = format!("ftree({n}+{m}, {r})");
        for engine in ENGINES {
            let routing = format!("OpenSM {engine}");
            let nb = cell(&net, &routing, "nonblocking");
            let p = r * n;
            let routes = u64::from(p * (p - 1));
            assert_eq!(
                nb.detail.values().next(),
                Some(&Value::Ratio {
                    numerator: routes,
                    denominator: routes
                }),
                "{net} {routing}: {}",
                nb.detail
            );
            assert_eq!(nb.ours, "no", "{net} {routing}");
            let worst = cell(&net, &routing, "worst").ours.exact().unwrap() as u32;
            assert!((2..=n).contains(&worst), "{net} {routing}: {worst}");
            assert!(
                cell(&net, &routing, "worst")
                    .detail
                    .to_string()
                    .contains(&format!("(re-traced: {worst})"))
            );
            // OpenSM's engines route every shift without contention on these networks.
            assert_eq!(
                cell(&net, &routing, "congestion-free").ours,
                Value::Ratio {
                    numerator: u64::from(p - 1),
                    denominator: u64::from(p - 1)
                }
            );
        }
        // d-mod-m blocks (m < rn everywhere) and its tables agree with the offline analysis.
        let d = cell(&net, "d-mod-m (offline)", "nonblocking");
        assert_eq!(d.ours, "no");
        assert!(
            d.note.starts_with("its forwarding tables"),
            "{net}: {}",
            d.note
        );
    }
    // Theorem 3 where m >= n².
    for net in ["ftree(2+4, 4)", "ftree(3+9, 12)"] {
        let y = "Yuan n² routing (offline)";
        assert_eq!(cell(net, y, "nonblocking").ours, "yes");
        assert_eq!(cell(net, y, "worst").ours, Value::Int(1));
        assert_eq!(cell(net, y, "nonblocking").verdict, Verdict::Match);
    }
    // Exact numbers of the committed dumps.
    assert_eq!(
        cell("ftree(3+6, 6)", "OpenSM ftree", "worst").ours,
        Value::Int(3)
    );
    assert_eq!(
        cell("ftree(2+4, 4)", "OpenSM ftree", "worst").ours,
        Value::Int(2)
    );
    assert_eq!(
        cell("ftree(2+3, 5)", "d-mod-m (offline)", "congestion-free").ours,
        Value::Ratio {
            numerator: 6,
            denominator: 9
        }
    );
    // Nothing contradicts the paper.
    assert!(
        t.cells
            .iter()
            .all(|c| !matches!(c.verdict, Verdict::Mismatch | Verdict::BoundViolated)),
        "{}",
        t.summary()
    );
    assert_eq!(t, OpenSm.run(Effort::Full).unwrap());
}
