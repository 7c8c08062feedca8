//! `fatnet topology SPEC --graph json|graphml|dot [-o FILE]`: the whole graph of a topology.

use crate::common::{json, stderr_of_failure, stdout_of};

#[test]
fn json_graphs_hold_every_node_and_channel() {
    // (spec, nodes, edges, total capacity): 8 processors, 7 switches and the external node,
    // 2 · 15 channels; 16 processors and 6 switches, 2 · (16 + 8) links.
    for (spec, nodes, edges, capacity) in [
        ("fattree:n=8,profile=doubling", 16, 30, 64),
        ("bft:n=16", 22, 48, 48),
        ("butterfly:d=3", 32, 48, 48),
    ] {
        let g = json(&["topology", spec, "--graph", "json"]);
        let n = g["nodes"].as_array().unwrap();
        let e = g["edges"].as_array().unwrap();
        assert_eq!((n.len(), e.len()), (nodes, edges), "{spec}");
        let total: u64 = e.iter().map(|e| e["capacity"].as_u64().unwrap()).sum();
        assert_eq!(total, capacity, "{spec}");
        // The summary counts the same graph.
        let summary = json(&["topology", spec, "--json"]);
        assert_eq!(summary["nodes"], nodes);
        assert_eq!(summary["channels"], edges);
    }
    // The fat-tree's root channel (level 3, capacity 8) goes up to the external node.
    let g = json(&[
        "topology",
        "fattree:n=8,profile=doubling",
        "--graph",
        "json",
    ]);
    let ext = g["nodes"].as_array().unwrap().iter();
    let ext = ext.filter(|n| n["kind"] == "external").collect::<Vec<_>>();
    assert_eq!(ext.len(), 1);
    assert_eq!(ext[0]["level"], 4);
    let root_up = g["edges"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["target"] == ext[0]["id"] && e["direction"] == "up");
    assert_eq!(root_up.unwrap()["capacity"], 8);
}

#[test]
fn graphml_is_well_formed_and_declares_its_keys() {
    let text = stdout_of(["topology", "karyntree:k=2,levels=3", "--graph", "graphml"]);
    let doc = roxmltree::Document::parse(&text).unwrap();
    let keys: Vec<(&str, &str)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("key"))
        .map(|k| {
            (
                k.attribute("for").unwrap(),
                k.attribute("attr.name").unwrap(),
            )
        })
        .collect();
    for key in [
        ("node", "level"),
        ("node", "kind"),
        ("edge", "capacity"),
        ("edge", "level"),
    ] {
        assert!(keys.contains(&key), "{key:?} not in {keys:?}");
    }
    let count = |tag| doc.descendants().filter(|n| n.has_tag_name(tag)).count();
    // 8 processors and 3 levels of 4 switches; 2 · 3 · 8 channels.
    assert_eq!((count("node"), count("edge")), (20, 48));
}

#[test]
fn dot_is_ranked_by_level_and_dash_dash_dot_is_graph_dot() {
    let dot = stdout_of(["topology", "butterfly:d=3", "--graph", "dot"]);
    assert!(dot.starts_with("// butterfly:d=3\ndigraph"), "{dot}");
    assert!(dot.contains("rankdir=BT;"));
    // Stages 0..=3: four ranks of eight switches.
    assert_eq!(dot.matches("rank=same;").count(), 4);
    assert_eq!(dot.matches(" -> ").count(), 48);
    assert_eq!(dot.matches("capacity=1 penwidth=1 ").count(), 48);
    assert_eq!(stdout_of(["topology", "butterfly:d=3", "--dot"]), dot);
}

#[test]
fn graphs_are_written_atomically_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bft.graphml");
    let out = stdout_of([
        "topology".as_ref(),
        "bft:n=16".as_ref(),
        "--graph".as_ref(),
        "graphml".as_ref(),
        "-o".as_ref(),
        path.as_os_str(),
    ]);
    assert!(out.is_empty(), "{out}");
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        text,
        stdout_of(["topology", "bft:n=16", "--graph", "graphml"])
    );
    assert!(roxmltree::Document::parse(&text).is_ok());
}

#[test]
fn unknown_formats_and_conflicting_flags_are_one_line_errors() {
    for (args, needle) in [
        (
            &["topology", "bft:n=16", "--graph", "xml"][..],
            "json, graphml, dot",
        ),
        (
            &["topology", "bft:n=16", "--graph", "dot", "--dot"][..],
            "cannot be used",
        ),
        (
            &["topology", "bft:n=16", "--graph", "json", "--json"][..],
            "cannot be used",
        ),
    ] {
        let err = stderr_of_failure(args);
        assert!(err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}
