//! Every fabric reader on the same text: ib_flit_sim `.ned` and `.fdbs`, ibdm `.topo`,
//! ibnetdiscover, OpenSM's subnet list and forwarding tables; a fabric that parses is traced
//! as a topology when it is small.
#![no_main]

use fatnet_fabric::{FabricTopology, flitsim, ibdm, ibnetdiscover, opensm};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    let mut fabrics = Vec::new();
    fabrics.extend(flitsim::parse_ned(text, "f.ned").ok());
    fabrics.extend(ibdm::parse(text, "f.topo", &ibdm::IbdmOptions::default()).ok());
    fabrics.extend(ibnetdiscover::parse(text, "f.txt").ok());
    fabrics.extend(opensm::parse_subnet_lst(text, "opensm-subnet.lst").ok());
    let _ = flitsim::parse_fdbs(text, "f.fdbs");
    let _ = opensm::parse_fdbs(text, "opensm-lfts.dump");
    for (fabric, _) in fabrics {
        if fabric.node_count() <= 64 {
            let _ = FabricTopology::new(&fabric);
        }
    }
});
