//! One case, three front ends: `fatnet simulate`, a sweep task and the library's scenario give
//! the same trial records, byte for byte (issue 16: "a sweep trial equals the command" by
//! construction, tested as such).

use fatnet::scenario::{
    PacketOptions, PacketScenario, RouteScenario, ScheduleScenario, derive_seed,
};
use fatnet_repro::sweep::SweepSpec;
use serde_json::Value;

use crate::common::json;

/// `(topology, traffic, options as TOML key = value lines, the same as flags)`.
const CASES: [(&str, &str, &str, &[&str]); 5] = [
    // A randomized pattern, drawn per trial, with initial delays.
    (
        "bft:n=64",
        "uniform:self=false",
        "delay = 4\nflits = 8\n",
        &["--delay", "4", "--flits", "8"],
    ),
    // A fixed pattern, store-and-forward, fixed paths, farthest-first.
    (
        "fattree:n=32,profile=area",
        "complement",
        "flow = \"store\"\npath = \"fp\"\nscan = \"ff\"\n",
        &["--flow", "store", "--path", "fp", "--scan", "ff"],
    ),
    // Random priorities with their default range, split flits.
    (
        "bft:n=16",
        "permutation",
        "flow = \"split\"\nscan = \"prio\"\nqueue = 3\n",
        &["--flow", "split", "--scan", "prio", "--queue", "3"],
    ),
    // A broadcast on output queues (a sweep could not run broadcasts before).
    (
        "hypercube:d=4",
        "broadcast:src=5",
        "queueing = \"output\"\npath = \"dor\"\n",
        &["--queueing", "output", "--path", "dor"],
    ),
    // A real fabric through OpenSM's updn tables (ftree(3+6, 6)), wormhole, random instances.
    (
        concat!(
            "fabric:",
            env!("CARGO_MANIFEST_DIR"),
            "/../fatnet-fabric/tests/fixtures/opensm/ftree-3-6-6/opensm-subnet.lst,routes=",
            env!("CARGO_MANIFEST_DIR"),
            "/../fatnet-fabric/tests/fixtures/opensm/ftree-3-6-6/updn"
        ),
        "permutation",
        "flits = 4\n",
        &["--flits", "4"],
    ),
];

#[test]
fn a_case_gives_the_same_json_as_a_command_a_sweep_task_and_a_library_call() {
    const SWEEP_SEED: u64 = 11;
    const TRIALS: u64 = 3;
    for (topology, traffic, toml_options, flags) in CASES {
        // The sweep: one point, so its seed is derive_seed(11, 0).
        let sweep = format!(
            "simulator = \"packet\"\ntrials = {TRIALS}\nseed = {SWEEP_SEED}\n[params]\ntopology = \"{topology}\"\ntraffic = \"{traffic}\"\n{toml_options}"
        );
        let spec = SweepSpec::parse(&sweep).unwrap_or_else(|e| panic!("{sweep}\n{e}"));
        let point_seed = derive_seed(SWEEP_SEED, 0);

        // The command, with the point's seed as its master seed.
        let seed = point_seed.to_string();
        let args = [
            &[
                "simulate",
                topology,
                "--traffic",
                traffic,
                "--seed",
                &seed,
                "--trials",
                "3",
                "--per-trial",
                "--json",
            ][..],
            flags,
        ]
        .concat();
        let command = json(&args);

        // The library.
        let options: PacketOptions = toml::from_str(toml_options).unwrap();
        let scenario = PacketScenario {
            topology: topology.parse().unwrap(),
            traffic: traffic.parse().unwrap(),
            options,
        };
        let prepared = scenario.prepare(point_seed).unwrap();

        for trial in 0..TRIALS {
            let trial_seed = derive_seed(point_seed, trial);
            let library = serde_json::to_string(&prepared.trial(trial_seed).unwrap()).unwrap();

            // The sweep task's line ends with `"result":{...}}`: compare the raw bytes.
            let line = String::from_utf8(spec.run_task_line(trial).unwrap()).unwrap();
            let start = line.find("\"result\":").unwrap() + "\"result\":".len();
            let from_sweep = &line[start..line.trim_end().len() - 1];
            assert_eq!(from_sweep, library, "{topology} {traffic} trial {trial}");

            // The command's record is the same report with its trial and seed.
            let mut record = command["per_trial"][trial as usize].clone();
            assert_eq!(record["seed"], trial_seed);
            let record = record.as_object_mut().unwrap();
            record.remove("trial");
            record.remove("seed");
            let library: Value = serde_json::from_str(&library).unwrap();
            assert_eq!(
                Value::Object(record.clone()),
                library,
                "{topology} {traffic}"
            );
        }
        // Sanity: the runs did route something, and the trials differ where they should.
        assert!(command["unit_hops"].as_u64().unwrap() > 0);
    }
}

#[test]
fn a_sweep_refuses_what_the_command_refuses_with_the_same_words() {
    let sweep = "simulator = \"packet\"\ntrials = 1\nseed = 1\n[params]\ntopology = \"bft:n=16\"\ntraffic = \"permutation\"\npriority_range = 3\n";
    let e = SweepSpec::parse(sweep).unwrap_err().to_string();
    let cli = crate::common::stderr_of_failure([
        "simulate",
        "bft:n=16",
        "--traffic",
        "permutation",
        "--priority-range",
        "3",
    ]);
    let words = "priority_range applies only with scan = prio";
    assert!(e.contains(words) && e.contains("line 7"), "{e}");
    assert!(cli.contains(words), "{cli}");
}

/// The `result` of a sweep task's JSON line, as its raw bytes.
fn result_of(line: &[u8]) -> String {
    let line = String::from_utf8(line.to_vec()).unwrap();
    let start = line.find("\"result\":").unwrap() + "\"result\":".len();
    line[start..line.trim_end().len() - 1].to_string()
}

/// The fields of `record` (a library trial record) as `command` (a command's JSON) has them.
fn fields_of(command: &Value, record: &Value) -> Value {
    let keys = record.as_object().unwrap().keys();
    Value::Object(keys.map(|k| (k.clone(), command[k].clone())).collect())
}

#[test]
fn a_schedule_is_the_same_from_the_command_a_sweep_task_and_the_library() {
    const SWEEP_SEED: u64 = 5;
    const TRIALS: u64 = 3;
    // (topology, traffic, options as TOML, the same as flags)
    let cases: [(&str, &str, &str, &[&str]); 2] = [
        (
            "fattree:n=64,profile=area,leaf=8",
            "replicated:k=3",
            "",
            &[],
        ),
        (
            "fattree:n=64,profile=constant,cap=12",
            "permutation",
            "algorithm = \"corollary2\"\nfictitious = \"depth\"\n",
            &["--algorithm", "corollary2", "--fictitious", "depth"],
        ),
    ];
    for (topology, traffic, toml_options, flags) in cases {
        let sweep = format!(
            "scheduler = \"leiserson\"\ntrials = {TRIALS}\nseed = {SWEEP_SEED}\n[params]\ntopology = \"{topology}\"\ntraffic = \"{traffic}\"\n{toml_options}"
        );
        let spec = SweepSpec::parse(&sweep).unwrap_or_else(|e| panic!("{sweep}\n{e}"));
        let point_seed = derive_seed(SWEEP_SEED, 0);
        let scenario = ScheduleScenario {
            topology: topology.parse().unwrap(),
            traffic: traffic.parse().unwrap(),
            options: toml::from_str(toml_options).unwrap(),
        };
        let prepared = scenario.prepare(point_seed).unwrap();
        let mut loads = Vec::new();
        for trial in 0..TRIALS {
            let trial_seed = derive_seed(point_seed, trial);
            let library = serde_json::to_string(&prepared.trial(trial_seed).unwrap()).unwrap();
            assert_eq!(
                result_of(&spec.run_task_line(trial).unwrap()),
                library,
                "{topology} {traffic} trial {trial}"
            );
            // `fatnet schedule --seed s` is the trial with seed s.
            let seed = trial_seed.to_string();
            let args = [
                &[
                    "schedule",
                    topology,
                    "--traffic",
                    traffic,
                    "--seed",
                    &seed,
                    "--json",
                ][..],
                flags,
            ]
            .concat();
            let command = json(&args);
            let library: Value = serde_json::from_str(&library).unwrap();
            assert_eq!(
                fields_of(&command, &library),
                library,
                "{topology} {traffic}"
            );
            assert_eq!(library["verified"], true);
            loads.push(library["load_factor"].clone());
        }
        // Each trial draws its own instance.
        assert!(loads.windows(2).any(|w| w[0] != w[1]), "{loads:?}");
    }
}

#[test]
fn a_schedule_sweep_refuses_what_the_command_refuses_with_the_same_words() {
    let sweep = "scheduler = \"leiserson\"\ntrials = 1\nseed = 1\n[params]\ntopology = \"fattree:n=16,profile=area\"\ntraffic = \"permutation\"\nfictitious = \"depth\"\n";
    let e = SweepSpec::parse(sweep).unwrap_err().to_string();
    let cli = crate::common::stderr_of_failure([
        "schedule",
        "fattree:n=16,profile=area",
        "--traffic",
        "permutation",
        "--fictitious",
        "depth",
    ]);
    let words = "fictitious applies only with algorithm = corollary2";
    assert!(e.contains(words) && e.contains("line 7"), "{e}");
    assert!(cli.contains(words), "{cli}");
}

#[test]
fn a_route_run_is_the_same_from_the_command_a_sweep_task_and_the_library() {
    const SWEEP_SEED: u64 = 3;
    const TRIALS: u64 = 3;
    let cases: [(&str, &str, &str, &[&str]); 3] = [
        // RANDOM on random permutations, drawn per trial.
        ("fattree:n=64,profile=area", "permutation", "", &[]),
        // GREEDY with fixed priorities, interleaved, on a fixed pattern.
        (
            "fattree:n=32,profile=area,leaf=4",
            "complement",
            "router = \"greedy\"\npolicy = \"fixed\"\ninterleave = true\n",
            &["--router", "greedy", "--policy", "fixed", "--interleave"],
        ),
        // The constant-switch router (wire drops by default), k = 2.
        (
            "fattree:n=32,profile=constant,cap=2",
            "replicated:k=2",
            "router = \"constant-switch\"\nk = 2\n",
            &["--router", "constant-switch", "--k", "2"],
        ),
    ];
    for (topology, traffic, toml_options, flags) in cases {
        let sweep = format!(
            "simulator = \"route\"\ntrials = {TRIALS}\nseed = {SWEEP_SEED}\n[params]\ntopology = \"{topology}\"\ntraffic = \"{traffic}\"\n{toml_options}"
        );
        let spec = SweepSpec::parse(&sweep).unwrap_or_else(|e| panic!("{sweep}\n{e}"));
        let point_seed = derive_seed(SWEEP_SEED, 0);
        let seed = point_seed.to_string();
        let args = [
            &[
                "route",
                topology,
                "--traffic",
                traffic,
                "--seed",
                &seed,
                "--trials",
                "3",
                "--per-trial",
                "--json",
            ][..],
            flags,
        ]
        .concat();
        let command = json(&args);
        let scenario = RouteScenario {
            topology: topology.parse().unwrap(),
            traffic: traffic.parse().unwrap(),
            options: toml::from_str(toml_options).unwrap(),
        };
        let prepared = scenario.prepare(point_seed).unwrap();
        for trial in 0..TRIALS {
            let trial_seed = derive_seed(point_seed, trial);
            let library = serde_json::to_string(&prepared.trial(trial_seed).unwrap()).unwrap();
            assert_eq!(
                result_of(&spec.run_task_line(trial).unwrap()),
                library,
                "{topology} {traffic} trial {trial}"
            );
            let mut record = command["per_trial"][trial as usize].clone();
            assert_eq!(record["seed"], trial_seed);
            let record = record.as_object_mut().unwrap();
            record.remove("trial");
            record.remove("seed");
            let library: Value = serde_json::from_str(&library).unwrap();
            assert_eq!(
                Value::Object(record.clone()),
                library,
                "{topology} {traffic}"
            );
            assert_eq!(library["finished"], true);
        }
    }
}

#[test]
fn a_route_sweep_refuses_what_the_command_refuses_with_the_same_words() {
    let sweep = "simulator = \"route\"\ntrials = 1\nseed = 1\n[params]\ntopology = \"fattree:n=16,profile=area\"\ntraffic = \"permutation\"\nrouter = \"greedy\"\npolicy = \"pessimistic\"\n";
    let e = SweepSpec::parse(sweep).unwrap_err().to_string();
    let cli = crate::common::stderr_of_failure([
        "route",
        "fattree:n=16,profile=area",
        "--traffic",
        "permutation",
        "--router",
        "greedy",
        "--policy",
        "pessimistic",
    ]);
    let words =
        "policy = pessimistic is refused: GREEDY under the pessimistic model never finishes";
    assert!(e.contains(words) && e.contains("line 8"), "{e}");
    assert!(cli.contains(words), "{cli}");
}

#[test]
fn a_dynamic_run_is_the_same_from_the_command_a_sweep_task_and_the_library() {
    use fatnet::scenario::{DynamicOptions, DynamicScenario};
    const SWEEP_SEED: u64 = 9;
    const TRIALS: u64 = 3;
    // (topology, options as TOML, the same as flags)
    let cases: [(&str, &str, &[&str]); 4] = [
        // Greedy routing in continuous time (the default arrivals of a sweep).
        (
            "hypercube:d=4",
            "arrivals = \"poisson\"\nrate = 1.0\nslots = 500\n",
            &["--arrivals", "poisson", "--rate", "1.0", "--slots", "500"],
        ),
        // Slotted time, the adaptive scheme, a given warm-up and batches.
        (
            "hypercube:d=3",
            "arrivals = \"slotted\"\nrouter = \"adaptive\"\nrate = 1.2\np = 0.4\nslots = 400\nwarmup = 30\nbatches = 10\n",
            &[
                "--arrivals",
                "slotted",
                "--router",
                "adaptive",
                "--rate",
                "1.2",
                "--p",
                "0.4",
                "--slots",
                "400",
                "--warmup",
                "30",
                "--batches",
                "10",
            ],
        ),
        // Greedy on the butterfly (straight arcs too).
        (
            "butterfly:d=3",
            "rate = 0.8\np = 0.3\nslots = 300\n",
            &[
                "--arrivals",
                "poisson",
                "--rate",
                "0.8",
                "--p",
                "0.3",
                "--slots",
                "300",
            ],
        ),
        // A broadcast scheme (a sweep could not run broadcasts before).
        (
            "hypercube:d=4",
            "broadcast = \"direct\"\nrate = 0.05\nslots = 400\n",
            &[
                "--arrivals",
                "poisson",
                "--broadcast",
                "direct",
                "--rate",
                "0.05",
                "--slots",
                "400",
            ],
        ),
    ];
    for (topology, toml_options, flags) in cases {
        let sweep = format!(
            "simulator = \"dynamic\"\ntrials = {TRIALS}\nseed = {SWEEP_SEED}\n[params]\ntopology = \"{topology}\"\n{toml_options}"
        );
        let spec = SweepSpec::parse(&sweep).unwrap_or_else(|e| panic!("{sweep}\n{e}"));
        let point_seed = derive_seed(SWEEP_SEED, 0);
        let seed = point_seed.to_string();
        let args = [
            &[
                "simulate",
                topology,
                "--seed",
                &seed,
                "--trials",
                "3",
                "--per-trial",
                "--json",
            ][..],
            flags,
        ]
        .concat();
        let command = json(&args);
        let options: DynamicOptions = toml::from_str(toml_options).unwrap();
        let scenario = DynamicScenario {
            topology: topology.parse().unwrap(),
            options,
        };
        let prepared = scenario.prepare().unwrap();
        let mut delays = Vec::new();
        for trial in 0..TRIALS {
            let trial_seed = derive_seed(point_seed, trial);
            let library = serde_json::to_string(&prepared.trial(trial_seed).unwrap()).unwrap();
            assert_eq!(
                result_of(&spec.run_task_line(trial).unwrap()),
                library,
                "{topology} {toml_options} trial {trial}"
            );
            let mut record = command["per_trial"][trial as usize].clone();
            assert_eq!(record["seed"], trial_seed);
            let record = record.as_object_mut().unwrap();
            record.remove("trial");
            record.remove("seed");
            let library: Value = serde_json::from_str(&library).unwrap();
            assert_eq!(
                Value::Object(record.clone()),
                library,
                "{topology} {toml_options}"
            );
            assert!(library["measured"].as_u64().unwrap() > 0);
            delays.push(library["delay_mean"].as_f64().unwrap());
        }
        // Each trial is its own run.
        assert!(delays.windows(2).all(|w| w[0] != w[1]), "{delays:?}");
    }
}

#[test]
fn a_dynamic_sweep_refuses_what_the_command_refuses_with_the_same_words() {
    let cases: [(&str, &[&str], &str, &str); 2] = [
        (
            "rate = 1\nrouter = \"adaptive\"\n",
            &[
                "--arrivals",
                "poisson",
                "--rate",
                "1",
                "--router",
                "adaptive",
            ],
            "router = adaptive is refused: the adaptive scheme is defined in slotted time \
             (thesis §5.5): use arrivals = slotted",
            "line 7",
        ),
        (
            "rate = 2.5\n",
            &["--arrivals", "poisson", "--rate", "2.5"],
            "rate = 2.5 is refused: the load factor rho = 1.25 is at least 1",
            "line 6",
        ),
    ];
    for (params, flags, words, line) in cases {
        let sweep = format!(
            "simulator = \"dynamic\"\ntrials = 1\nseed = 1\n[params]\ntopology = \"hypercube:d=4\"\n{params}"
        );
        let e = SweepSpec::parse(&sweep).unwrap_err().to_string();
        let args = [&["simulate", "hypercube:d=4"][..], flags].concat();
        let cli = crate::common::stderr_of_failure(args);
        assert!(e.contains(words) && e.contains(line), "{e}");
        assert!(cli.contains(words), "{cli}");
    }
}
