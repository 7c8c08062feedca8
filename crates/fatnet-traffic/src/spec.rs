//! [`TrafficSpec`]: the short traffic strings of the command line and of experiment configs.
//!
//! Grammar: `NAME[:key=value,...]`, keys in any order, each at most once. `file:PATH` is the
//! exception: everything after the first `:` is the path, verbatim.
//!
//! | spec | generator |
//! |---|---|
//! | `permutation` | [`random_permutation`] |
//! | `complement` | [`complement`] |
//! | `bitrev` | [`bit_reversal`] |
//! | `transpose` | [`transpose`] |
//! | `many-to-one` | [`many_to_one`] |
//! | `uniform[:self=true\|false]` | [`uniform`], default `self=false` |
//! | `replicated:k=K` | [`replicated_permutations`] |
//! | `mesh[:torus=true\|false]` | [`mesh_neighbours`], default `torus=false` |
//! | `valiant[:base=NAME]` | [`valiant`] of a base pattern (default `permutation`), both phases combined |
//! | `bitflip:p=P` | [`bit_flip`], `0 <= P <= 1` |
//! | `file:PATH` | [`read_file`](crate::io::read_file), text or JSON |
//! | `broadcast[:src=K]` | one multicast from every processor (or from `K` only) to all others: not a message set ([`TrafficSpec::broadcast_sources`]) |
//!
//! A valiant base is one of `permutation`, `complement`, `bitrev`, `transpose`,
//! `many-to-one`, `uniform` and `mesh`, with their default parameters.
//!
//! [`random_permutation`]: crate::patterns::random_permutation
//! [`complement`]: crate::patterns::complement
//! [`bit_reversal`]: crate::patterns::bit_reversal
//! [`transpose`]: crate::patterns::transpose
//! [`many_to_one`]: crate::patterns::many_to_one
//! [`uniform`]: crate::patterns::uniform
//! [`replicated_permutations`]: crate::patterns::replicated_permutations
//! [`mesh_neighbours`]: crate::patterns::mesh_neighbours
//! [`valiant`]: crate::patterns::valiant
//! [`bit_flip`]: crate::patterns::bit_flip

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::{Deserialize, Serialize};

use crate::{MessageSet, TrafficError, io, patterns};

/// A parsed traffic description; [`TrafficSpec::generate`] builds the message set.
///
/// `Display` writes the canonical spelling (every parameter explicit), which parses back to
/// the same value.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "pattern")]
#[non_exhaustive]
pub enum TrafficSpec {
    /// `permutation`: a uniformly random permutation.
    Permutation,
    /// `complement`: `i -> n-1-i`.
    Complement,
    /// `bitrev`: bit reversal.
    BitReversal,
    /// `transpose`: swap the two halves of the address bits.
    Transpose,
    /// `many-to-one`: Greenberg–Oh's hot spot.
    ManyToOne,
    /// `uniform:self=B`: one message per processor to a uniform destination.
    Uniform {
        /// Whether a processor may pick itself.
        allow_self: bool,
    },
    /// `replicated:k=K`: `k` independent random permutations.
    Replicated {
        /// Number of permutations.
        k: u32,
    },
    /// `mesh:torus=B`: nearest-neighbour traffic of a Morton-ordered mesh or torus.
    Mesh {
        /// Whether rows and columns wrap around.
        torus: bool,
    },
    /// `valiant:base=NAME`: both phases of Valiant's random intermediates for a base pattern.
    Valiant {
        /// The base pattern.
        base: ValiantBase,
    },
    /// `bitflip:p=P`: Stamoulis' (5.1), each address bit flipped with probability `p`.
    BitFlip {
        /// Flip probability, `0 <= p <= 1`.
        p: f64,
    },
    /// `broadcast` or `broadcast:src=K`: one packet from every processor (or from `K`
    /// only) to all the others, copied along a tree. Not a message set:
    /// [`generate`](Self::generate) refuses it, [`broadcast_sources`](Self::broadcast_sources)
    /// gives its sources.
    Broadcast {
        /// The one source, or `None` for every processor.
        src: Option<u32>,
    },
    /// `file:PATH`: a message set read from a text or JSON file.
    File {
        /// The file.
        path: PathBuf,
    },
}

/// The base patterns `valiant:base=NAME` accepts (each with its default parameters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum ValiantBase {
    /// `permutation`.
    Permutation,
    /// `complement`.
    Complement,
    /// `bitrev`.
    BitReversal,
    /// `transpose`.
    Transpose,
    /// `many-to-one`.
    ManyToOne,
    /// `uniform` (without self-messages).
    Uniform,
    /// `mesh` (not a torus).
    Mesh,
}

impl ValiantBase {
    /// Every base, in the order of the grammar.
    pub const ALL: [ValiantBase; 7] = [
        ValiantBase::Permutation,
        ValiantBase::Complement,
        ValiantBase::BitReversal,
        ValiantBase::Transpose,
        ValiantBase::ManyToOne,
        ValiantBase::Uniform,
        ValiantBase::Mesh,
    ];

    /// The name in the spec grammar.
    pub fn name(self) -> &'static str {
        match self {
            ValiantBase::Permutation => "permutation",
            ValiantBase::Complement => "complement",
            ValiantBase::BitReversal => "bitrev",
            ValiantBase::Transpose => "transpose",
            ValiantBase::ManyToOne => "many-to-one",
            ValiantBase::Uniform => "uniform",
            ValiantBase::Mesh => "mesh",
        }
    }

    /// The full spec this base stands for.
    pub fn spec(self) -> TrafficSpec {
        match self {
            ValiantBase::Permutation => TrafficSpec::Permutation,
            ValiantBase::Complement => TrafficSpec::Complement,
            ValiantBase::BitReversal => TrafficSpec::BitReversal,
            ValiantBase::Transpose => TrafficSpec::Transpose,
            ValiantBase::ManyToOne => TrafficSpec::ManyToOne,
            ValiantBase::Uniform => TrafficSpec::Uniform { allow_self: false },
            ValiantBase::Mesh => TrafficSpec::Mesh { torus: false },
        }
    }
}

impl fmt::Display for ValiantBase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TrafficSpec {
    /// The pattern's name in the spec grammar (`permutation`, `bitrev`, `file`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            TrafficSpec::Permutation => "permutation",
            TrafficSpec::Complement => "complement",
            TrafficSpec::BitReversal => "bitrev",
            TrafficSpec::Transpose => "transpose",
            TrafficSpec::ManyToOne => "many-to-one",
            TrafficSpec::Uniform { .. } => "uniform",
            TrafficSpec::Replicated { .. } => "replicated",
            TrafficSpec::Mesh { .. } => "mesh",
            TrafficSpec::Valiant { .. } => "valiant",
            TrafficSpec::BitFlip { .. } => "bitflip",
            TrafficSpec::Broadcast { .. } => "broadcast",
            TrafficSpec::File { .. } => "file",
        }
    }

    /// The spec as a report shows it beside its result: with the seed when the seed matters
    /// (`permutation (seed 7)`), alone when it does not (`transpose`, `file:t.txt`).
    ///
    /// ```
    /// use fatnet_traffic::TrafficSpec;
    /// let shown = |s: &str| s.parse::<TrafficSpec>().unwrap().shown_with_seed(7);
    /// assert_eq!(shown("permutation"), "permutation (seed 7)");
    /// assert_eq!(shown("file:t.txt"), "file:t.txt");
    /// ```
    pub fn shown_with_seed(&self, seed: u64) -> String {
        if self.is_randomized() {
            format!("{self} (seed {seed})")
        } else {
            self.to_string()
        }
    }

    /// Whether [`generate`](Self::generate)'s output depends on the seed.
    pub fn is_randomized(&self) -> bool {
        match self {
            TrafficSpec::Permutation
            | TrafficSpec::Uniform { .. }
            | TrafficSpec::Replicated { .. }
            | TrafficSpec::Valiant { .. } => true,
            TrafficSpec::BitFlip { p } => *p > 0.0 && *p < 1.0,
            TrafficSpec::Complement
            | TrafficSpec::BitReversal
            | TrafficSpec::Transpose
            | TrafficSpec::ManyToOne
            | TrafficSpec::Mesh { .. }
            | TrafficSpec::Broadcast { .. }
            | TrafficSpec::File { .. } => false,
        }
    }

    /// The sources of a broadcast on `n` processors (every processor, or the one named),
    /// or `None` for a pattern that is a message set.
    ///
    /// # Errors
    ///
    /// [`TrafficError::TooFewProcessors`] below 2 processors;
    /// [`TrafficError::SourceOutOfRange`] for a source `>= n`.
    pub fn broadcast_sources(&self, n: u32) -> Result<Option<Vec<u32>>, TrafficError> {
        let TrafficSpec::Broadcast { src } = self else {
            return Ok(None);
        };
        if n < 2 {
            return Err(TrafficError::TooFewProcessors {
                what: "a broadcast",
                min: 2,
                processors: n,
            });
        }
        match *src {
            None => Ok(Some((0..n).collect())),
            Some(src) if src < n => Ok(Some(vec![src])),
            Some(src) => Err(TrafficError::SourceOutOfRange { src, processors: n }),
        }
    }

    /// Builds the message set on `n` processors, drawing randomness from
    /// `Pcg64::seed_from_u64(seed)`; `file:PATH` reads the file and ignores the seed.
    ///
    /// For `valiant`, the base set is drawn first and the intermediates next, from the same
    /// generator; the result is [`ValiantPhases::combined`](crate::patterns::ValiantPhases::combined).
    ///
    /// # Errors
    ///
    /// The generator's error when `n` (or a parameter) does not suit the pattern; for
    /// `file:PATH`, [`TrafficError::File`] wrapping the reading error, including
    /// [`TrafficError::ProcessorsMismatch`] when a JSON file is for another `n`.
    pub fn generate(&self, n: u32, seed: u64) -> Result<MessageSet, TrafficError> {
        let mut rng = Pcg64::seed_from_u64(seed);
        self.generate_with(n, &mut rng)
    }

    /// As [`generate`](Self::generate), drawing from `rng`.
    ///
    /// # Errors
    ///
    /// As [`generate`](Self::generate).
    pub fn generate_with<R: Rng + ?Sized>(
        &self,
        n: u32,
        rng: &mut R,
    ) -> Result<MessageSet, TrafficError> {
        match self {
            TrafficSpec::Permutation => patterns::random_permutation(n, rng),
            TrafficSpec::Complement => patterns::complement(n),
            TrafficSpec::BitReversal => patterns::bit_reversal(n),
            TrafficSpec::Transpose => patterns::transpose(n),
            TrafficSpec::ManyToOne => patterns::many_to_one(n),
            TrafficSpec::Uniform { allow_self } => patterns::uniform(n, *allow_self, rng),
            TrafficSpec::Replicated { k } => patterns::replicated_permutations(n, *k, rng),
            TrafficSpec::Mesh { torus } => patterns::mesh_neighbours(n, *torus),
            TrafficSpec::Valiant { base } => {
                let base = base.spec().generate_with(n, rng)?;
                Ok(patterns::valiant(&base, rng)?.combined())
            }
            TrafficSpec::BitFlip { p } => patterns::bit_flip(n, *p, rng),
            TrafficSpec::Broadcast { .. } => Err(TrafficError::NotAMessageSet {
                spec: self.to_string(),
            }),
            TrafficSpec::File { path } => io::read_file(path, n),
        }
    }
}

impl FromStr for TrafficSpec {
    type Err = TrafficError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let (name, rest) = s.split_once(':').unwrap_or((s, ""));
        let name = name.trim();
        if name == "file" {
            if rest.is_empty() {
                return Err(TrafficError::MissingKey {
                    pattern: "file",
                    key: "PATH",
                });
            }
            return Ok(TrafficSpec::File {
                path: PathBuf::from(rest),
            });
        }
        match name {
            "permutation" => with_params("permutation", rest, |_| Ok(TrafficSpec::Permutation)),
            "complement" => with_params("complement", rest, |_| Ok(TrafficSpec::Complement)),
            "bitrev" => with_params("bitrev", rest, |_| Ok(TrafficSpec::BitReversal)),
            "transpose" => with_params("transpose", rest, |_| Ok(TrafficSpec::Transpose)),
            "many-to-one" => with_params("many-to-one", rest, |_| Ok(TrafficSpec::ManyToOne)),
            "uniform" => with_params("uniform", rest, |p| {
                Ok(TrafficSpec::Uniform {
                    allow_self: p.optional_bool("self")?.unwrap_or(false),
                })
            }),
            "replicated" => with_params("replicated", rest, |p| {
                Ok(TrafficSpec::Replicated {
                    k: p.required("k", "a non-negative integer (u32)", |v| {
                        v.parse::<u32>().ok()
                    })?,
                })
            }),
            "mesh" => with_params("mesh", rest, |p| {
                Ok(TrafficSpec::Mesh {
                    torus: p.optional_bool("torus")?.unwrap_or(false),
                })
            }),
            "valiant" => with_params("valiant", rest, |p| {
                Ok(TrafficSpec::Valiant {
                    base: p
                        .optional(
                            "base",
                            "permutation, complement, bitrev, transpose, many-to-one, uniform \
                             or mesh",
                            |v| ValiantBase::ALL.into_iter().find(|b| b.name() == v),
                        )?
                        .unwrap_or(ValiantBase::Permutation),
                })
            }),
            "bitflip" => with_params("bitflip", rest, |p| {
                Ok(TrafficSpec::BitFlip {
                    p: p.required("p", "a probability in [0, 1]", |v| {
                        v.parse::<f64>().ok().filter(|p| (0.0..=1.0).contains(p))
                    })?,
                })
            }),
            "broadcast" => with_params("broadcast", rest, |p| {
                Ok(TrafficSpec::Broadcast {
                    src: p
                        .optional("src", "a processor number (u32)", |v| v.parse::<u32>().ok())?,
                })
            }),
            other => Err(TrafficError::UnknownPattern {
                name: other.to_string(),
            }),
        }
    }
}

/// Parses `rest` as the parameters of `pattern`, lets `build` consume them, and fails on any
/// key left over.
fn with_params<'a>(
    pattern: &'static str,
    rest: &'a str,
    build: impl FnOnce(&mut Params<'a>) -> Result<TrafficSpec, TrafficError>,
) -> Result<TrafficSpec, TrafficError> {
    let mut params = Params::parse(pattern, rest)?;
    let spec = build(&mut params)?;
    params.finish()?;
    Ok(spec)
}

impl fmt::Display for TrafficSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match self {
            TrafficSpec::Permutation
            | TrafficSpec::Complement
            | TrafficSpec::BitReversal
            | TrafficSpec::Transpose
            | TrafficSpec::ManyToOne => Ok(()),
            TrafficSpec::Uniform { allow_self } => write!(f, ":self={allow_self}"),
            TrafficSpec::Replicated { k } => write!(f, ":k={k}"),
            TrafficSpec::Mesh { torus } => write!(f, ":torus={torus}"),
            TrafficSpec::Valiant { base } => write!(f, ":base={base}"),
            // `f64`'s `Display` is the shortest spelling that parses back to the same value.
            TrafficSpec::BitFlip { p } => write!(f, ":p={p}"),
            TrafficSpec::Broadcast { src: None } => Ok(()),
            TrafficSpec::Broadcast { src: Some(src) } => write!(f, ":src={src}"),
            TrafficSpec::File { path } => write!(f, ":{}", path.display()),
        }
    }
}

/// The `key=value` list of a spec, consumed key by key; keys left over are errors.
#[derive(Debug)]
struct Params<'a> {
    pattern: &'static str,
    pairs: Vec<(&'a str, &'a str)>,
    used: Vec<bool>,
}

impl<'a> Params<'a> {
    /// Splits `k=v,k=v`.
    fn parse(pattern: &'static str, rest: &'a str) -> Result<Self, TrafficError> {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        for item in rest.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = item.split_once('=').ok_or_else(|| TrafficError::BadValue {
                key: item.to_string(),
                value: String::new(),
                expected: "a `key=value` pair",
            })?;
            let (k, v) = (k.trim(), v.trim());
            if pairs.iter().any(|(pk, _)| *pk == k) {
                return Err(TrafficError::DuplicateKey { key: k.to_string() });
            }
            pairs.push((k, v));
        }
        let used = vec![false; pairs.len()];
        Ok(Self {
            pattern,
            pairs,
            used,
        })
    }

    fn take(&mut self, key: &str) -> Option<&'a str> {
        let i = self.pairs.iter().position(|(k, _)| *k == key)?;
        self.used[i] = true;
        Some(self.pairs[i].1)
    }

    fn optional<T>(
        &mut self,
        key: &'static str,
        expected: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<Option<T>, TrafficError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => parse(v).map(Some).ok_or_else(|| TrafficError::BadValue {
                key: key.to_string(),
                value: v.to_string(),
                expected,
            }),
        }
    }

    fn required<T>(
        &mut self,
        key: &'static str,
        expected: &'static str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T, TrafficError> {
        self.optional(key, expected, parse)?
            .ok_or(TrafficError::MissingKey {
                pattern: self.pattern,
                key,
            })
    }

    fn optional_bool(&mut self, key: &'static str) -> Result<Option<bool>, TrafficError> {
        self.optional(key, "true or false", |v| match v {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        })
    }

    /// Fails on the first key nobody asked for.
    fn finish(self) -> Result<(), TrafficError> {
        match self.used.iter().position(|u| !u) {
            None => Ok(()),
            Some(i) => Err(TrafficError::UnknownKey {
                pattern: self.pattern,
                key: self.pairs[i].0.to_string(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> TrafficSpec {
        s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    #[test]
    fn parses_every_pattern() {
        assert_eq!(parse("permutation"), TrafficSpec::Permutation);
        assert_eq!(parse("complement"), TrafficSpec::Complement);
        assert_eq!(parse("bitrev"), TrafficSpec::BitReversal);
        assert_eq!(parse("transpose"), TrafficSpec::Transpose);
        assert_eq!(parse("many-to-one"), TrafficSpec::ManyToOne);
        assert_eq!(parse("uniform"), TrafficSpec::Uniform { allow_self: false });
        assert_eq!(
            parse("uniform:self=true"),
            TrafficSpec::Uniform { allow_self: true }
        );
        assert_eq!(parse("replicated:k=4"), TrafficSpec::Replicated { k: 4 });
        assert_eq!(parse("mesh"), TrafficSpec::Mesh { torus: false });
        assert_eq!(parse("mesh:torus=true"), TrafficSpec::Mesh { torus: true });
        assert_eq!(
            parse("valiant"),
            TrafficSpec::Valiant {
                base: ValiantBase::Permutation
            }
        );
        assert_eq!(
            parse("valiant:base=many-to-one"),
            TrafficSpec::Valiant {
                base: ValiantBase::ManyToOne
            }
        );
        assert_eq!(parse("bitflip:p=0.25"), TrafficSpec::BitFlip { p: 0.25 });
        assert_eq!(
            parse("file:traffic/a,b=c:d.txt"),
            TrafficSpec::File {
                path: "traffic/a,b=c:d.txt".into()
            }
        );
        assert_eq!(
            parse("  uniform: self = true , "),
            TrafficSpec::Uniform { allow_self: true }
        );
        assert_eq!(parse("complement:"), TrafficSpec::Complement);
    }

    #[test]
    fn display_is_canonical_and_round_trips() {
        let cases = [
            ("permutation", "permutation"),
            ("bitrev", "bitrev"),
            ("uniform", "uniform:self=false"),
            ("uniform:self=true", "uniform:self=true"),
            ("replicated:k=3", "replicated:k=3"),
            ("mesh", "mesh:torus=false"),
            ("valiant", "valiant:base=permutation"),
            ("valiant:base=bitrev", "valiant:base=bitrev"),
            ("bitflip:p=0.1", "bitflip:p=0.1"),
            ("bitflip:p=1", "bitflip:p=1"),
            ("bitflip:p=1e-3", "bitflip:p=0.001"),
            ("file:x/y.json", "file:x/y.json"),
        ];
        for (input, canonical) in cases {
            let spec = parse(input);
            assert_eq!(spec.to_string(), canonical);
            assert_eq!(parse(canonical), spec);
        }
        for base in ValiantBase::ALL {
            let spec = TrafficSpec::Valiant { base };
            assert_eq!(parse(&spec.to_string()), spec);
        }
        let odd = TrafficSpec::BitFlip {
            p: 0.1 + 0.2, // 0.30000000000000004
        };
        assert_eq!(parse(&odd.to_string()), odd);
    }

    #[test]
    fn parse_errors_are_typed_and_one_line() {
        let err = |s: &str| s.parse::<TrafficSpec>().unwrap_err();
        let e = err("hotspot");
        assert!(matches!(&e, TrafficError::UnknownPattern { name } if name == "hotspot"));
        let e = err("mesh:wrap=true");
        assert!(matches!(&e, TrafficError::UnknownKey { pattern: "mesh", key } if key == "wrap"));
        assert_eq!(e.to_string(), "`mesh` does not take key `wrap`");
        let e = err("complement:k=2");
        assert!(matches!(
            &e,
            TrafficError::UnknownKey {
                pattern: "complement",
                ..
            }
        ));
        let e = err("replicated:k=2,k=3");
        assert!(matches!(&e, TrafficError::DuplicateKey { key } if key == "k"));
        let e = err("replicated");
        assert!(matches!(
            e,
            TrafficError::MissingKey {
                pattern: "replicated",
                key: "k"
            }
        ));
        assert_eq!(e.to_string(), "`replicated` needs key `k`");
        let e = err("replicated:k=-1");
        assert!(
            matches!(&e, TrafficError::BadValue { key, value, .. } if key == "k" && value == "-1")
        );
        assert!(matches!(
            err("bitflip:p=1.5"),
            TrafficError::BadValue { .. }
        ));
        assert!(matches!(
            err("bitflip:p=NaN"),
            TrafficError::BadValue { .. }
        ));
        assert!(matches!(
            err("bitflip"),
            TrafficError::MissingKey { key: "p", .. }
        ));
        assert!(matches!(
            err("uniform:self=yes"),
            TrafficError::BadValue { .. }
        ));
        assert!(matches!(
            err("valiant:base=valiant"),
            TrafficError::BadValue { .. }
        ));
        assert!(matches!(
            err("valiant:base=file"),
            TrafficError::BadValue { .. }
        ));
        assert!(matches!(err("mesh:torus"), TrafficError::BadValue { .. }));
        assert!(matches!(
            err("file:"),
            TrafficError::MissingKey {
                pattern: "file",
                ..
            }
        ));
        assert!(matches!(
            err("file"),
            TrafficError::MissingKey {
                pattern: "file",
                ..
            }
        ));
        assert!(matches!(err(""), TrafficError::UnknownPattern { .. }));
        for s in [
            "hotspot",
            "mesh:wrap=true",
            "replicated:k=x",
            "bitflip:p=2",
            "uniform:self",
            "valiant:base=replicated",
        ] {
            let msg = err(s).to_string();
            assert!(!msg.contains('\n'), "{msg}");
            assert!(!msg.is_empty());
        }
    }

    #[test]
    fn generate_matches_the_generators() {
        let mut rng = Pcg64::seed_from_u64(42);
        assert_eq!(
            parse("permutation").generate(16, 42).unwrap(),
            patterns::random_permutation(16, &mut rng).unwrap()
        );
        assert_eq!(
            parse("complement").generate(16, 0).unwrap(),
            patterns::complement(16).unwrap()
        );
        assert_eq!(parse("mesh:torus=true").generate(16, 0).unwrap().len(), 64);
        let v = parse("valiant:base=complement").generate(16, 5).unwrap();
        assert_eq!(v.len(), 32);
        assert_eq!(v, parse("valiant:base=complement").generate(16, 5).unwrap());
        assert_ne!(v, parse("valiant:base=complement").generate(16, 6).unwrap());
        let r = parse("replicated:k=3").generate(8, 1).unwrap();
        assert_eq!((r.len(), r.max_in_degree()), (24, 3));
        assert!(matches!(
            parse("transpose").generate(8, 0),
            Err(TrafficError::NotPowerOfFour { .. })
        ));
    }

    #[test]
    fn randomized_flag() {
        assert!(parse("permutation").is_randomized());
        assert!(parse("valiant:base=complement").is_randomized());
        assert!(!parse("complement").is_randomized());
        assert!(!parse("bitflip:p=0").is_randomized());
        assert!(parse("bitflip:p=0.5").is_randomized());
        assert!(!parse("file:x").is_randomized());
    }

    #[test]
    fn serde_round_trip() {
        for s in [
            "uniform:self=true",
            "valiant:base=mesh",
            "bitflip:p=0.5",
            "file:a.txt",
        ] {
            let spec = parse(s);
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(serde_json::from_str::<TrafficSpec>(&json).unwrap(), spec);
        }
    }
}
