//! Property tests: the readers never panic on garbage or truncated input, and report errors
//! inside the input's line range.

use fatnet_fabric::{FabricError, flitsim, ibdm, ibnetdiscover, opensm};
use proptest::prelude::*;

const SAMPLE_IBND: &str =
    "Switch\t4 \"S-8f10500200b50\"\t\t# \"Voltaire # one\" enhanced port 0 lid 9 lmc 0
[1]\t\"H-3048c749cd0000\"[1](3048c749cd0001) \t\t# \"host a\" lid 72 4xDDR
[3]\t\"S-2c90200417670\"[2]\t\t# \"Infiniscale\" lid 18 4xQDR

Ca\t1 \"H-3048c749cd0000\"\t\t# \"host a\"
[1](3048c749cd0001) \t\"S-8f10500200b50\"[1]\t\t# lid 72 lmc 0 \"Voltaire # one\" lid 9 4xDDR
";
const SAMPLE_NED: &str = "network t\n{\n\tsubmodules:\n\t\tH_1_U1: HCA { parameters: srcLid = 1; }\n\t\tS_U1: Switch {\n\t\tparameters: numSwitchPorts = 4;\n\t\t\tgates: port[4];\n\t\t}\n\tconnections:\n\t\tH_1_U1.port <--> IB4XQDRWire <--> S_U1.port[0];\n}\n";

fn check_all(text: &str) {
    let lines = text.lines().count().max(1);
    let in_range = |e: FabricError| {
        if let Some(l) = e.line() {
            assert!(l >= 1 && l <= lines, "{e}");
        }
    };
    if let Err(e) = ibnetdiscover::parse(text, "x") {
        in_range(e);
    }
    if let Err(e) = ibdm::parse(text, "x", &ibdm::IbdmOptions::default()) {
        in_range(e);
    }
    if let Err(e) = flitsim::parse_ned(text, "x") {
        in_range(e);
    }
    if let Err(e) = flitsim::parse_fdbs(text, "x") {
        in_range(e);
    }
    if let Err(e) = flitsim::parse_fdbs_ini(text, "x") {
        in_range(e);
    }
    if let Err(e) = opensm::parse_subnet_lst(text, "x") {
        in_range(e);
    }
    if let Err(e) = opensm::parse_lfts(text, "x") {
        in_range(e);
    }
    if let Err(e) = opensm::parse_fdbs(text, "x") {
        in_range(e);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        check_all(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn truncations_and_corruptions_never_panic(
        cut in 0usize..400,
        pos in 0usize..400,
        byte in prop::sample::select(b"[]()\"#:;.-<>0x9 \n\tPS".to_vec()),
    ) {
        for sample in [SAMPLE_IBND, SAMPLE_NED] {
            let cut = cut.min(sample.len());
            let mut b = sample.as_bytes()[..cut].to_vec();
            check_all(&String::from_utf8_lossy(&b));
            if !b.is_empty() {
                let p = pos % b.len();
                b[p] = byte;
                check_all(&String::from_utf8_lossy(&b));
            }
        }
    }
}

#[test]
fn samples_parse() {
    let (f, r) = ibnetdiscover::parse(SAMPLE_IBND, "s").unwrap();
    assert_eq!((f.links().len(), r.unrecognised_count()), (2, 0));
    let (f, r) = flitsim::parse_ned(SAMPLE_NED, "s").unwrap();
    assert_eq!((f.links().len(), r.unrecognised_count()), (1, 0));
}
