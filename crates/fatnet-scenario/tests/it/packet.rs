//! Packet scenarios: options, defaults, refusals, files, trials.

use fatnet_online::packet::{
    FlowControl, PacketConfig, QueueCapacity, Queueing, RouteSource, ScanOrder, ScanPolicy,
    SinkModel, batch_trial,
};
use fatnet_scenario::{
    PacketOptions, PacketRunFile, PacketScenario, Parameter, RunOptions, ScenarioError, derive_seed,
};

#[test]
fn defaults_are_table_one_and_follow_the_flow_and_the_queueing() {
    let worm = PacketOptions::default()
        .resolve(1024, RouteSource::ShortestPaths)
        .unwrap();
    assert_eq!(worm.config, PacketConfig::worm());
    assert_eq!(worm.delay, 1);
    let store = PacketOptions {
        flow: Some(FlowControl::StoreAndForward),
        ..PacketOptions::default()
    };
    assert_eq!(
        store
            .resolve(1024, RouteSource::ShortestPaths)
            .unwrap()
            .config,
        PacketConfig::store()
    );
    let output = PacketOptions {
        queueing: Some(Queueing::Output),
        ..PacketOptions::default()
    }
    .resolve(64, RouteSource::ShortestPaths)
    .unwrap()
    .config;
    assert_eq!(output.flow, FlowControl::StoreAndForward);
    assert_eq!(output.queue, QueueCapacity::Unbounded);
    assert_eq!(output.sink, SinkModel::Immediate);
    let prio = PacketOptions {
        scan: Some(ScanOrder::RandomPriority),
        ..PacketOptions::default()
    };
    // Figure 2's R = ceil(log2 N).
    assert_eq!(
        prio.resolve(1000, RouteSource::ShortestPaths)
            .unwrap()
            .config
            .scan,
        ScanPolicy::RandomPriority { range: 10 }
    );
}

#[test]
fn refusals_name_their_parameters() {
    let range_without_prio = PacketOptions {
        priority_range: Some(4),
        ..PacketOptions::default()
    };
    let e = range_without_prio
        .resolve(16, RouteSource::ShortestPaths)
        .unwrap_err();
    assert!(matches!(
        e,
        ScenarioError::Requires {
            param: Parameter::PriorityRange,
            other: Parameter::Scan,
            value: "prio"
        }
    ));
    assert_eq!(
        e.to_string(),
        "priority_range applies only with scan = prio"
    );
    let zero_delay = PacketOptions {
        delay: Some(0),
        ..PacketOptions::default()
    };
    assert!(matches!(
        zero_delay.resolve(16, RouteSource::ShortestPaths),
        Err(ScenarioError::OutOfRange {
            param: Parameter::Delay,
            ..
        })
    ));
    let output_worm = PacketOptions {
        queueing: Some(Queueing::Output),
        flow: Some(FlowControl::Wormhole),
        ..PacketOptions::default()
    };
    assert!(matches!(
        output_worm.resolve(16, RouteSource::ShortestPaths),
        Err(ScenarioError::Options { .. })
    ));
    assert!(matches!(
        RunOptions {
            trials: Some(0),
            ..RunOptions::default()
        }
        .resolve(),
        Err(ScenarioError::OutOfRange {
            param: Parameter::Trials,
            ..
        })
    ));
    assert!(
        RunOptions {
            threads: Some(100_000_000),
            ..RunOptions::default()
        }
        .resolve()
        .is_err()
    );
}

#[test]
fn a_config_file_takes_the_names_of_the_command_line_and_refuses_unknown_keys() {
    let file: PacketRunFile = toml::from_str(
        "topology = \"bft:n=64\"\ntraffic = \"broadcast:src=3\"\nflow = \"store\"\nqueue = \"unbounded\"\ntrials = 4\n",
    )
    .unwrap();
    assert_eq!(file.topology.unwrap().to_string(), "bft:n=64");
    assert_eq!(file.traffic.unwrap().to_string(), "broadcast:src=3");
    assert_eq!(file.options.flow, Some(FlowControl::StoreAndForward));
    assert_eq!(file.options.queue, Some(QueueCapacity::Unbounded));
    assert_eq!(file.run.trials, Some(4));
    let e = PacketRunFile::parse("flits = 8\nflw = \"worm\"\n").unwrap_err();
    assert!(e.to_string().contains("flw"), "{e}");
    let e = PacketRunFile::parse("flow = \"wormhole\"\n").unwrap_err();
    assert!(
        e.to_string().contains("expected one of store, worm, split"),
        "{e}"
    );
    let e = PacketRunFile::parse("queue = 0\n").unwrap_err();
    assert!(e.to_string().contains("at least 1"), "{e}");
}

#[test]
fn a_trial_is_the_engine_run_with_the_documented_seeds() {
    let scenario = PacketScenario {
        topology: "bft:n=64".parse().unwrap(),
        traffic: "uniform:self=false".parse().unwrap(),
        options: PacketOptions::default(),
    };
    let prepared = scenario.prepare(7).unwrap();
    assert!(prepared.traffic_per_trial());
    for trial in 0..3 {
        let seed = derive_seed(7, trial);
        let messages = scenario.traffic.generate(64, seed).unwrap();
        let direct = batch_trial(
            prepared.net(),
            &messages,
            1,
            &PacketConfig::worm(),
            derive_seed(seed, 1),
        )
        .unwrap();
        assert_eq!(prepared.trial(seed).unwrap(), direct);
    }
    // Any thread count, the same trials.
    let runner = |threads| fatnet_scenario::runner::RunnerConfig {
        threads: Some(threads),
    };
    let one = prepared.run(7, 6, &runner(1), &|_| {}).unwrap();
    let two = prepared.run(7, 6, &runner(2), &|_| {}).unwrap();
    assert_eq!(one, two);
    assert_eq!(one[2].report, prepared.trial(derive_seed(7, 2)).unwrap());
}

#[test]
fn traffic_that_does_not_suit_the_network_fails_in_prepare() {
    let scenario = PacketScenario {
        topology: "bft:n=64".parse().unwrap(),
        traffic: "broadcast:src=64".parse().unwrap(),
        options: PacketOptions::default(),
    };
    assert!(matches!(
        scenario.prepare(1),
        Err(ScenarioError::Traffic { processors: 64, .. })
    ));
}

#[test]
fn file_errors_have_the_line_of_the_key() {
    let e = PacketRunFile::parse("topology = \"bft:n=16\"\nflws = \"store\"\n").unwrap_err();
    assert!(
        matches!(
            e,
            ScenarioError::File {
                line: 2,
                column: 1,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("unknown key `flws`"), "{e}");
    let e = PacketRunFile::parse("trials = 2\nflow = \"wormhole\"\n").unwrap_err();
    assert!(matches!(e, ScenarioError::File { line: 2, .. }), "{e}");
    let e = PacketRunFile::parse("trials = \n").unwrap_err();
    assert!(matches!(e, ScenarioError::File { line: 1, .. }), "{e}");
}

#[test]
fn on_a_fabric_the_path_is_the_tables() {
    let fabric = RouteSource::TopologyPaths;
    let setup = PacketOptions::default().resolve(32, fabric).unwrap();
    assert_eq!(
        setup.config.path,
        fatnet_online::packet::PathPolicy::Standard
    );
    let std = PacketOptions {
        path: Some(fatnet_online::packet::PathPolicy::Standard),
        ..PacketOptions::default()
    };
    assert_eq!(std.resolve(32, fabric).unwrap().config, setup.config);
    for policy in ["fp", "rp", "gp", "dor"] {
        let chosen = PacketOptions {
            path: Some(policy.parse().unwrap()),
            ..PacketOptions::default()
        };
        let e = chosen.resolve(32, fabric).unwrap_err();
        assert!(
            matches!(
                e,
                ScenarioError::OutOfRange {
                    param: Parameter::Path,
                    ..
                }
            ),
            "{policy}: {e}"
        );
        // On a built-in topology every policy is allowed.
        assert_eq!(
            chosen
                .resolve(32, RouteSource::ShortestPaths)
                .unwrap()
                .config
                .path,
            policy.parse().unwrap()
        );
    }
}

#[test]
fn a_network_is_a_spec_string_or_a_fabric_table() {
    use fatnet_scenario::Network;
    let file: PacketRunFile =
        PacketRunFile::parse("topology = { fabric = \"a.ned\", routes = \"a.fdbs\" }\n").unwrap();
    let Some(Network::Fabric(files)) = &file.topology else {
        panic!("{:?}", file.topology)
    };
    assert_eq!(files.fabric, std::path::PathBuf::from("a.ned"));
    assert_eq!(
        files.routes.as_deref(),
        Some(std::path::Path::new("a.fdbs"))
    );
    let spec = PacketRunFile::parse("topology = \"bft:n=64\"\n").unwrap();
    assert_eq!(spec.topology, Some("bft:n=64".parse().unwrap()));
    // A bad spec keeps its own message; an unknown fabric key is named, at its line.
    let e = PacketRunFile::parse("trials = 2\ntopology = \"nosuch:n=1\"\n").unwrap_err();
    assert!(e.to_string().starts_with("line 2"), "{e}");
    assert!(e.to_string().contains("nosuch"), "{e}");
    let e =
        PacketRunFile::parse("topology = { fabric = \"a.ned\", tables = \"x\" }\n").unwrap_err();
    assert!(e.to_string().contains("tables"), "{e}");
    // Round trip through JSON: a string, or the table.
    for network in [spec.topology.unwrap(), Network::Fabric(files.clone())] {
        let json = serde_json::to_string(&network).unwrap();
        assert_eq!(serde_json::from_str::<Network>(&json).unwrap(), network);
    }
}

#[test]
fn a_fabric_has_a_one_string_form() {
    use fatnet_scenario::Network;
    let n: Network = "fabric:a.ned,routes=a.fdbs,ca_order=h,format=flitsim"
        .parse()
        .unwrap();
    let Network::Fabric(files) = &n else {
        panic!("{n:?}")
    };
    assert_eq!(
        (
            files.fabric.to_str(),
            files.routes.as_deref().and_then(|p| p.to_str())
        ),
        (Some("a.ned"), Some("a.fdbs"))
    );
    assert_eq!(files.format, fatnet_fabric::FabricFormat::Flitsim);
    // Display is the same form, so it parses back.
    assert_eq!(n.to_string().parse::<Network>().unwrap(), n);
    assert_eq!(
        "fabric:x".parse::<Network>().unwrap().to_string(),
        "fabric:x"
    );
    for bad in [
        "fabric:",
        "fabric:a.ned,tables=x",
        "fabric:a.ned,routes",
        "fabric:a.ned,routes=",
        "fabric:a.ned,routes=a,routes=b",
        "fabric:a.ned,format=tofu",
        "nosuch:n=1",
    ] {
        assert!(bad.parse::<Network>().is_err(), "{bad}");
    }
}
