//! The readers added for real dumps: an ib_flit_sim destination sequence resolved against its
//! fabric (1,944 hosts x 32 destinations), the is4 `.topo` compared with its `.ned` (2,163 and
//! 2,214 nodes), and NVIDIA topograph's `ibnetdiscover` dump (582 CAs) read. The files come
//! from `../shared/fabrics` (or `$FATNET_FABRICS`); without them the bench prints a notice and
//! measures nothing.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use fatnet_fabric::traffic::{dst_seq_pairs, parse_dst_seq, parse_dst_seq_ini};
use fatnet_fabric::{compare, flitsim, ibdm, ibnetdiscover, read_text};

fn shared() -> Option<PathBuf> {
    let dir = std::env::var_os("FATNET_FABRICS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/fabrics"),
        PathBuf::from,
    );
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!("NOTICE: {} not found; skipping", dir.display());
        None
    }
}

fn dst_seq(c: &mut Criterion) {
    let (Some(dir), Some(fabric)) = (shared(), fatnet_benches::flitsim_fabric("is4_3l_1944n"))
    else {
        return;
    };
    let base = dir.join("ib_flit_sim/is4_3l_1944n");
    let seq_text = read_text(&base.join("rand_32_perms_1944_nodes.dstSeq")).unwrap();
    let ini_text = read_text(&base.join("is4_3l_1944n.dstSeq.ini")).unwrap();
    let mut g = c.benchmark_group("fabric_dst_seq");
    g.sample_size(10);
    g.throughput(Throughput::Elements(1944 * 32));
    g.bench_function("is4_rand_32_perms", |b| {
        b.iter(|| {
            let (seq, _) = parse_dst_seq(black_box(&seq_text), "s").unwrap();
            let (ini, _) = parse_dst_seq_ini(black_box(&ini_text), "i").unwrap();
            dst_seq_pairs(&fabric, &seq, "s", &ini, "i").unwrap().len()
        })
    });
    g.finish();
}

fn compare_topo_ned(c: &mut Criterion) {
    let Some(dir) = shared() else { return };
    let base = dir.join("ib_flit_sim/is4_3l_1944n");
    let topo = read_text(&base.join("is4_3l_1944n.topo")).unwrap();
    let ned = read_text(&base.join("is4_3l_1944n.ned")).unwrap();
    let (t, _) = ibdm::parse(&topo, "topo", &ibdm::IbdmOptions::default()).unwrap();
    let (n, _) = flitsim::parse_ned(&ned, "ned").unwrap();
    let mut g = c.benchmark_group("fabric_compare");
    g.sample_size(10);
    g.bench_function("is4_topo_vs_ned", |b| {
        b.iter(|| compare(black_box(&t), black_box(&n)).links_only_in_b.len())
    });
    g.finish();
}

fn read_ibnetdiscover(c: &mut Criterion) {
    let Some(dir) = shared() else { return };
    let text = read_text(&dir.join("topograph/example.out")).unwrap();
    let mut g = c.benchmark_group("fabric_read_ibnetdiscover");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("topograph_example", |b| {
        b.iter(|| {
            ibnetdiscover::parse(black_box(&text), "example.out")
                .unwrap()
                .0
                .links()
                .len()
        })
    });
    g.finish();
}

criterion_group!(benches, dst_seq, compare_topo_ned, read_ibnetdiscover);
criterion_main!(benches);
