//! Writes a generated fat-tree in ibsim's net format: the same bytes as `fatnet fabric export
//! ftree:n=N,m=M,r=R` / `karyntree:k=K,levels=L` (tested there), which `.ci/run` uses.
//!
//! ```text
//! cargo run -p fatnet-fabric --example export_net -- ftree N M R  > ftree.net
//! cargo run -p fatnet-fabric --example export_net -- karyntree K LEVELS > tree.net
//! ```

use std::process::ExitCode;

use fatnet_fabric::export::{folded_clos_net, kary_ntree_net};
use fatnet_topology::{FoldedClos, KAryNTree};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let nums: Vec<u64> = args.iter().skip(1).filter_map(|a| a.parse().ok()).collect();
    let net = match (args.first().map(String::as_str), nums.as_slice()) {
        (Some("ftree"), &[n, m, r]) if args.len() == 4 => {
            FoldedClos::new(n, m, r).map(|t| folded_clos_net(&t))
        }
        (Some("karyntree"), &[k, l]) if args.len() == 3 => {
            KAryNTree::new(k, l).map(|t| kary_ntree_net(&t))
        }
        _ => {
            eprintln!("usage: export_net ftree N M R | export_net karyntree K LEVELS");
            return ExitCode::from(2);
        }
    };
    match net {
        Ok(s) => {
            print!("{s}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("export_net: {e}");
            ExitCode::FAILURE
        }
    }
}
