//! [`TopologySpec`]: the short topology strings of the command line and of experiment configs.
//!
//! Grammar: `KIND:key=value,key=value,...`, keys in any order, each at most once.
//!
//! | spec | network |
//! |---|---|
//! | `fattree:n=N,profile=constant,cap=C` | binary fat-tree, every channel capacity `C` |
//! | `fattree:n=N,profile=doubling[,leaf=C]` | capacities `C·2^h` (full bisection) |
//! | `fattree:n=N,profile=area[,leaf=C][,growth=smooth\|stepped]` | area-universal, ×√2 per level |
//! | `fattree:n=N,profile=volume[,leaf=C][,growth=smooth\|stepped]` | volume-universal, ×∛4 per level |
//! | `fattree:n=N,profile=universal,w=W` | Leiserson's universal fat-tree, root capacity `W` |
//! | `fattree:n=N,profile=standard` | Greenberg–Leiserson's standard fat-tree |
//! | `fattree:n=N,profile=custom,caps=C0/C1/...` | explicit capacities, leaf level first |
//! | `bft:n=N` | Greenberg–Oh's butterfly fat-tree on `N = 4^h` processors |
//! | `karyntree:k=K,levels=L` | Petrini–Vanneschi's `K`-ary `L`-tree on `K^L` processors |
//! | `ftree:n=N,m=M,r=R` | Yuan's folded Clos `ftree(N+M, R)`: `R` bottom switches with `N` processors, `M` top switches |
//! | `clos:n=N,m=M,r=R` | unfolded three-stage `Clos(N, M, R)` |
//! | `hypercube:d=D` | Stamoulis' `D`-dimensional hypercube |
//! | `butterfly:d=D` | Stamoulis' `D`-dimensional butterfly |
//!
//! Other kinds are documented on their variants.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::{AnyTopology, AreaGrowth, CapacityProfile, FatTree, TopologyError, VolumeGrowth};
use crate::{Butterfly, Clos, FoldedClos, Hypercube};
use crate::{ButterflyFatTree, KAryNTree};

/// A parsed topology description; [`TopologySpec::build`] constructs the network.
///
/// `Display` writes the canonical spelling, which parses back to the same value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[non_exhaustive]
pub enum TopologySpec {
    /// `fattree:n=N,profile=P,...`: Leiserson's binary fat-tree.
    FatTree {
        /// Number of processors.
        n: u64,
        /// Capacity profile.
        profile: CapacityProfile,
    },
    /// `bft:n=N`: Greenberg and Oh's butterfly fat-tree ([`ButterflyFatTree`]).
    Bft {
        /// Number of processors, a power of four.
        n: u64,
    },
    /// `karyntree:k=K,levels=L`: Petrini and Vanneschi's k-ary n-tree ([`KAryNTree`]).
    KAryNTree {
        /// Arity: down and up ports per switch.
        k: u64,
        /// Number of switch levels `n`.
        levels: u64,
    },
    /// `ftree:n=N,m=M,r=R`: Yuan's two-level folded Clos `ftree(n+m, r)` ([`FoldedClos`]).
    FoldedClos {
        /// Processors per bottom switch.
        n: u64,
        /// Top switches (up links per bottom switch).
        m: u64,
        /// Bottom switches.
        r: u64,
    },
    /// `clos:n=N,m=M,r=R`: the unfolded three-stage `Clos(n, m, r)` ([`Clos`]).
    Clos {
        /// Terminals per input (output) switch.
        n: u64,
        /// Middle switches.
        m: u64,
        /// Input (output) switches.
        r: u64,
    },
    /// `hypercube:d=D`: the `d`-dimensional hypercube ([`Hypercube`]).
    Hypercube {
        /// Dimension.
        d: u64,
    },
    /// `butterfly:d=D`: the `d`-dimensional butterfly ([`Butterfly`]).
    Butterfly {
        /// Dimension.
        d: u64,
    },
}

impl TopologySpec {
    /// Builds the topology.
    ///
    /// # Errors
    ///
    /// The constructor's error when the parameters are impossible.
    pub fn build(&self) -> Result<AnyTopology, TopologyError> {
        Ok(match self {
            TopologySpec::FatTree { n, profile } => FatTree::new(*n, profile.clone())?.into(),
            TopologySpec::Bft { n } => ButterflyFatTree::new(*n)?.into(),
            TopologySpec::KAryNTree { k, levels } => KAryNTree::new(*k, *levels)?.into(),
            TopologySpec::FoldedClos { n, m, r } => FoldedClos::new(*n, *m, *r)?.into(),
            TopologySpec::Clos { n, m, r } => Clos::new(*n, *m, *r)?.into(),
            TopologySpec::Hypercube { d } => Hypercube::new(*d)?.into(),
            TopologySpec::Butterfly { d } => Butterfly::new(*d)?.into(),
        })
    }
}

impl FromStr for TopologySpec {
    type Err = TopologyError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let (kind, rest) = s.split_once(':').unwrap_or((s, ""));
        match kind {
            "fattree" => parse_fattree(Params::parse("fattree", rest)?),
            "bft" => {
                let mut p = Params::parse("bft", rest)?;
                let n = p.required_u64("n")?;
                p.finish()?;
                Ok(TopologySpec::Bft { n })
            }
            "karyntree" => {
                let mut p = Params::parse("karyntree", rest)?;
                let k = p.required_u64("k")?;
                let levels = p.required_u64("levels")?;
                p.finish()?;
                Ok(TopologySpec::KAryNTree { k, levels })
            }
            "ftree" => {
                let (n, m, r) = parse_nmr(Params::parse("ftree", rest)?)?;
                Ok(TopologySpec::FoldedClos { n, m, r })
            }
            "clos" => {
                let (n, m, r) = parse_nmr(Params::parse("clos", rest)?)?;
                Ok(TopologySpec::Clos { n, m, r })
            }
            "hypercube" => Ok(TopologySpec::Hypercube {
                d: parse_d(Params::parse("hypercube", rest)?)?,
            }),
            "butterfly" => Ok(TopologySpec::Butterfly {
                d: parse_d(Params::parse("butterfly", rest)?)?,
            }),
            other => Err(TopologyError::UnknownTopology {
                kind: other.to_string(),
            }),
        }
    }
}

impl fmt::Display for TopologySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TopologySpec::FoldedClos { n, m, r } => write!(f, "ftree:n={n},m={m},r={r}"),
            TopologySpec::Clos { n, m, r } => write!(f, "clos:n={n},m={m},r={r}"),
            TopologySpec::Hypercube { d } => write!(f, "hypercube:d={d}"),
            TopologySpec::Butterfly { d } => write!(f, "butterfly:d={d}"),
            TopologySpec::Bft { n } => write!(f, "bft:n={n}"),
            TopologySpec::KAryNTree { k, levels } => write!(f, "karyntree:k={k},levels={levels}"),
            TopologySpec::FatTree { n, profile } => {
                write!(f, "fattree:n={n},profile=")?;
                match profile {
                    CapacityProfile::Constant(c) => write!(f, "constant,cap={c}"),
                    CapacityProfile::Doubling { leaf } => write!(f, "doubling,leaf={leaf}"),
                    CapacityProfile::Area { leaf, growth } => write!(
                        f,
                        "area,leaf={leaf},growth={}",
                        match growth {
                            AreaGrowth::Smooth => "smooth",
                            AreaGrowth::Stepped => "stepped",
                        }
                    ),
                    CapacityProfile::Volume { leaf, growth } => write!(
                        f,
                        "volume,leaf={leaf},growth={}",
                        match growth {
                            VolumeGrowth::Smooth => "smooth",
                            VolumeGrowth::Stepped => "stepped",
                        }
                    ),
                    CapacityProfile::Universal { root } => write!(f, "universal,w={root}"),
                    CapacityProfile::Standard => write!(f, "standard"),
                    CapacityProfile::Custom(caps) => {
                        write!(f, "custom,caps=")?;
                        for (i, c) in caps.iter().enumerate() {
                            if i > 0 {
                                write!(f, "/")?;
                            }
                            write!(f, "{c}")?;
                        }
                        Ok(())
                    }
                }
            }
        }
    }
}

fn parse_fattree(mut p: Params<'_>) -> Result<TopologySpec, TopologyError> {
    let n = p.required_u64("n")?;
    let profile_name = p.take("profile").ok_or(TopologyError::MissingKey {
        topology: "fattree",
        key: "profile",
    })?;
    let profile = match profile_name {
        "constant" => CapacityProfile::Constant(p.required_u64("cap")?),
        "doubling" => CapacityProfile::Doubling {
            leaf: p.optional_u64("leaf")?.unwrap_or(1),
        },
        "area" => CapacityProfile::Area {
            leaf: p.optional_u64("leaf")?.unwrap_or(1),
            growth: match p.take("growth") {
                None | Some("smooth") => AreaGrowth::Smooth,
                Some("stepped") => AreaGrowth::Stepped,
                Some(v) => return Err(bad("growth", v, "smooth or stepped")),
            },
        },
        "volume" => CapacityProfile::Volume {
            leaf: p.optional_u64("leaf")?.unwrap_or(1),
            growth: match p.take("growth") {
                None | Some("smooth") => VolumeGrowth::Smooth,
                Some("stepped") => VolumeGrowth::Stepped,
                Some(v) => return Err(bad("growth", v, "smooth or stepped")),
            },
        },
        "universal" => CapacityProfile::Universal {
            root: p.required_u64("w")?,
        },
        "standard" => CapacityProfile::Standard,
        "custom" => {
            let caps = p.take("caps").ok_or(TopologyError::MissingKey {
                topology: "fattree",
                key: "caps",
            })?;
            CapacityProfile::Custom(
                caps.split('/')
                    .map(|c| {
                        c.trim().parse::<u64>().map_err(|_| {
                            bad(
                                "caps",
                                caps,
                                "capacities separated by `/`, leaf level first",
                            )
                        })
                    })
                    .collect::<Result<_, _>>()?,
            )
        }
        other => {
            return Err(TopologyError::UnknownProfile {
                profile: other.to_string(),
            });
        }
    };
    p.finish()?;
    Ok(TopologySpec::FatTree { n, profile })
}

/// The `n=N,m=M,r=R` keys of `ftree` and `clos`.
fn parse_nmr(mut p: Params<'_>) -> Result<(u64, u64, u64), TopologyError> {
    let n = p.required_u64("n")?;
    let m = p.required_u64("m")?;
    let r = p.required_u64("r")?;
    p.finish()?;
    Ok((n, m, r))
}

/// The `d=D` key of `hypercube` and `butterfly`.
fn parse_d(mut p: Params<'_>) -> Result<u64, TopologyError> {
    let d = p.required_u64("d")?;
    p.finish()?;
    Ok(d)
}

pub(crate) fn bad(key: &str, value: &str, expected: &'static str) -> TopologyError {
    TopologyError::BadValue {
        key: key.to_string(),
        value: value.to_string(),
        expected,
    }
}

/// The `key=value` list of a spec, consumed key by key; keys left over are errors.
#[derive(Debug)]
pub(crate) struct Params<'a> {
    topology: &'static str,
    pairs: Vec<(&'a str, &'a str)>,
    used: Vec<bool>,
}

impl<'a> Params<'a> {
    /// Splits `k=v,k=v`.
    pub(crate) fn parse(topology: &'static str, rest: &'a str) -> Result<Self, TopologyError> {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| bad(item, "", "a `key=value` pair"))?;
            let (k, v) = (k.trim(), v.trim());
            if pairs.iter().any(|(pk, _)| *pk == k) {
                return Err(TopologyError::DuplicateKey { key: k.to_string() });
            }
            pairs.push((k, v));
        }
        let used = vec![false; pairs.len()];
        Ok(Self {
            topology,
            pairs,
            used,
        })
    }

    /// The value of `key`, marking it used.
    pub(crate) fn take(&mut self, key: &str) -> Option<&'a str> {
        let i = self.pairs.iter().position(|(k, _)| *k == key)?;
        self.used[i] = true;
        Some(self.pairs[i].1)
    }

    /// An optional unsigned integer.
    pub(crate) fn optional_u64(&mut self, key: &str) -> Result<Option<u64>, TopologyError> {
        self.take(key)
            .map(|v| {
                v.parse::<u64>()
                    .map_err(|_| bad(key, v, "a non-negative integer"))
            })
            .transpose()
    }

    /// A required unsigned integer.
    pub(crate) fn required_u64(&mut self, key: &'static str) -> Result<u64, TopologyError> {
        self.optional_u64(key)?.ok_or(TopologyError::MissingKey {
            topology: self.topology,
            key,
        })
    }

    /// Fails on the first key nobody took.
    pub(crate) fn finish(self) -> Result<(), TopologyError> {
        match self.used.iter().position(|u| !u) {
            Some(i) => Err(TopologyError::UnknownKey {
                topology: self.topology,
                key: self.pairs[i].0.to_string(),
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Topology;

    #[test]
    fn bft_and_karyntree_specs_parse_build_and_round_trip() {
        for s in [
            "bft:n=4",
            "bft:n=1024",
            "karyntree:k=2,levels=1",
            "karyntree:k=4,levels=3",
        ] {
            let spec: TopologySpec = s.parse().unwrap();
            assert_eq!(spec.to_string(), s);
            assert_eq!(spec.to_string().parse::<TopologySpec>().unwrap(), spec);
            let t = spec.build().unwrap();
            assert_eq!(t.name(), s);
        }
        let spec: TopologySpec = " karyntree: levels=2 , k=3 ".parse().unwrap();
        assert_eq!(spec, TopologySpec::KAryNTree { k: 3, levels: 2 });
        assert_eq!(spec.to_string(), "karyntree:k=3,levels=2");
        let t = spec.build().unwrap();
        assert!(matches!(t, AnyTopology::KAryNTree(_)));
        assert_eq!((t.num_processors(), t.num_switches()), (9, 6));
        let t = "bft:n=64".parse::<TopologySpec>().unwrap().build().unwrap();
        assert!(matches!(t, AnyTopology::ButterflyFatTree(_)));
        assert_eq!((t.num_processors(), t.num_switches()), (64, 28));
    }

    #[test]
    fn bad_bft_and_karyntree_specs_name_the_problem() {
        let err = |s: &str| s.parse::<TopologySpec>().unwrap_err();
        let build_err = |s: &str| s.parse::<TopologySpec>().unwrap().build().unwrap_err();
        assert!(matches!(
            err("bft"),
            TopologyError::MissingKey {
                topology: "bft",
                key: "n"
            }
        ));
        assert!(matches!(
            err("bft:n=16,k=2"),
            TopologyError::UnknownKey {
                topology: "bft",
                ..
            }
        ));
        assert!(matches!(
            err("bft:n=sixteen"),
            TopologyError::BadValue { .. }
        ));
        assert!(matches!(
            err("karyntree:k=4"),
            TopologyError::MissingKey {
                topology: "karyntree",
                key: "levels"
            }
        ));
        assert!(matches!(
            err("karyntree:k=4,levels=2,n=16"),
            TopologyError::UnknownKey {
                topology: "karyntree",
                ..
            }
        ));
        assert!(matches!(
            err("karyntree:k=-4,levels=2"),
            TopologyError::BadValue { .. }
        ));
        assert!(matches!(
            err("karyntree:k=4,k=4,levels=2"),
            TopologyError::DuplicateKey { .. }
        ));
        assert_eq!(
            build_err("bft:n=32"),
            TopologyError::NotPowerOfFour {
                param: "n",
                value: 32
            }
        );
        assert!(matches!(
            build_err("bft:n=1"),
            TopologyError::OutOfRange { param: "n", .. }
        ));
        assert!(matches!(
            build_err("karyntree:k=1,levels=3"),
            TopologyError::OutOfRange { param: "k", .. }
        ));
        assert!(matches!(
            build_err("karyntree:k=2,levels=0"),
            TopologyError::OutOfRange {
                param: "levels",
                ..
            }
        ));
        assert!(matches!(
            build_err("karyntree:k=1000,levels=4"),
            TopologyError::TooLarge {
                what: "channels",
                ..
            }
        ));
    }

    #[test]
    fn fattree_specs_parse_build_and_round_trip() {
        for s in [
            "fattree:n=1024,profile=universal,w=128",
            "fattree:n=16,profile=constant,cap=2",
            "fattree:n=16,profile=doubling,leaf=1",
            "fattree:n=16,profile=area,leaf=1,growth=stepped",
            "fattree:n=16,profile=volume,leaf=2,growth=smooth",
            "fattree:n=16,profile=standard",
            "fattree:n=4,profile=custom,caps=1/2/3",
        ] {
            let spec: TopologySpec = s.parse().unwrap();
            assert_eq!(spec.to_string(), s);
            assert_eq!(spec.to_string().parse::<TopologySpec>().unwrap(), spec);
            let t = spec.build().unwrap();
            assert_eq!(t.name(), s);
        }
        let short: TopologySpec = "fattree:profile=area,n=16".parse().unwrap();
        assert_eq!(
            short.to_string(),
            "fattree:n=16,profile=area,leaf=1,growth=smooth"
        );
    }

    #[test]
    fn clos_hypercube_butterfly_specs_parse_build_and_round_trip() {
        for s in [
            "ftree:n=2,m=3,r=4",
            "clos:n=2,m=3,r=4",
            "hypercube:d=5",
            "butterfly:d=3",
        ] {
            let spec: TopologySpec = s.parse().unwrap();
            assert_eq!(spec.to_string(), s);
            assert_eq!(spec.to_string().parse::<TopologySpec>().unwrap(), spec);
            let t = spec.build().unwrap();
            assert_eq!(t.name(), s);
        }
        let spec: TopologySpec = " ftree: r=20 , m=16, n=4 ".parse().unwrap();
        assert_eq!(spec, TopologySpec::FoldedClos { n: 4, m: 16, r: 20 });
        assert_eq!(spec.to_string(), "ftree:n=4,m=16,r=20");
        let t = spec.build().unwrap();
        assert!(matches!(t, AnyTopology::FoldedClos(_)));
        assert_eq!((t.num_switches(), t.num_processors()), (36, 80));
        assert!(matches!(
            "clos:n=1,m=2,r=3"
                .parse::<TopologySpec>()
                .unwrap()
                .build()
                .unwrap(),
            AnyTopology::Clos(_)
        ));
        assert!(matches!(
            "hypercube:d=3"
                .parse::<TopologySpec>()
                .unwrap()
                .build()
                .unwrap(),
            AnyTopology::Hypercube(_)
        ));
        assert!(matches!(
            "butterfly:d=3"
                .parse::<TopologySpec>()
                .unwrap()
                .build()
                .unwrap(),
            AnyTopology::Butterfly(_)
        ));
    }

    #[test]
    fn bad_clos_hypercube_butterfly_specs_name_the_problem() {
        let err = |s: &str| s.parse::<TopologySpec>().unwrap_err();
        let build_err = |s: &str| s.parse::<TopologySpec>().unwrap().build().unwrap_err();
        assert!(matches!(
            err("ftree:n=2,m=3"),
            TopologyError::MissingKey {
                topology: "ftree",
                key: "r"
            }
        ));
        assert!(matches!(
            err("clos:n=2,m=3,r=4,d=1"),
            TopologyError::UnknownKey {
                topology: "clos",
                ..
            }
        ));
        assert!(matches!(
            err("hypercube"),
            TopologyError::MissingKey {
                topology: "hypercube",
                key: "d"
            }
        ));
        assert!(matches!(
            err("butterfly:d=-1"),
            TopologyError::BadValue { .. }
        ));
        assert!(matches!(
            err("hypercube:d=2,d=3"),
            TopologyError::DuplicateKey { .. }
        ));
        assert!(matches!(
            build_err("ftree:n=0,m=1,r=1"),
            TopologyError::OutOfRange { param: "n", .. }
        ));
        assert!(matches!(
            build_err("clos:n=1,m=1,r=99999999999"),
            TopologyError::TooLarge { .. }
        ));
        assert!(matches!(
            build_err("hypercube:d=25"),
            TopologyError::OutOfRange { param: "d", .. }
        ));
        assert!(matches!(
            build_err("butterfly:d=0"),
            TopologyError::OutOfRange { param: "d", .. }
        ));
    }

    #[test]
    fn bad_specs_name_the_problem() {
        let err = |s: &str| s.parse::<TopologySpec>().unwrap_err();
        assert!(matches!(
            err("torus:n=4"),
            TopologyError::UnknownTopology { .. }
        ));
        assert!(matches!(
            err("fattree:n=16"),
            TopologyError::MissingKey { key: "profile", .. }
        ));
        assert!(matches!(
            err("fattree:n=16,profile=doubling,w=3"),
            TopologyError::UnknownKey { .. }
        ));
        assert!(matches!(
            err("fattree:n=x,profile=standard"),
            TopologyError::BadValue { .. }
        ));
        assert!(matches!(
            err("fattree:n=4,n=4,profile=standard"),
            TopologyError::DuplicateKey { .. }
        ));
        assert!(matches!(
            err("fattree:n=4,profile=fancy"),
            TopologyError::UnknownProfile { .. }
        ));
    }
}
