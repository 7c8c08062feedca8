//! Real dumps as the tools wrote them: the `ibnetdiscover`, `ibroute`/`dump_fts`/`dump_lfts.sh`
//! and OpenSM variants (inline samples built from the printf formats of each version, the
//! commit named beside each), `ibnetdiscover` + tables against the OpenSM read of the same
//! subnet, ib_flit_sim's `.dstSeq` traffic and host-name traffic, and two files of one fabric
//! compared.

use std::path::{Path, PathBuf};

use fatnet_fabric::opensm;
use fatnet_fabric::traffic::{
    self, FabricTraffic, parse_dst_seq, parse_dst_seq_ini, parse_host_pairs,
};
use fatnet_fabric::{
    Fabric, FabricError, FabricFiles, FabricFormat, NodeKind, analyze, compare, ibdm,
    ibnetdiscover, read_flitsim, read_text,
};

use crate::shared::fabrics_dir;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/opensm")
}

fn ok(text: &str) -> Fabric {
    let (f, r) = ibnetdiscover::parse(text, "t").unwrap();
    assert_eq!(r.unrecognised, Vec::<usize>::new(), "{text}");
    f
}

fn lid_of(f: &Fabric, name: &str) -> Option<u16> {
    f.node(f.node_by_name(name).unwrap()).lid()
}

/// infiniband-diags 1.2 (`e4d681de5`, 2007): no port GUIDs, no width and speed, `switchguid=`
/// without the port GUID, a blank line before each `Switch` header.
#[test]
fn ibnetdiscover_2007_without_guids_or_speeds() {
    let f = ok("\
#
# Topology file: generated on Tue Apr 10 10:00:00 2007
#
# Max of 1 hops discovered
# Initiated from node 0002c9020020e8f4 port 0002c9020020e8f5

vendid=0x2c9
devid=0xb924
sysimgguid=0x2c9000100d050
switchguid=0x2c9000100d050

Switch\t24 \"S-0002c9000100d050\"\t\t# \"MT47396 Infiniscale-III\" base port 0 lid 2 lmc 0
[1]\t\"H-0002c9020020e8f4\"[1]\t\t# \"host a HCA-1\" lid 3
[2]\t\"H-0002c9020020e8f8\"[1]\t\t# \"host b HCA-1\" lid 4

vendid=0x2c9
devid=0x6282
caguid=0x2c9020020e8f4
Ca\t2 \"H-0002c9020020e8f4\"\t\t# \"host a HCA-1\"
[1]\t\"S-0002c9000100d050\"[1]\t\t# lid 3 lmc 0 \"MT47396 Infiniscale-III\" lid 2

caguid=0x2c9020020e8f8
Ca\t2 \"H-0002c9020020e8f8\"\t\t# \"host b HCA-1\"
[1]\t\"S-0002c9000100d050\"[2]\t\t# lid 4 lmc 0 \"MT47396 Infiniscale-III\" lid 2
");
    assert_eq!(
        (f.switches().count(), f.cas().count(), f.links().len()),
        (1, 2, 2)
    );
    assert_eq!(lid_of(&f, "S-0002c9000100d050"), Some(2));
    assert_eq!(lid_of(&f, "H-0002c9020020e8f8"), Some(4));
}

/// `ibnetdiscover -g` (chassis grouping, `51401a3ed` onwards): `Chassis N (guid …)`, the
/// `# Spine Nodes` headings, `Non-Chassis Nodes`, chassis comments after `sysimgguid=` and
/// `switchguid=`, external port numbers `[ext N]` on both ends, `(scp)` after a CA header;
/// with `-f`: `s=… w=… v=…` after the speed (`843a0072a`, `6ac17c992`).
#[test]
fn ibnetdiscover_grouped_full_output() {
    let f = ok("\
#
# Topology file: generated on Wed Jan  1 00:00:00 2014
#
# Initiated from node 0008f104003f1598 port 0008f104003f1599

Chassis 1 (guid 0x8f104004020e0)

# Spine Nodes

vendid=0x8f1
devid=0x5a31
sysimgguid=0x8f104004020e0\t\t# Chassis 1 (ISR2012 Voltaire) slot 1
switchguid=0x8f10400411f50(8f10400411f50)\t# ISR2012/ISR2004 Voltaire sFB-12 1
Switch\t24 \"S-0008f10400411f50\"\t\t# \"ISR2012 Voltaire sFB-12\" enhanced port 0 lid 1 lmc 0
[1]\t\"S-0008f10400411f58\"[19]\t\t# \"ISR2012 Voltaire sLB-24\" lid 5 4xQDR s=4 w=2 v=4

# Line Nodes

vendid=0x8f1
devid=0x5a30
sysimgguid=0x8f104004020e0\t\t# Chassis 1 (ISR2012 Voltaire) slot 1
switchguid=0x8f10400411f58(8f10400411f58)\t# ISR2012/ISR2004 Voltaire sLB-24 3
Switch\t24 \"S-0008f10400411f58\"\t\t# \"ISR2012 Voltaire sLB-24\" enhanced port 0 lid 5 lmc 0
[19]\t\"S-0008f10400411f50\"[1]\t\t# \"ISR2012 Voltaire sFB-12\" lid 1 4xQDR s=4 w=2 v=4
[3][ext 7]\t\"H-0008f104003f1598\"[1](8f104003f1599) \t\t# \"node1 HCA-1\" lid 9 4xQDR s=4 w=2 v=4

# Chassis Switches

# Chassis CAs

Non-Chassis Nodes

vendid=0x8f1
devid=0x634a
sysimgguid=0x8f104003f159b
caguid=0x8f104003f1598
Ca\t2 \"H-0008f104003f1598\"\t\t# \"node1 HCA-1\" (scp)
[1](8f104003f1599) \t\"S-0008f10400411f58\"[3][ext 7]\t\t# lid 9 lmc 0 \"ISR2012 Voltaire sLB-24\" lid 5 4xQDR s=4 w=2 v=4
");
    assert_eq!(
        (f.switches().count(), f.cas().count(), f.links().len()),
        (2, 1, 2)
    );
    assert_eq!(lid_of(&f, "H-0008f104003f1598"), Some(9));
    let leaf = f.node_by_name("S-0008f10400411f58").unwrap();
    assert_eq!(
        f.node(f.peer(leaf, 3).unwrap().node).name(),
        "H-0008f104003f1598"
    );
}

/// A CA cabled to a CA (back to back): `out_ca_port` writes the peer's port GUID after a space,
/// `"H-…"[1] (guid) ` (`d3732ecd9` onwards). Speeds of every generation are accepted: the rest
/// of a link comment is not kept (`4xFDR10` from `ce6c56fa2`, `2xNDR` from `9afced0a8`, `4xXDR`
/// from `cf8f5fb45`).
#[test]
fn ibnetdiscover_ca_to_ca_and_speeds() {
    for speed in [
        "4xSDR",
        "4xFDR10",
        "4xEDR",
        "4xHDR",
        "2xNDR",
        "4xXDR",
        "1xundefined (9)",
    ] {
        let f = ok(&format!(
            "\
caguid=0x10
Ca\t1 \"H-0000000000000010\"\t\t# \"a\"
[1](11) \t\"H-0000000000000020\"[1] (21) \t\t# lid 1 lmc 0 \"b\" lid 2 {speed}

caguid=0x20
Ca\t1 \"H-0000000000000020\"\t\t# \"b\"
[1](21) \t\"H-0000000000000010\"[1] (11) \t\t# lid 2 lmc 0 \"a\" lid 1 {speed}
"
        ));
        assert_eq!((f.cas().count(), f.links().len()), (2, 1));
        assert_eq!(lid_of(&f, "H-0000000000000010"), Some(1));
    }
}

/// Node descriptions are written unescaped (`clean_nodedesc` only removes non-printable
/// characters): a `"` or `#` inside one must not shift the LIDs after it.
#[test]
fn ibnetdiscover_quotes_inside_descriptions() {
    let f = ok("\
Switch\t2 \"S-0000000000000001\"\t\t# \"rack \"A\" # 3\" base port 0 lid 7 lmc 0
[1]\t\"H-0000000000000002\"[1](3) \t\t# \"say \"hi\"\" lid 8 4xQDR
Ca\t1 \"H-0000000000000002\"\t\t# \"say \"hi\"\"
[1](3) \t\"S-0000000000000001\"[1]\t\t# lid 8 lmc 0 \"rack \"A\" # 3\" lid 7 4xQDR
");
    let sw = f.node_by_name("S-0000000000000001").unwrap();
    assert_eq!(f.node(sw).description(), "rack \"A\" # 3");
    assert_eq!(f.node(sw).lid(), Some(7));
    assert_eq!(lid_of(&f, "H-0000000000000002"), Some(8));
}

/// A subnet dumped before the subnet manager assigned LIDs: `lid 0` everywhere means no LID.
#[test]
fn ibnetdiscover_unconfigured_subnet_has_no_lids() {
    let f = ok("\
Switch\t2 \"S-0000000000000001\"\t\t# \"sw\" base port 0 lid 0 lmc 0
[1]\t\"H-0000000000000002\"[1](3) \t\t# \"ca\" lid 0 4xSDR
Ca\t1 \"H-0000000000000002\"\t\t# \"ca\"
[1](3) \t\"S-0000000000000001\"[1]\t\t# lid 0 lmc 0 \"sw\" lid 0 4xSDR
");
    assert!(f.nodes().iter().all(|n| n.lid().is_none()));
    assert_eq!(f.links().len(), 1);
}

/// `ibnetdiscover -l` / `-S` / `-H` / `-R` (`list_node`, unchanged since 2007): nodes, no links.
#[test]
fn ibnetdiscover_node_lists() {
    let f = ok("\
Switch\t : 0x0002c9000100d050 ports 24 devid 0xb924 vendid 0x2c9 \"MT47396 Infiniscale-III\"
Ca\t : 0x0002c9020020e8f4 ports 2 devid 0x6282 vendid 0x2c9 \"host a HCA-1\"
Router\t : 0x0002c9020020e900 ports 2 devid 0x6282 vendid 0x2c9 \"gw\"
");
    assert_eq!(
        (f.switches().count(), f.cas().count(), f.links().len()),
        (1, 1, 0)
    );
    let sw = f.node_by_guid(0x2c9000100d050).unwrap();
    assert_eq!(f.node(sw).port_count(), 24);
    assert_eq!(f.node(sw).name(), "S-0002c9000100d050");
    let rt = f.node_by_guid(0x2c9020020e900).unwrap();
    assert_eq!(f.node(rt).kind(), NodeKind::Router);
}

/// What is really broken is a typed error at its line.
#[test]
fn ibnetdiscover_broken_lines_are_located() {
    let cases: [(&str, usize); 4] = [
        ("Switch\t : 0x1 ports x devid 0x1 vendid 0x1 \"d\"\n", 1),
        ("\nChassis one\n", 2),
        ("switchguid=0x1(2) trailing\n", 1),
        (
            "Switch\t2 \"S-01\"\t\t# \"s\" base port 0 lid 1 lmc 0\n[1][ext x]\t\"H-02\"[1]\n",
            2,
        ),
    ];
    for (text, line) in cases {
        let e = ibnetdiscover::parse(text, "bad").unwrap_err();
        assert!(matches!(e, FabricError::Syntax { .. }), "{text}: {e}");
        assert_eq!(e.line(), Some(line), "{text}: {e}");
        assert!(e.to_string().starts_with("bad:"), "{e}");
    }
}

const IBROUTE: &str = "\
Unicast lids [0x0-0x3] of switch Lid 1 guid 0x0000000000000001 (sw):
  Lid  Out   Destination
       Port     Info 
0x0001 000 : (Switch portguid 0x0000000000000001: 'sw')
0x0002 001 : (Channel Adapter portguid 0x0000000000000003: 'a')
0x0003 002 : (Channel Adapter portguid 0x0000000000000005: 'b')
3 valid lids dumped 
";

/// `dump_fts -M` / `ibroute -M` add multicast tables (`Multicast mlids [0xc000-0xc001] …`,
/// port-mask rows, `N valid mlids dumped`): skipped whole. `dump_lfts.sh` since its
/// deprecation (`209bf9d61`, 2013) appends a warning after `dump_fts`'s output.
#[test]
fn table_dumps_with_multicast_and_the_dump_lfts_warning() {
    let text = format!(
        "{IBROUTE}\
Multicast mlids [0xc000-0xc001] of switch Lid 1 guid 0x0000000000000001 (sw):
            0    
     Ports: 012
 MLid
0xc000      xx 
1 valid mlids dumped 

*** WARNING ***: this command has been replaced by dump_fts


"
    );
    let (tables, r) = opensm::parse_lfts(&text, "dump_lfts.out").unwrap();
    assert_eq!(r.unrecognised_count(), 0);
    assert_eq!(tables.len(), 1);
    assert_eq!(tables[0].lft.get(3), Some(2));
    assert_eq!(tables[0].lid, Some(1));
    // A multicast table without its footer is cut short.
    let cut = "Multicast mlids [0xc000-0xc001] of switch Lid 1 guid 0x1 (sw):\n MLid\n";
    let e = opensm::parse_lfts(cut, "cut").unwrap_err();
    assert!(
        matches!(e, FabricError::UnexpectedEof { line: 2, .. }),
        "{e}"
    );
}

/// `opensm.fdbs` (`dump_ucast_routes`) since `21757e88` (2009): `HOPS UNKNOWN` for a route
/// whose hop count OpenSM cannot tell, `No N hop path possible via port P!` in the Optimal
/// column of a route longer than the shortest.
#[test]
fn fdbs_unknown_hops_and_non_optimal_routes() {
    let text = "\
dump_ucast_routes: Switch 0x0000000000000001
LID    : Port : Hops : Optimal
0x0001 : 000  : 00   : yes
0x0002 : 001  : HOPS UNKNOWN
0x0003 : 002  : 03   : No 1 hop path possible via port 1!
0x0004 : UNREACHABLE
";
    let (tables, r) = opensm::parse_fdbs(text, "opensm.fdbs").unwrap();
    assert_eq!(r.unrecognised_count(), 0);
    let t = &tables[0];
    assert_eq!(
        (t.lft.get(2), t.lft.get(3), t.lft.get(4)),
        (Some(1), Some(2), None)
    );
    assert_eq!((t.hops[2], t.hops[3]), (u8::MAX, 3));
    let bad = text.replace("No 1 hop path possible via port 1!", "No 1 hop path via 1!");
    let e = opensm::parse_fdbs(&bad, "f").unwrap_err();
    assert_eq!(e.line(), Some(5), "{e}");
}

/// A delivered route: source GUID, destination GUID, [(node GUID, out port)].
type GuidRoute = (u64, u64, Vec<(u64, u8)>);

/// Every delivered route, sorted.
fn routes_by_guid(f: &Fabric) -> Vec<GuidRoute> {
    let guid = |n| f.node(n).guid().unwrap();
    let mut out = Vec::new();
    for &s in f.ca_order() {
        for &d in f.ca_order() {
            if s != d {
                let hops = f.trace(s, d).unwrap();
                out.push((
                    guid(s),
                    guid(d),
                    hops.iter().map(|h| (guid(h.node), h.port)).collect(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// `ibnetdiscover.out` + `ibroute.out` (the tables read back from the switches by `dump_fts`)
/// give the routes of the OpenSM read of the same folder: the same path for every pair, the
/// same Lemma 1 verdict and worst case.
#[test]
fn ibnetdiscover_with_ibroute_tables_routes_as_opensm() {
    for (fabric, engine) in [
        ("karyntree-2-3", "ftree"),
        ("ftree-2-4-4", "ftree"),
        ("ftree-2-4-4", "minhop"),
    ] {
        let dir = fixtures().join(fabric).join(engine);
        let osm = FabricFiles {
            format: FabricFormat::Opensm,
            ..FabricFiles::new(&dir)
        }
        .load()
        .unwrap();
        let ibnd = FabricFiles {
            routes: Some(dir.join("ibroute.out")),
            format: FabricFormat::Ibnetdiscover,
            ..FabricFiles::new(dir.join("ibnetdiscover.out"))
        }
        .load()
        .unwrap();
        assert_eq!(ibnd.format, FabricFormat::Ibnetdiscover);
        assert_eq!(ibnd.unrecognised, 0, "{fabric}/{engine}");
        // The ftree engine's CA order is found beside the tables, as for OpenSM.
        assert_eq!(ibnd.ca_order.is_some(), engine == "ftree");
        let (a, b) = (&osm.fabric, &ibnd.fabric);
        assert_eq!(a.switches().count(), b.switches().count());
        let order = |f: &Fabric| -> Vec<u64> {
            f.ca_order()
                .iter()
                .map(|&c| f.node(c).guid().unwrap())
                .collect()
        };
        // With the ftree CA order both follow it; without, each follows its own file's node
        // order (routes are compared by GUID).
        if engine == "ftree" {
            assert_eq!(order(a), order(b), "{fabric}/{engine}");
        }
        let ra = routes_by_guid(a);
        assert_eq!(ra.len(), a.ca_order().len() * (a.ca_order().len() - 1));
        assert_eq!(ra, routes_by_guid(b), "{fabric}/{engine}");
        let (x, y) = (analyze(a).unwrap(), analyze(b).unwrap());
        assert_eq!(x.worst.contention, y.worst.contention);
        assert_eq!(x.lemma1.is_nonblocking(), y.lemma1.is_nonblocking());
        assert_eq!(x.lemma1.blocking_links.len(), y.lemma1.blocking_links.len());
        // OpenSM's own dump of the tables reads the same way.
        let lfts = FabricFiles {
            routes: Some(dir.join("opensm-lfts.dump")),
            format: FabricFormat::Ibnetdiscover,
            ..FabricFiles::new(dir.join("ibnetdiscover.out"))
        }
        .load()
        .unwrap();
        assert_eq!(routes_by_guid(&lfts.fabric), ra);
    }
}

/// Switch LIDs missing from the dump (`lid 0`) come from the tables' headers; a table for a GUID
/// the dump lacks is refused at its header line.
#[test]
fn ibnetdiscover_tables_supply_missing_switch_lids() {
    let dump = "\
Switch\t2 \"S-0000000000000001\"\t\t# \"sw\" base port 0 lid 0 lmc 0
[1]\t\"H-0000000000000003\"[1](3) \t\t# \"a\" lid 2 4xSDR
[2]\t\"H-0000000000000005\"[1](5) \t\t# \"b\" lid 3 4xSDR
Ca\t1 \"H-0000000000000003\"\t\t# \"a\"
[1](3) \t\"S-0000000000000001\"[1]\t\t# lid 2 lmc 0 \"sw\" lid 0 4xSDR
Ca\t1 \"H-0000000000000005\"\t\t# \"b\"
[1](5) \t\"S-0000000000000001\"[2]\t\t# lid 3 lmc 0 \"sw\" lid 0 4xSDR
";
    let (f, _) = ibnetdiscover::parse(dump, "d").unwrap();
    let (tables, _) = opensm::parse_lfts(IBROUTE, "ibroute.out").unwrap();
    let f = opensm::attach_tables(f, &tables, "ibroute.out").unwrap();
    assert_eq!(lid_of(&f, "S-0000000000000001"), Some(1));
    let s = f.trace_all();
    assert_eq!((s.routes, s.delivered), (2, 2));
    let other = IBROUTE.replace("guid 0x0000000000000001", "guid 0x0000000000000009");
    let (tables, _) = opensm::parse_lfts(&other, "x.out").unwrap();
    let (f, _) = ibnetdiscover::parse(dump, "d").unwrap();
    let e = opensm::attach_tables(f, &tables, "x.out").unwrap_err();
    assert!(matches!(e, FabricError::Unknown { line: 1, .. }), "{e}");
}

/// The ib_flit_sim example read with its tables and CA order.
fn flitsim(dir: &Path, name: &str) -> Fabric {
    let d = dir.join("ib_flit_sim").join(name);
    let t = |f: &str| read_text(&d.join(f)).unwrap();
    let (ned, fdbs, ini, hcas) = (
        t(&format!("{name}.ned")),
        t(&format!("{name}.fdbs")),
        t(&format!("{name}.fdbs.ini")),
        t("ftree.hcas"),
    );
    read_flitsim(
        ("ned", &ned),
        ("fdbs", &fdbs),
        ("fdbs.ini", &ini),
        Some(("ftree.hcas", &hcas)),
    )
    .unwrap()
    .0
}

/// ib_flit_sim's traffic files on their fabrics: every LID resolves to a CA, the pair counts
/// are the vectors' lengths, and the load through the tables is computed.
#[test]
fn dst_seq_on_the_shared_fabrics() {
    let Some(dir) = fabrics_dir() else { return };
    let is1 = flitsim(&dir, "is1_3l_32n");
    let d1 = dir.join("ib_flit_sim/is1_3l_32n");
    // (file, its .ini, pairs): the shift file sends 31 messages from each of 32 hosts; the
    // hot-spot files 6 and 15 (`gen.dstSeqIndex`, the older generator module's key).
    for (seq, pairs) in [
        ("is1_3l_32n.dstSeq", 32 * 31),
        ("32n_1hot.dstSeq", 32 * 6),
        ("32n_2hot.dstSeq", 32 * 15),
    ] {
        let t = FabricTraffic::DstSeq {
            path: d1.join(seq),
            ini: None,
        };
        let p = t.pairs(&is1, 0).unwrap();
        assert_eq!(p.len(), pairs, "{seq}");
        let load = is1.traffic_load(&p, 3).unwrap();
        assert_eq!(load.delivered, pairs as u64, "{seq}");
        assert!(load.congestion >= 1);
    }
    // The shift file: host H_k (CA LID k) sends to LIDs k+1, ..., k+31 mod 32: every other CA.
    let t: FabricTraffic = format!("dstseq:{}", d1.join("is1_3l_32n.dstSeq").display())
        .parse()
        .unwrap();
    let p = t.pairs(&is1, 0).unwrap();
    let mut per_src = vec![std::collections::BTreeSet::new(); 32];
    for &(s, d) in &p {
        assert_ne!(s, d);
        per_src[s as usize].insert(d);
    }
    assert!(per_src.iter().all(|d| d.len() == 31));

    let is4 = flitsim(&dir, "is4_3l_1944n");
    let d4 = dir.join("ib_flit_sim/is4_3l_1944n");
    let spec = format!(
        "dstseq:{},ini={}",
        d4.join("rand_32_perms_1944_nodes.dstSeq").display(),
        d4.join("is4_3l_1944n.dstSeq.ini").display()
    );
    let t: FabricTraffic = spec.parse().unwrap();
    assert_eq!(t.to_string(), spec);
    let p = t.pairs(&is4, 0).unwrap();
    // 32 random permutations: 1,944 hosts x 32 destinations, each destination 32 times.
    assert_eq!(p.len(), 1944 * 32);
    let mut into = vec![0u32; 1944];
    for &(_, d) in &p {
        into[d as usize] += 1;
    }
    let (lo, hi) = (into.iter().min().unwrap(), into.iter().max().unwrap());
    eprintln!("rand_32_perms: each CA receives {lo}..={hi} messages");
    let load = is4.traffic_load(&p, 1).unwrap();
    assert_eq!(load.delivered, p.len() as u64);
    eprintln!(
        "rand_32_perms on is4: congestion {}, {} links used",
        load.congestion, load.loaded_links
    );
    assert!(load.congestion >= 32 * 1944 / load.loaded_links as u32);
}

#[test]
fn dst_seq_errors_name_file_and_line() {
    let (seq, _) = parse_dst_seq("0: 2 3\n\n1: 1,3\n0: 1\n", "x.dstSeq").unwrap();
    assert_eq!(seq.vectors[&0].lids, vec![2, 3, 1]);
    assert_eq!(seq.vectors[&1].line, 3);
    assert_eq!(seq.entries(), 5);
    let e = parse_dst_seq("0: 2\n1 3\n", "x.dstSeq").unwrap_err();
    assert_eq!(e.line(), Some(2));
    let e = parse_dst_seq("0: 2 -3\n", "x.dstSeq").unwrap_err();
    assert!(matches!(e, FabricError::Syntax { line: 1, .. }), "{e}");
    let (a, r) = parse_dst_seq_ini(
        "[General]\n# c\n**H_1_U1.app.dstSeqVecIdx  = 0 \n**H_2_U1.gen.dstSeqIndex = 1\n**x.y = 2\n",
        "x.ini",
    )
    .unwrap();
    assert_eq!(
        a.iter()
            .map(|a| (a.host.as_str(), a.index))
            .collect::<Vec<_>>(),
        [("H_1_U1", 0), ("H_2_U1", 1)]
    );
    assert_eq!(r.unrecognised, vec![5]);
    let e = parse_dst_seq_ini("**H_1_U1.app.dstSeqVecIdx = one\n", "x.ini").unwrap_err();
    assert!(matches!(e, FabricError::Syntax { line: 1, .. }), "{e}");

    // Resolution against a fabric: LID 4 is the switch's, LID 9 nobody's.
    let f = ok(SMALL);
    let ini = parse_dst_seq_ini("**H-2.app.dstSeqVecIdx = 0\n", "i")
        .unwrap()
        .0;
    for (text, what) in [("0: 3 4\n", "4"), ("0: 9\n", "9"), ("0: 70000\n", "70000")] {
        let seq = parse_dst_seq(text, "s").unwrap().0;
        let e = traffic::dst_seq_pairs(&f, &seq, "s", &ini, "i").unwrap_err();
        match e {
            FabricError::Unknown {
                file, line, name, ..
            } => {
                assert_eq!((file.as_str(), line, name.as_str()), ("s", 1, what));
            }
            e => panic!("{e}"),
        }
    }
    let seq = parse_dst_seq("0: 3\n", "s").unwrap().0;
    let ini = parse_dst_seq_ini("\n**H-7.app.dstSeqVecIdx = 0\n", "i")
        .unwrap()
        .0;
    let e = traffic::dst_seq_pairs(&f, &seq, "s", &ini, "i").unwrap_err();
    assert!(matches!(e, FabricError::Unknown { line: 2, .. }), "{e}");
    let ini = parse_dst_seq_ini("**H-2.app.dstSeqVecIdx = 5\n", "i")
        .unwrap()
        .0;
    let e = traffic::dst_seq_pairs(&f, &seq, "s", &ini, "i").unwrap_err();
    assert!(
        matches!(
            e,
            FabricError::Unknown {
                what: "vector index",
                ..
            }
        ),
        "{e}"
    );
    // The .ini is needed: ib_flit_sim gives every host its vector by name.
    let e = FabricTraffic::DstSeq {
        path: "/nonexistent/x.dstSeq".into(),
        ini: None,
    }
    .pairs(&f, 0)
    .unwrap_err();
    assert!(matches!(e, FabricError::Io { .. }), "{e}");
}

/// A switch with two hosts (`H-2`, LID 2; `H-3`, LID 3, described `host three`) and the
/// switch at LID 4.
const SMALL: &str = "\
Switch\t2 \"S-0000000000000001\"\t\t# \"sw\" base port 0 lid 4 lmc 0
[1]\t\"H-2\"[1](3) \t\t# \"host two\" lid 2 4xSDR
[2]\t\"H-3\"[1](5) \t\t# \"host three\" lid 3 4xSDR
";

#[test]
fn host_pairs_by_name_and_description() {
    let f = ok(&format!(
        "{SMALL}Ca\t1 \"H-4\"\t\t# \"host two\"\n[1](7) \t\"H-5\"[1] (9) \t\t# lid 6 lmc 0 \"x\" lid 0 4xSDR\n"
    ));
    // H-4 shares the description `host two` with H-2.
    let (p, r) = parse_host_pairs(
        &f,
        "# pairs\nH-2 H-3\n\n\"host three\" H-2   # back\nH-3 H-3\n",
        "h",
    )
    .unwrap();
    let pos = |n: &str| {
        f.ca_order()
            .iter()
            .position(|&c| f.node(c).name() == n)
            .unwrap() as u32
    };
    let (two, three) = (pos("H-2"), pos("H-3"));
    assert_eq!(p, vec![(two, three), (three, two), (three, three)]);
    assert_eq!(r.lines, 5);
    for (text, line) in [
        ("H-2\n", 1),
        ("H-2 H-3 H-4\n", 1),
        ("\nH-2 nobody\n", 2),
        ("\"host two\" H-3\n", 1),
        ("S-0000000000000001 H-2\n", 1),
        ("\"open H-2\n", 1),
    ] {
        let e = parse_host_pairs(&f, text, "h").unwrap_err();
        assert_eq!(e.line(), Some(line), "{text}: {e}");
    }
    let e = parse_host_pairs(&f, "\"host two\" H-3\n", "h").unwrap_err();
    assert!(matches!(e, FabricError::NodeConflict { .. }), "{e}");
}

#[test]
fn traffic_texts_parse_once() {
    let p: FabricTraffic = "permutation".parse().unwrap();
    assert!(p.is_random());
    let h: FabricTraffic = "hosts:a b.txt".parse().unwrap();
    assert_eq!(
        h,
        FabricTraffic::Hosts {
            path: "a b.txt".into()
        }
    );
    assert_eq!(h.to_string(), "hosts:a b.txt");
    let d: FabricTraffic = "dstseq:x.dstSeq".parse().unwrap();
    assert_eq!(
        d,
        FabricTraffic::DstSeq {
            path: "x.dstSeq".into(),
            ini: None
        }
    );
    assert!("hosts:".parse::<FabricTraffic>().is_err());
    assert!("dstseq:".parse::<FabricTraffic>().is_err());
    assert!("nonsense".parse::<FabricTraffic>().is_err());
    // A pattern that does not suit the CAs is a typed error.
    let f = ok(SMALL);
    let e = "transpose"
        .parse::<FabricTraffic>()
        .unwrap()
        .pairs(&f, 1)
        .unwrap_err();
    assert!(matches!(e, FabricError::Traffic(_)), "{e}");
}

/// The is4 `.topo` describes systems: the three MIS5600 directors appear as their line cards'
/// front panels only (`SWS_k L<n>/P<p>`, read as nodes `SWS_k/L<n>`), the directors' spine
/// chips and the line cards' internal links to them live in ibdm's `.ibnl` files. The `.ned`
/// has every chip and every link.
#[test]
fn is4_topo_and_ned_disagree_on_the_directors_insides() {
    let Some(dir) = fabrics_dir() else { return };
    let d = dir.join("ib_flit_sim/is4_3l_1944n");
    let topo = read_text(&d.join("is4_3l_1944n.topo")).unwrap();
    let ned = read_text(&d.join("is4_3l_1944n.ned")).unwrap();
    let (t, _) = ibdm::parse(&topo, "topo", &ibdm::IbdmOptions::default()).unwrap();
    let (n, _) = fatnet_fabric::flitsim::parse_ned(&ned, "ned").unwrap();
    let c = compare(&t, &n);
    // 1,944 hosts and 108 leaf switches by normalised name (H-1 ~ H_1_U1, SW-2-0 ~
    // SW_2_0_U1); the 3 x 36 director line cards (SWS_0/L1 ~ SWS_0_leaf1_U1) through their
    // cables from the leaf switches.
    assert_eq!(c.matched_by.normalised, 1944 + 108);
    assert_eq!(c.matched_by.structure, 3 * 36);
    // Only in the .topo: the 3 director systems themselves (named, never a chip).
    let only_t: Vec<&str> = c.only_in_a.iter().map(|&x| t.node(x).name()).collect();
    assert_eq!(only_t, ["SWS_0", "SWS_1", "SWS_2"]);
    // Only in the .ned: the 3 x 18 spine chips, and the 108 x 18 line-card-to-spine links.
    assert_eq!(c.only_in_b.len(), 54);
    assert!(
        c.only_in_b
            .iter()
            .all(|&y| n.node(y).name().contains("spine"))
    );
    assert_eq!(c.links_only_in_b.len(), 108 * 18);
    assert!(c.links_only_in_a.is_empty());
    assert_eq!(c.common_links, 1944 + 108 * 18);
    // The line cards: 36 ports in the .ned, the 18 front-panel ports in the .topo.
    assert_eq!(c.port_counts_differ.len(), 108);
    assert!(!c.is_same());
}

/// The is1 `.topo` is all single-chip systems: it and the `.ned` are the same fabric.
#[test]
fn is1_topo_and_ned_agree() {
    let Some(dir) = fabrics_dir() else { return };
    let d = dir.join("ib_flit_sim/is1_3l_32n");
    let topo = read_text(&d.join("is1_3l_32n.topo")).unwrap();
    let ned = read_text(&d.join("is1_3l_32n.ned")).unwrap();
    let (t, _) = ibdm::parse(&topo, "topo", &ibdm::IbdmOptions::default()).unwrap();
    let (n, _) = fatnet_fabric::flitsim::parse_ned(&ned, "ned").unwrap();
    let c = compare(&t, &n);
    assert_eq!(c.matched_by.total(), 32 + 20);
    assert_eq!(c.common_links, t.links().len());
    assert_eq!(t.links().len(), n.links().len());
    assert!(c.is_same(), "{c:?}");
    // Cutting one cable out of the .ned is seen, on the .topo's side.
    let cut: String = ned
        .lines()
        .filter(|l| !l.contains("H_1_U1.port <-->"))
        .map(|l| format!("{l}\n"))
        .collect();
    let (n2, _) = fatnet_fabric::flitsim::parse_ned(&cut, "ned").unwrap();
    let c = compare(&t, &n2);
    assert_eq!(c.links_only_in_a.len(), 1);
    let l = c.links_only_in_a[0];
    let names = [t.node(l.a.node).name(), t.node(l.b.node).name()];
    assert!(names.contains(&"H-1"), "{names:?}");
}

/// The same fabric read twice matches by GUID, and a fabric against itself is the same.
#[test]
fn a_fabric_is_the_same_as_itself() {
    let dir = fixtures().join("ftree-2-4-4/ftree");
    let text = read_text(&dir.join("ibnetdiscover.out")).unwrap();
    let f = ok(&text);
    let c = compare(&f, &f);
    assert!(c.is_same());
    assert_eq!(c.matched_by.guid, f.node_count());
    // Against the OpenSM subnet list of the same subnet: same GUIDs, same links.
    let lst = read_text(&fixtures().join("ftree-2-4-4/opensm-subnet.lst")).unwrap();
    let (g, _) = opensm::parse_subnet_lst(&lst, "lst").unwrap();
    let c = compare(&f, &g);
    assert!(c.is_same(), "{c:?}");
}
