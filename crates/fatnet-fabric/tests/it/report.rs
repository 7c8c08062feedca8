//! The HTML report and the DOT drawing (`fatnet_fabric::report`) on generated folded Clos
//! fabrics, a hand-written dump with hostile names, and the shared `is1_3l_32n`; the report's
//! assembly (`report::assemble`) on fabrics whose verdicts are known.

use fatnet_fabric::report::{LOAD_COLOURS, UNLOADED_COLOUR, dot, load_colour};
use fatnet_fabric::{
    Fabric, FabricError, Histogram, LinkLoads, NodeKind, Report, ReportFormat, ReportOptions,
    ReportTraffic, Verdict, VerdictStatus, analyze, assemble, from_folded_clos, ibnetdiscover,
};
use fatnet_offline::clos::DModM;
use fatnet_topology::FoldedClos;

/// Yuan's ftree(2+2, 3) with d-mod-m tables: 6 CAs, 3 bottom and 2 top switches; blocking.
fn clos() -> Fabric {
    let t = FoldedClos::new(2, 2, 3).unwrap();
    from_folded_clos(&t, &DModM::new(&t)).unwrap()
}

/// Every `<line ...>` of the fabric picture with a `data-load`: (stroke colour, load).
fn lines(html: &str) -> Vec<(String, u32)> {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let key = format!(" {name}=\"");
        let at = tag.find(&key)? + key.len();
        Some(tag[at..].split('"').next()?.to_owned())
    };
    html.split("<line ")
        .skip(1)
        .filter_map(|t| {
            let tag = t.split('>').next()?;
            Some((attr(tag, "stroke")?, attr(tag, "data-load")?.parse().ok()?))
        })
        .collect()
}

/// Every `http` in `text` is the SVG namespace (or the `http-equiv` of the page's
/// Content-Security-Policy), and no other URL scheme appears.
fn only_svg_namespace(text: &str) -> bool {
    text.match_indices("http").all(|(i, _)| {
        text[i..].starts_with("http://www.w3.org/2000/svg\"")
            || text[i..].starts_with("http-equiv=\"Content-Security-Policy\"")
    }) && text.matches("://").count() == text.matches("http://www.w3.org/2000/svg\"").count()
        && !text.contains("url(")
        && !text.contains("src=")
        && !text.contains("href")
}

#[test]
fn every_switch_and_level_drawn_and_colours_follow_loads() {
    let f = clos();
    // Everyone to CA 5: its leaf's downlink carries 5 routes, the hottest link.
    let pairs: Vec<(u32, u32)> = (0..5).map(|s| (s, 5)).collect();
    let t = f.traffic_load(&pairs, 1).unwrap();
    assert_eq!(t.congestion, 5);
    let mut r = Report::new(&f);
    r.loads = Some(LinkLoads {
        traffic: "all to 5",
        per_link: &t.per_link,
    });
    let html = r.render().unwrap();
    assert!(html.starts_with("<!DOCTYPE html>\n"));
    assert!(html.ends_with("</html>\n"));
    assert!(html.contains("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"fabric\""));
    // Every switch is one box with its name; every CA a circle (6 CAs: not aggregated).
    let switches: Vec<_> = f.switches().collect();
    assert_eq!(html.matches("class=\"switch\"").count(), switches.len());
    for s in &switches {
        assert!(html.contains(&format!("<title>{}</title>", f.node(*s).name())));
    }
    assert_eq!(html.matches("class=\"ca\"").count(), 6);
    for level in 0..3 {
        assert!(
            html.contains(&format!(">level {level}</text>")),
            "level {level}"
        );
    }
    assert!(!html.contains(">level 3</text>"));
    // 6 CA links + 3·2 bottom–top links, none parallel: 12 lines, each coloured by its load.
    let ls = lines(&html);
    assert_eq!(ls.len(), 12);
    let max = ls.iter().map(|l| l.1).max().unwrap();
    assert_eq!(max, t.congestion);
    for (colour, load) in &ls {
        assert_eq!(colour, load_colour(*load, max), "load {load}");
    }
    let hottest: Vec<_> = ls.iter().filter(|l| l.1 == max).collect();
    assert_eq!(hottest.len(), 1);
    assert_eq!(hottest[0].0, LOAD_COLOURS[LOAD_COLOURS.len() - 1]);
    assert!(ls.iter().any(|l| l.1 == 0 && l.0 == UNLOADED_COLOUR));
    // The legend names the top of the scale, and the congestion is stated.
    assert!(html.contains("Congestion (most routes on one directed link): <b>5</b>"));
    // Bottom switches follow the CA order (barycentre of their CAs): B0, B1, B2 left to right.
    let at = |name: &str| html.find(&format!("<title>{name}</title></rect>")).unwrap();
    assert!(at("B0") < at("B1") && at("B1") < at("B2"));
    assert!(only_svg_namespace(&html));
    // Deterministic.
    assert_eq!(r.render().unwrap(), html);
}

#[test]
fn verdicts_certificate_and_histograms_are_rendered() {
    let f = clos();
    let a = analyze(&f).unwrap();
    assert_eq!(a.worst.contention, 2);
    let mut r = Report::new(&f);
    r.worst = Some(&a.worst);
    r.verdicts.push(Verdict {
        title: "Nonblocking (Yuan's Lemma 1)".into(),
        status: VerdictStatus::Fail,
        detail: vec!["a witness".into()],
    });
    r.verdicts.push(Verdict {
        title: "Credit loops".into(),
        status: VerdictStatus::Pass,
        detail: vec![],
    });
    r.histograms.push(Histogram {
        title: "Hops per route".into(),
        x_label: "links crossed".into(),
        y_label: "routes".into(),
        bins: vec![("2".into(), 6), ("4".into(), 24)],
    });
    let html = r.render().unwrap();
    assert!(html.contains("<span class=\"badge\">fail</span> Nonblocking (Yuan&#39;s Lemma 1)"));
    assert!(html.contains("<span class=\"badge\">pass</span> Credit loops"));
    // The certificate: contention, its link, one row per pair with the CA names.
    assert!(html.contains("Contention <b>2</b>"));
    let link = f.link_label(a.worst.link.unwrap());
    assert!(html.contains(&format!("<b>{}</b>", link.replace('>', "&gt;"))));
    for &(s, d) in &a.worst.permutation {
        assert!(html.contains(&format!("<li><b>H{s}</b> &#8594; <b>H{d}</b>")));
    }
    // The worst link is outlined in the picture.
    assert!(html.contains("stroke-dasharray=\"6 4\""));
    // The histogram: two bars with their counts, the total.
    assert!(html.contains("<title>2: 6</title>") && html.contains("<title>4: 24</title>"));
    assert!(html.contains("links crossed (30 routes in all)"));
    // Truncated certificate: only 1 row and a count of the rest.
    r.permutation_rows = 1;
    let short = r.render().unwrap();
    assert_eq!(short.matches("&#8594;").count(), 1);
    assert!(short.contains("… and 1 more pairs."));
    assert!(only_svg_namespace(&short));
}

#[test]
fn many_cas_are_aggregated_per_switch() {
    let f = clos();
    let mut r = Report::new(&f);
    r.aggregate_cas_above = 4;
    let html = r.render().unwrap();
    assert_eq!(html.matches("class=\"ca\"").count(), 0);
    assert_eq!(html.matches("class=\"cas\"").count(), 3);
    for v in 0..3 {
        assert!(html.contains(&format!("<title>2 CAs on B{v}</title>")));
    }
    // 3 CA marks to their switch + 6 switch links; no traffic: all grey.
    let ls = lines(&html);
    assert_eq!(ls.len(), 9);
    assert!(ls.iter().all(|l| l.0 == UNLOADED_COLOUR && l.1 == 0));
    assert!(html.contains("No traffic: every line is grey."));
}

/// A dump whose node descriptions (free text in `ibnetdiscover` output) carry HTML.
const HOSTILE: &str = "\
Switch\t2 \"S-0000000000000001\"\t\t# \"leaf <script>&'x\" base port 0 lid 1 lmc 0
[1]\t\"H-0000000000000002\"[1](3)\t\t# \"host <i>a\" lid 2 4xQDR
[2]\t\"H-0000000000000004\"[1](5)\t\t# \"host b&amp;\" lid 4 4xQDR

Ca\t1 \"H-0000000000000002\"\t\t# \"host <i>a\"
[1](3)\t\"S-0000000000000001\"[1]\t\t# lid 2 lmc 0 \"leaf\" lid 1 4xQDR

Ca\t1 \"H-0000000000000004\"\t\t# \"host b&amp;\"
[1](5)\t\"S-0000000000000001\"[2]\t\t# lid 4 lmc 0 \"leaf\" lid 1 4xQDR
";

#[test]
fn text_from_files_is_escaped() {
    let (f, _) = ibnetdiscover::parse(HOSTILE, "hostile.topo").unwrap();
    let leaf = f.node_by_name("S-0000000000000001").unwrap();
    assert_eq!(f.node(leaf).description(), "leaf <script>&'x");
    let mut r = Report::new(&f);
    r.title = "<title>\"quoted\"".into();
    r.facts.push(("file".into(), "a<b>.topo".into()));
    r.verdicts.push(Verdict {
        title: "x".into(),
        status: VerdictStatus::Info,
        detail: vec!["1 < 2 & 3 > 2".into()],
    });
    let html = r.render().unwrap();
    for raw in ["<script>", "<i>a", "a<b>.topo", "b&amp;)", "1 < 2"] {
        assert!(!html.contains(raw), "{raw}");
    }
    assert!(html.contains("<title>S-0000000000000001 (leaf &lt;script&gt;&amp;&#39;x)</title>"));
    assert!(html.contains("<title>H-0000000000000002 (host &lt;i&gt;a)</title>"));
    assert!(html.contains("(host b&amp;amp;)"));
    assert!(html.contains("<title>&lt;title&gt;&quot;quoted&quot;</title>"));
    assert!(html.contains("<p>1 &lt; 2 &amp; 3 &gt; 2</p>"));
    // The DOT drawing quotes them (DOT strings escape only `"` and `\\`).
    let d = dot(&f, None).unwrap();
    assert!(d.contains("[label=\"S-0000000000000001 (leaf <script>&'x)\""));
}

#[test]
fn bad_inputs_are_typed_errors() {
    let f = clos();
    let short = vec![0u32; f.port_id_count() - 1];
    let mut r = Report::new(&f);
    r.loads = Some(LinkLoads {
        traffic: "t",
        per_link: &short,
    });
    assert!(matches!(
        r.render(),
        Err(FabricError::LengthMismatch { expected, found, .. })
            if expected == f.port_id_count() && found == expected - 1
    ));
    assert!(matches!(
        dot(&f, Some(&short)),
        Err(FabricError::LengthMismatch { .. })
    ));
    // A certificate of a larger fabric: CA 6 does not exist here.
    let mut w = analyze(&f).unwrap().worst;
    w.permutation.push((6, 0));
    let mut r = Report::new(&f);
    r.worst = Some(&w);
    assert!(matches!(
        r.render(),
        Err(FabricError::CaOutOfRange { index: 6, cas: 6 })
    ));
}

#[test]
fn dot_ranks_levels_and_colours_edges() {
    let f = clos();
    let pairs: Vec<(u32, u32)> = (0..5).map(|s| (s, 5)).collect();
    let t = f.traffic_load(&pairs, 1).unwrap();
    let d = dot(&f, Some(&t.per_link)).unwrap();
    assert!(d.contains("graph \"fabric\" {") && d.ends_with("}\n"));
    // One rank group per level, in order.
    assert_eq!(d.matches("{ rank=same;").count(), 3);
    let pos: Vec<usize> = (0..3)
        .map(|l| d.find(&format!("{{ rank=same; // level {l}\n")).unwrap())
        .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]));
    // Every switch and CA present, with its level.
    for (i, n) in f.nodes().iter().enumerate() {
        let level = if n.kind() == NodeKind::Ca {
            0
        } else if n.name().starts_with('B') {
            1
        } else {
            2
        };
        assert!(
            d.contains(&format!("    n{i} [label=\"{}\"", n.name()))
                && d.contains(&format!("level={level}];")),
            "{}",
            n.name()
        );
    }
    // Balanced braces, 12 edges, the hottest in the top colour.
    assert_eq!(d.matches('{').count(), d.matches('}').count());
    assert_eq!(d.matches(" -- ").count(), 12);
    let hot: Vec<&str> = d.lines().filter(|l| l.contains("load=5")).collect();
    assert_eq!(hot.len(), 1);
    assert!(hot[0].contains(&format!(
        "color=\"{}\"",
        LOAD_COLOURS[LOAD_COLOURS.len() - 1]
    )));
}

#[test]
fn dot_aggregates_many_cas() {
    // ftree(2+4, 200): 400 CAs, above the aggregation threshold: one mark per bottom switch.
    let t = FoldedClos::new(2, 4, 200).unwrap();
    let f = from_folded_clos(&t, &DModM::new(&t)).unwrap();
    let d = dot(&f, None).unwrap();
    assert_eq!(d.matches("shape=folder").count(), 200);
    assert_eq!(d.matches("[label=\"2 CAs on B").count(), 200);
    assert_eq!(d.matches("shape=box").count(), 204);
    // 200 mark–switch lines + 200·4 switch links.
    assert_eq!(d.matches(" -- ").count(), 1000);
    assert_eq!(d.matches("{ rank=same;").count(), 3);
}

#[test]
fn shared_is1_3l_32n_report() {
    let Some(dir) = crate::shared::fabrics_dir() else {
        return;
    };
    let base = dir.join("ib_flit_sim/is1_3l_32n");
    let read = |f: &str| {
        (
            f.to_owned(),
            fatnet_fabric::read_text(&base.join(f)).unwrap(),
        )
    };
    let (ned, fdbs, ini, hcas) = (
        read("is1_3l_32n.ned"),
        read("is1_3l_32n.fdbs"),
        read("is1_3l_32n.fdbs.ini"),
        read("ftree.hcas"),
    );
    let (f, _) = fatnet_fabric::read_flitsim(
        (&ned.0, &ned.1),
        (&fdbs.0, &fdbs.1),
        (&ini.0, &ini.1),
        Some((&hcas.0, &hcas.1)),
    )
    .unwrap();
    let a = analyze(&f).unwrap();
    let shift: Vec<(u32, u32)> = (0..32).map(|i| (i, (i + 1) % 32)).collect();
    let t = f.traffic_load(&shift, 0).unwrap();
    let mut r = Report::new(&f);
    r.worst = Some(&a.worst);
    r.loads = Some(LinkLoads {
        traffic: "shift 1",
        per_link: &t.per_link,
    });
    let html = r.render().unwrap();
    let levels = f.levels();
    let depth = levels.iter().flatten().max().unwrap() + 1;
    for l in 0..depth {
        assert!(html.contains(&format!(">level {l}</text>")));
    }
    assert_eq!(
        html.matches("class=\"switch\"").count(),
        f.switches().filter(|s| levels[s.index()].is_some()).count()
    );
    assert_eq!(html.matches("class=\"ca\"").count(), 32);
    // Shift 1 is congestion-free under OpenSM's ftree order: every loaded line has load 1,
    // the top colour.
    let ls = lines(&html);
    assert!(ls.iter().any(|l| l.1 == 1));
    assert!(ls.iter().all(|l| l.1 <= 1 && l.0 == load_colour(l.1, 1)));
    assert!(only_svg_namespace(&html));
}

/// is4_3l_1944n (1,944 CAs, 270 switch chips): the CAs are aggregated per leaf switch, every
/// chip is drawn, the worst-case link is outlined, and the page stays well under a megabyte.
#[test]
fn shared_is4_3l_1944n_report_stays_small() {
    let Some(dir) = crate::shared::fabrics_dir() else {
        return;
    };
    let base = dir.join("ib_flit_sim/is4_3l_1944n");
    let read = |f: &str| {
        (
            f.to_owned(),
            fatnet_fabric::read_text(&base.join(f)).unwrap(),
        )
    };
    let (ned, fdbs, ini, hcas) = (
        read("is4_3l_1944n.ned"),
        read("is4_3l_1944n.fdbs"),
        read("is4_3l_1944n.fdbs.ini"),
        read("ftree.hcas"),
    );
    let (f, _) = fatnet_fabric::read_flitsim(
        (&ned.0, &ned.1),
        (&fdbs.0, &fdbs.1),
        (&ini.0, &ini.1),
        Some((&hcas.0, &hcas.1)),
    )
    .unwrap();
    let a = analyze(&f).unwrap();
    let mut r = Report::new(&f);
    r.worst = Some(&a.worst);
    let html = r.render().unwrap();
    assert!(html.len() < 1 << 20, "{} bytes", html.len());
    // 108 leaf switches with 18 CAs each; 108 + 108 + 54 chips on levels 1, 2, 3.
    assert_eq!(html.matches("class=\"cas\"").count(), 108);
    let marks: Vec<&str> = html.split("class=\"cas\"").skip(1).collect();
    assert!(
        marks
            .iter()
            .all(|m| m.split("<title>").nth(1).unwrap().starts_with("18 CAs on "))
    );
    assert_eq!(html.matches("class=\"switch\"").count(), 270);
    assert!(html.contains(">level 3</text>") && !html.contains(">level 4</text>"));
    assert_eq!(html.matches("stroke-dasharray=\"6 4\"").count(), 1);
    assert!(html.contains("Contention <b>35</b>"));
    assert!(only_svg_namespace(&html));
}

/// The fabric of an OpenSM fixture's engine folder (beside its `opensm-subnet.lst`).
fn opensm_fixture(dir: &str) -> Fabric {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/opensm")
        .join(dir);
    fatnet_fabric::FabricFiles::new(path).load().unwrap().fabric
}

/// The number of cabled directed links: both ends of every link.
fn directed(f: &Fabric) -> u64 {
    2 * f.links().len() as u64
}

/// `report::assemble` on ftree(2+2, 3) with d-mod-m tables, whose answers are known: routes
/// valid, blocking (Lemma 1 fails), worst-case contention 2, no credit loop.
#[test]
fn assemble_gathers_every_section_with_known_verdicts() {
    let f = clos();
    let a = assemble(&f, &ReportOptions::default()).unwrap();
    let titles: Vec<&str> = a.verdicts.iter().map(|v| v.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Routes valid",
            "Nonblocking (Yuan's Lemma 1)",
            "Worst-case permutation contention",
            "Cyclic shifts",
            "Credit loops (deadlock), all routes on one virtual lane",
            "Effective bisection bandwidth",
        ]
    );
    let status = |title: &str| a.verdicts.iter().find(|v| v.title == title).unwrap().status;
    assert_eq!(status("Routes valid"), VerdictStatus::Pass);
    assert_eq!(status("Nonblocking (Yuan's Lemma 1)"), VerdictStatus::Fail);
    assert_eq!(
        status("Worst-case permutation contention"),
        VerdictStatus::Info
    );
    assert_eq!(
        status("Credit loops (deadlock), all routes on one virtual lane"),
        VerdictStatus::Pass
    );
    assert_eq!(a.histograms.len(), 4);
    let s = &a.summary;
    assert_eq!(
        (s.routes_valid, s.nonblocking, s.worst_contention),
        (Some(true), Some(false), Some(2))
    );
    assert_eq!(s.credit_loop_free, Some(true));
    assert_eq!((s.switches, s.end_nodes, s.links), (5, 6, 12));
    assert_eq!(
        s.levels.iter().map(|l| l.switches + l.cas).sum::<usize>(),
        11
    );
    assert_eq!(s.traffic.as_deref(), Some("permutation (seed 1)"));
    // The hop histogram counts every ordered pair of distinct CAs once, in the summary and on
    // the page; the per-link histograms count every cabled directed link once.
    let hops: u64 = s.hop_histogram.as_ref().unwrap().iter().map(|b| b[1]).sum();
    assert_eq!(hops, 6 * 5);
    let total = |h: &Histogram| h.bins.iter().map(|b| b.1).sum::<u64>();
    assert_eq!(total(&a.histograms[0]), 6 * 5);
    assert_eq!(
        a.histograms[0].bins[0].0, "2",
        "starts at the shortest route"
    );
    assert_eq!(total(&a.histograms[1]), directed(&f));
    assert_eq!(total(&a.histograms[2]), 1000);
    assert_eq!(total(&a.histograms[3]), directed(&f));
    // The congestion is the traffic's, routed through the tables on its own.
    let pairs = fatnet_fabric::FabricTraffic::Pattern(fatnet_traffic::TrafficSpec::Permutation)
        .pairs(&f, 1)
        .unwrap();
    assert_eq!(
        s.congestion,
        Some(f.traffic_load(&pairs, 0).unwrap().congestion)
    );
    let html = a.render().unwrap();
    assert!(html.contains("Directed links by worst-case contention"));
    // Deterministic: the same options give the same bytes.
    assert_eq!(
        assemble(&f, &ReportOptions::default())
            .unwrap()
            .render()
            .unwrap(),
        html
    );
}

#[test]
fn assemble_follows_its_options() {
    let f = clos();
    // Given pairs: everyone to CA 5, congestion 5; no bisections: no eBB section.
    let o = ReportOptions {
        traffic: ReportTraffic::Pairs {
            name: "all to 5".into(),
            pairs: (0..5).map(|s| (s, 5)).collect(),
        },
        bisections: 0,
        ..ReportOptions::default()
    };
    let a = assemble(&f, &o).unwrap();
    assert_eq!(a.summary.congestion, Some(5));
    assert_eq!(a.summary.traffic.as_deref(), Some("all to 5"));
    assert_eq!(a.summary.ebb_mean, None);
    assert_eq!(a.verdicts.len(), 5);
    assert_eq!(a.histograms.len(), 3);
    // DOT: the loads only, no analysis.
    let d = assemble(
        &f,
        &ReportOptions {
            format: ReportFormat::Dot,
            ..o
        },
    )
    .unwrap();
    assert!(d.verdicts.is_empty() && d.analysis.is_none());
    assert_eq!(d.summary.routes_valid, None);
    assert!(
        d.render()
            .unwrap()
            .starts_with("// fatnet fabric report --dot")
    );
    // A pattern that does not suit 6 CAs is a typed error.
    let bad = ReportOptions {
        traffic: ReportTraffic::Pattern("transpose".parse().unwrap()),
        ..ReportOptions::default()
    };
    assert!(matches!(assemble(&f, &bad), Err(FabricError::Traffic(_))));
    // Without tables: structure only, one information verdict, no histogram.
    let (bare, _) = ibnetdiscover::parse(HOSTILE, "hostile.topo").unwrap();
    let a = assemble(&bare, &ReportOptions::default()).unwrap();
    assert_eq!(a.verdicts.len(), 1);
    assert_eq!(a.verdicts[0].status, VerdictStatus::Info);
    assert!(a.histograms.is_empty());
    assert_eq!(
        (a.summary.traffic.clone(), a.summary.congestion),
        (None, None)
    );
}

/// minhop on a ring of 6 switches has a credit loop (a Fail verdict); a 3×3 torus has 9 CAs,
/// so the bisection section says why it is not computed.
#[test]
fn assemble_fails_credit_loops_and_skips_odd_bisections() {
    let ring = opensm_fixture("ring-6-1/minhop");
    let a = assemble(&ring, &ReportOptions::default()).unwrap();
    let credit = a
        .verdicts
        .iter()
        .find(|v| v.title.starts_with("Credit loops"))
        .unwrap();
    assert_eq!(credit.status, VerdictStatus::Fail);
    assert_eq!(a.summary.credit_loop_free, Some(false));
    // The witness loop: one line per link of the loop after the summary line.
    assert!(credit.detail.len() > 1);
    let torus = opensm_fixture("torus-3x3-1/minhop");
    assert_eq!(torus.ca_order().len(), 9);
    let a = assemble(&torus, &ReportOptions::default()).unwrap();
    let ebb = a.verdicts.last().unwrap();
    assert_eq!(ebb.title, "Effective bisection bandwidth");
    assert!(
        ebb.detail[0].starts_with("not computed: "),
        "{:?}",
        ebb.detail
    );
    assert_eq!(a.summary.ebb_mean, None);
    let hops: u64 = a.summary.hop_histogram.unwrap().iter().map(|b| b[1]).sum();
    assert_eq!(hops, 9 * 8);
}
