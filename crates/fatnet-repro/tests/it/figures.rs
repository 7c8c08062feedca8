//! Figures of the Greenberg–Leiserson experiments: built from the table's numbers, and
//! showing what the table says (GREEDY's cycles/λ(M) grows with lg n on the adversary's set).

use fatnet_repro::greedy_adversary::GreedyAdversary;
use fatnet_repro::{Effort, Experiment};

#[test]
fn quick_greedy_adversary_figure_grows_with_lg_n() {
    let e = GreedyAdversary;
    let table = e.run(Effort::Quick).unwrap();
    let figures = e.figures(&table);
    assert_eq!(figures.len(), 1);
    let f = &figures[0];
    for policy in ["FixedPriority", "RoundRobin"] {
        let name = format!("GREEDY ({policy})");
        let s = f
            .series
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no series {name}"));
        // Quick run: lg n ∈ {2, 4, 6}.
        let xs: Vec<f64> = s.points.iter().map(|p| p.0).collect();
        assert_eq!(xs, [2.0, 4.0, 6.0], "{name}");
        for w in s.points.windows(2) {
            assert!(w[1].1 > w[0].1, "{name}: {:?} then {:?}", w[0], w[1]);
        }
        // Theorem 9: cycles/λ(M) ≥ lg n/24.
        assert!(s.points.iter().all(|&(x, y)| y >= x / 24.0), "{name}");
    }
    assert!(
        f.series
            .iter()
            .any(|s| s.name.starts_with("Theorem 9 bound"))
    );
    let svg = f.to_svg("cmd", e.seed());
    assert_eq!(svg, f.to_svg("cmd", e.seed()));
    assert!(svg.contains("GREEDY (RoundRobin)"));
}
