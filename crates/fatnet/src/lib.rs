//! fatnet: fat-trees and related interconnection networks.
//!
//! This crate only re-exports the workspace's library crates under short module names, so a
//! program depends on `fatnet` alone; the [`prelude`] has the names most programs need.
//!
//! | module | crate | what it is for | key items |
//! |---|---|---|---|
//! | [`topology`] | `fatnet-topology` | builds networks: Leiserson's fat-tree with arbitrary or universal capacities, Greenberg and Oh's butterfly fat-tree, Yuan's folded Clos and unfolded Clos, k-ary n-trees, Stamoulis' hypercube and butterfly | [`FatTree`](topology::FatTree), [`ButterflyFatTree`](topology::ButterflyFatTree), [`FoldedClos`](topology::FoldedClos), [`Hypercube`](topology::Hypercube), the [`Topology`](topology::Topology) trait, [`AnyTopology`](topology::AnyTopology), [`TopologySpec`](topology::TopologySpec) (`fattree:n=1024,profile=universal,w=128`) |
//! | [`traffic`] | `fatnet-traffic` | message sets and traffic patterns (permutations, replicated, mesh, Valiant, wormhole benchmarks) and Stamoulis' Poisson arrivals | [`MessageSet`](traffic::MessageSet), [`TrafficSpec`](traffic::TrafficSpec), [`patterns`](traffic::patterns), [`arrivals`](traffic::arrivals) |
//! | [`load`] | `fatnet-load` | how hard a message set loads a network: channel loads, the load factor λ(M), congestion and dilation | [`analyze`](load::analyze), [`LoadReport`](load::LoadReport), [`LoadFactor`](load::LoadFactor), [`PathSelection`](load::PathSelection) |
//! | [`offline`] | `fatnet-offline` | off-line problems with certificates: Leiserson's schedules, Yuan's nonblocking checks and routings, Stamoulis' static hypercube tasks | [`leiserson::theorem1`](offline::leiserson::theorem1), [`Schedule`](offline::Schedule), [`clos::check_nonblocking`](offline::clos::check_nonblocking), [`hypercube::total_exchange`](offline::hypercube::total_exchange) |
//! | [`online`] | `fatnet-online` | simulators: the delivery-cycle engine with its routers (GREEDY, RANDOM, RANDOM′), the synchronous packet engine (wormhole, store-and-forward), Stamoulis' dynamic schemes | [`run`](online::run), [`Greedy`](online::Greedy), [`RandomRouter`](online::RandomRouter), [`DropPolicy`](online::DropPolicy), [`packet::simulate`](online::packet::simulate), [`greedy_cube`](online::greedy_cube) |
//! | [`queueing`] | `fatnet-queueing` | closed-form bounds the simulations are judged against | [`greenberg_leiserson`](queueing::greenberg_leiserson), [`stamoulis`](queueing::stamoulis), [`stats`](queueing::stats) |
//! | [`fabric`] | `fatnet-fabric` | real InfiniBand fabrics: topology dumps and forwarding tables, route tracing, Lemma 1 and worst-case contention of the routing | [`Fabric`](fabric::Fabric), [`ibnetdiscover`](fabric::ibnetdiscover), [`opensm`](fabric::opensm), [`analyze`](fabric::analyze) |
//! | [`scenario`] | `fatnet-scenario` | one typed description of a run shared by every front end: options parsed once, defaults and refusals resolved in one place, seeded trials | [`PacketScenario`](scenario::PacketScenario), [`RouteScenario`](scenario::RouteScenario), [`ScheduleScenario`](scenario::ScheduleScenario), [`DynamicScenario`](scenario::DynamicScenario), [`derive_seed`](scenario::derive_seed) |
//!
//! Two crates of the workspace are not re-exported: `fatnet-repro` (the papers' tables,
//! recomputed and compared with the printed values, built on this crate) and `fatnet-cli` (the
//! `fatnet` command).
//!
//! ```
//! use fatnet::prelude::*;
//!
//! let tree = FatTree::universal(1024, 128).unwrap();
//! let messages = "replicated:k=2".parse::<TrafficSpec>().unwrap().generate(1024, 7).unwrap();
//! let report = analyze(&tree.into(), &messages, PathSelection::Standard).unwrap();
//! assert!(report.load_factor.ceil() >= 1);
//! ```
//!
//! A longer tour: λ(M) of the complement permutation on a fat-tree of unit capacities, a
//! schedule that meets it, and a seeded simulation of GREEDY that also needs `⌈λ⌉` cycles.
//!
//! ```
//! use fatnet::offline::leiserson;
//! use fatnet::online::{self, DropPolicy, Greedy, RunConfig};
//! use fatnet::prelude::*;
//! use fatnet::traffic::patterns;
//!
//! let tree = FatTree::new(16, CapacityProfile::Constant(1))?;
//! let messages = patterns::complement(16)?;
//! let report = analyze(&tree.clone().into(), &messages, PathSelection::Standard)?;
//! assert_eq!(report.load_factor.ceil(), 8);
//! let plan = leiserson::theorem1(&tree, &messages)?;
//! assert_eq!((plan.cycles(), plan.schedule.verify(&tree, &messages)), (8, Ok(())));
//! let config = RunConfig::default();
//! let run = online::run(&tree, &messages, DropPolicy::Random, &mut Greedy, 1, config)?;
//! assert_eq!((run.finished, run.cycles), (true, 8));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # References
//!
//! The crates' documentation cites these papers by author and short title, with the section,
//! table, figure or theorem meant.
//!
//! - C. E. Leiserson, *Fat-Trees: Universal Networks for Hardware-Efficient Supercomputing*,
//!   IEEE Transactions on Computers C-34(10), 1985. Cited as Leiserson, *Fat-Trees* (1985).
//! - R. I. Greenberg and C. E. Leiserson, *Randomized Routing on Fat-Trees*, technical report
//!   MIT/LCS/TM-307, MIT, 1986 (an extended abstract appeared at FOCS 1985). Cited as
//!   Greenberg & Leiserson, *Randomized routing on fat-trees* (1986).
//! - X. Yuan, *On Nonblocking Folded-Clos Networks in Computer Communication Environments*.
//!   Cited as Yuan, *On nonblocking folded-Clos networks*.
//! - R. I. Greenberg and H.-C. Oh, *Universal Wormhole Routing*, IEEE Transactions on Parallel
//!   and Distributed Systems 8(3):254–262, 1997. Cited as Greenberg & Oh, *Universal wormhole
//!   routing* (1997).
//! - G. D. Stamoulis, *Routing and Performance Evaluation in Interconnection Networks*, PhD
//!   thesis, MIT, 1991 (report LIDS-TH-2035). Cited as Stamoulis, *Routing and performance
//!   evaluation in interconnection networks* (PhD thesis, MIT, 1991), or "the thesis" within
//!   a module on it.
//!
//! Other works (Petrini and Vanneschi's k-ary n-trees, Crommelin's M/D/c formula, the
//! schedules of Bertsekas et al. and of Saad and Schultz that the thesis builds on) are cited
//! where they are used.

#![deny(missing_docs)]

pub use fatnet_fabric as fabric;
pub use fatnet_load as load;
pub use fatnet_offline as offline;
pub use fatnet_online as online;
pub use fatnet_queueing as queueing;
pub use fatnet_scenario as scenario;
pub use fatnet_topology as topology;
pub use fatnet_traffic as traffic;

/// The types and functions most programs need.
pub mod prelude {
    pub use fatnet_load::{LoadFactor, LoadReport, PathSelection, analyze};
    pub use fatnet_topology::{
        AnyTopology, Butterfly, ButterflyFatTree, CapacityProfile, ChannelId, Clos, FatTree,
        FoldedClos, Hypercube, KAryNTree, NodeId, Topology, TopologySpec,
    };
    pub use fatnet_traffic::{Message, MessageSet, TrafficSpec};
}
