//! Traffic given by the files of a real fabric: ib_flit_sim's destination sequences
//! (`.dstSeq` with its `.dstSeq.ini`) and a host-name pair list, resolved to CA-order
//! positions through the fabric.
//!
//! **Key design decision: traffic names hosts, a fabric says where they are.** A pattern
//! (`permutation`, `file:PATH`, ...) numbers processors `0..N`; these files name hosts (by LID,
//! by node name, by description). [`FabricTraffic`] is parsed once from its text form and
//! [`FabricTraffic::pairs`] resolves it against one [`Fabric`] into `(src, dst)` positions
//! of [`Fabric::ca_order`], the input of [`Fabric::traffic_load`]; a name or LID the fabric
//! does not have is a [`FabricError::Unknown`] with the file and the line.
//!
//! The formats:
//!
//! ```text
//! x.dstSeq (ib_flit_sim src/vec_file.cc, read by src/app.cc):
//! 0:   2 3 4 5                  vector 0: destination LIDs, in sending order
//! 1:   3 4 5 1                  (values separated by spaces or commas; a vector index
//!                                written again continues that vector, as vecFile::parse does)
//! x.dstSeq.ini (OMNeT++ ini, included by the run's .ini):
//! **H_1_U1.app.dstSeqVecIdx = 0       host H_1_U1 sends along vector 0 (the `app` module)
//! **H_1_U1.gen.dstSeqIndex = 0        the same, as the older `gen` module names it
//!
//! hosts file (ours):
//! # comment
//! node-a  node-b                     one SRC DST pair per line: node names or descriptions,
//! "host 1 HCA-1" "host 2 HCA-1"      double-quoted when they contain spaces
//! ```
//!
//! A host sends one message to every entry of its vector (ib_flit_sim's `seq_once`; `seq_loop`
//! repeats the same sequence, `seq_rand` draws from it), so the traffic is the multiset of
//! (host, entry) pairs. A host is found by its node name, its `.ned` name (`H-1/U1` is
//! `H_1_U1`), or else by a node description that exactly one CA has.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use fatnet_traffic::TrafficSpec;

use crate::error::{FabricError, Loc};
use crate::fabric::{Fabric, NodeId, NodeKind};
use crate::text::{Cur, LineReport, ca_of_lid, read_text};

/// The most `(src, dst)` pairs a traffic file may give (2^26): checked while reading, before
/// the pairs are stored.
pub const MAX_TRAFFIC_PAIRS: u64 = 1 << 26;

/// One destination vector of a `.dstSeq` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DstVector {
    /// The 1-based line where the vector starts.
    pub line: usize,
    /// The destination LIDs, in order, as written (not yet checked against a fabric).
    pub lids: Vec<u32>,
}

/// A `.dstSeq` file: vector index → destinations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DstSeq {
    /// The vectors by index.
    pub vectors: BTreeMap<u32, DstVector>,
}

impl DstSeq {
    /// The number of entries over all vectors.
    #[must_use]
    pub fn entries(&self) -> usize {
        self.vectors.values().map(|v| v.lids.len()).sum()
    }
}

fn too_many(count: u64) -> FabricError {
    FabricError::TooLarge {
        what: "traffic pairs",
        count,
        limit: MAX_TRAFFIC_PAIRS,
    }
}

/// Parses an ib_flit_sim `.dstSeq` file (see the module documentation). Blank lines are
/// skipped (ib_flit_sim refuses them).
///
/// # Errors
/// [`FabricError::Syntax`] for a line that does not start with `INDEX:` or an entry that is not
/// a decimal number; [`FabricError::TooLarge`] beyond [`MAX_TRAFFIC_PAIRS`] entries.
pub fn parse_dst_seq(text: &str, file: &str) -> Result<(DstSeq, LineReport), FabricError> {
    let report = LineReport::new(file, text);
    let mut out = DstSeq::default();
    let mut total = 0u64;
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let mut c = Cur::new(line, loc);
        let index = c.dec("a vector index `N:` at the start of the line")?;
        c.expect(':', "`:` after the vector index")?;
        let vector = out.vectors.entry(index).or_insert(DstVector {
            line: i + 1,
            lids: Vec::new(),
        });
        for w in c.s.split([' ', '\t', ',']).filter(|w| !w.is_empty()) {
            let lid = w
                .parse::<u32>()
                .map_err(|_| loc.syntax("a decimal destination LID", w))?;
            total += 1;
            if total > MAX_TRAFFIC_PAIRS {
                return Err(too_many(total));
            }
            vector.lids.push(lid);
        }
    }
    Ok((out, report))
}

/// One host's vector, from a `.dstSeq.ini`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeqAssignment {
    /// The host's name as written (`H_1_U1`).
    pub host: String,
    /// Its vector index.
    pub index: u32,
    /// The 1-based line.
    pub line: usize,
}

/// Parses a `.dstSeq.ini`: `**HOST.app.dstSeqVecIdx = N` or `**HOST.gen.dstSeqIndex = N` per
/// line, in file order; `[section]` headers, `#`/`;` comments and blank lines are skipped,
/// other assignments counted as unrecognised.
///
/// # Errors
/// [`FabricError::Syntax`] for an index that is not a decimal number.
pub fn parse_dst_seq_ini(
    text: &str,
    file: &str,
) -> Result<(Vec<SeqAssignment>, LineReport), FabricError> {
    let mut report = LineReport::new(file, text);
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        // OMNeT++ ini comments run from `#` to the end of the line.
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with(';') || line.starts_with('[') && line.ends_with(']')
        {
            continue;
        }
        let host = line.split_once('=').and_then(|(key, value)| {
            let key = key.trim().strip_prefix("**")?;
            let host = key
                .strip_suffix(".app.dstSeqVecIdx")
                .or_else(|| key.strip_suffix(".gen.dstSeqIndex"))?;
            let host = host.strip_prefix('.').unwrap_or(host);
            Some((host, value.trim()))
        });
        let Some((host, value)) = host.filter(|(h, _)| !h.is_empty()) else {
            report.unrecognised.push(i + 1);
            continue;
        };
        let index = value
            .parse::<u32>()
            .map_err(|_| loc.syntax("a decimal vector index", value))?;
        out.push(SeqAssignment {
            host: host.to_owned(),
            index,
            line: i + 1,
        });
    }
    Ok((out, report))
}

/// Positions in the CA order, by node.
fn positions(fabric: &Fabric) -> Vec<Option<u32>> {
    let mut pos = vec![None; fabric.node_count()];
    for (i, &c) in fabric.ca_order().iter().enumerate() {
        pos[c.index()] = Some(i as u32);
    }
    pos
}

/// The CA a host name means: its node name, its `.ned` name (`-` and `/` read as `_`), or the
/// description of exactly one CA.
fn host_node(fabric: &Fabric, loc: Loc<'_>, name: &str) -> Result<NodeId, FabricError> {
    let ned: String = name
        .chars()
        .map(|ch| if ch == '-' || ch == '/' { '_' } else { ch })
        .collect();
    let by_name = fabric
        .node_by_name(name)
        .or_else(|| fabric.node_by_name(&ned));
    let id = match by_name {
        Some(id) => id,
        None => {
            let mut found = fabric
                .cas()
                .filter(|&c| fabric.node(c).description() == name);
            let first = found.next().ok_or_else(|| loc.unknown("host", name))?;
            if found.next().is_some() {
                return Err(loc.node_conflict(name, "description shared by several CAs"));
            }
            first
        }
    };
    if fabric.node(id).kind() != NodeKind::Ca {
        return Err(loc.unknown("host (a CA)", name));
    }
    Ok(id)
}

fn position(pos: &[Option<u32>], id: NodeId, loc: Loc<'_>, name: &str) -> Result<u32, FabricError> {
    pos[id.index()].ok_or_else(|| loc.unknown("CA of the CA order", name))
}

/// The pairs of a destination sequence: for every host of `ini`, in file order, one pair per
/// entry of its vector (destination LIDs resolved through the fabric's LID map).
///
/// # Errors
/// [`FabricError::Unknown`] (in `ini_file`) for a host the fabric does not have or a vector
/// index the `.dstSeq` lacks, (in `seq_file`, at the vector's line) for a LID that is no CA's;
/// [`FabricError::NodeConflict`] for a host listed twice; [`FabricError::TooLarge`] beyond
/// [`MAX_TRAFFIC_PAIRS`] pairs.
pub fn dst_seq_pairs(
    fabric: &Fabric,
    seq: &DstSeq,
    seq_file: &str,
    ini: &[SeqAssignment],
    ini_file: &str,
) -> Result<Vec<(u32, u32)>, FabricError> {
    let pos = positions(fabric);
    let total: u64 = ini
        .iter()
        .filter_map(|a| seq.vectors.get(&a.index))
        .map(|v| v.lids.len() as u64)
        .sum();
    if total > MAX_TRAFFIC_PAIRS {
        return Err(too_many(total));
    }
    let mut seen = vec![false; fabric.node_count()];
    let mut pairs = Vec::with_capacity(total as usize);
    for a in ini {
        let loc = Loc {
            file: ini_file,
            line: a.line,
        };
        let host = host_node(fabric, loc, &a.host)?;
        if std::mem::replace(&mut seen[host.index()], true) {
            return Err(loc.node_conflict(&a.host, "given two vectors"));
        }
        let src = position(&pos, host, loc, &a.host)?;
        let v = seq
            .vectors
            .get(&a.index)
            .ok_or_else(|| loc.unknown("vector index", &a.index.to_string()))?;
        let vloc = Loc {
            file: seq_file,
            line: v.line,
        };
        for &lid in &v.lids {
            let shown = lid.to_string();
            let lid16 = u16::try_from(lid).map_err(|_| vloc.unknown("CA LID", &shown))?;
            let ep = ca_of_lid(fabric, lid16, vloc, &shown)?;
            pairs.push((src, position(&pos, ep.node, vloc, &shown)?));
        }
    }
    Ok(pairs)
}

/// One token of a hosts file: a double-quoted string or a run of non-blank characters.
fn host_token<'a>(c: &mut Cur<'a>) -> Result<Option<&'a str>, FabricError> {
    c.ws();
    if c.at_end() || c.s.starts_with('#') {
        return Ok(None);
    }
    if c.s.starts_with('"') {
        return c.quoted("a host name closed by `\"`").map(Some);
    }
    Ok(Some(c.take_while(|ch| !ch.is_whitespace())))
}

/// Parses a hosts traffic file against a fabric: one `SRC DST` pair per line (node names, `.ned`
/// names or CA descriptions, double-quoted when they contain spaces), `#` comments, blank lines
/// skipped. Returns CA-order positions.
///
/// # Errors
/// [`FabricError::Syntax`] for a line without exactly two hosts; [`FabricError::Unknown`] for a
/// host the fabric does not have (or a node that is no CA of the CA order);
/// [`FabricError::NodeConflict`] for a description shared by several CAs;
/// [`FabricError::TooLarge`] beyond [`MAX_TRAFFIC_PAIRS`] pairs.
pub fn parse_host_pairs(
    fabric: &Fabric,
    text: &str,
    file: &str,
) -> Result<(Vec<(u32, u32)>, LineReport), FabricError> {
    let report = LineReport::new(file, text);
    let pos = positions(fabric);
    let mut pairs = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        let mut c = Cur::new(raw.trim(), loc);
        let Some(src) = host_token(&mut c)? else {
            continue;
        };
        let Some(dst) = host_token(&mut c)? else {
            return Err(loc.syntax("`SRC DST`: two hosts", raw.trim()));
        };
        if host_token(&mut c)?.is_some() {
            return Err(loc.syntax("`SRC DST`: two hosts and nothing else", raw.trim()));
        }
        if pairs.len() as u64 >= MAX_TRAFFIC_PAIRS {
            return Err(too_many(pairs.len() as u64 + 1));
        }
        let s = position(&pos, host_node(fabric, loc, src)?, loc, src)?;
        let d = position(&pos, host_node(fabric, loc, dst)?, loc, dst)?;
        pairs.push((s, d));
    }
    Ok((pairs, report))
}

/// The traffic of `fatnet fabric load --traffic`: a pattern over the CA order, or a file that
/// names hosts.
#[derive(Debug, Clone, PartialEq)]
pub enum FabricTraffic {
    /// A pattern or `file:PATH` message set, processor `i` = the `i`-th CA of the CA order.
    Pattern(TrafficSpec),
    /// `dstseq:PATH[,ini=INI]`: an ib_flit_sim destination sequence; the hosts' vectors come
    /// from `INI`, by default `PATH.ini`.
    DstSeq {
        /// The `.dstSeq` file.
        path: PathBuf,
        /// The `.dstSeq.ini`, when not `PATH.ini`.
        ini: Option<PathBuf>,
    },
    /// `hosts:PATH`: `SRC DST` host pairs.
    Hosts {
        /// The file.
        path: PathBuf,
    },
}

/// Why a traffic text is not a [`FabricTraffic`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FabricTrafficError {
    /// `dstseq:` or `hosts:` without a path.
    #[error("`{0}:` needs a path")]
    MissingPath(&'static str),
    /// Not a pattern either.
    #[error(transparent)]
    Pattern(#[from] fatnet_traffic::TrafficError),
}

impl FromStr for FabricTraffic {
    type Err = FabricTrafficError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if let Some(rest) = s.strip_prefix("dstseq:") {
            let (path, ini) = match rest.rsplit_once(",ini=") {
                Some((p, i)) if !i.is_empty() => (p, Some(PathBuf::from(i))),
                _ => (rest, None),
            };
            if path.is_empty() {
                return Err(FabricTrafficError::MissingPath("dstseq"));
            }
            return Ok(FabricTraffic::DstSeq {
                path: PathBuf::from(path),
                ini,
            });
        }
        if let Some(rest) = s.strip_prefix("hosts:") {
            if rest.is_empty() {
                return Err(FabricTrafficError::MissingPath("hosts"));
            }
            return Ok(FabricTraffic::Hosts {
                path: PathBuf::from(rest),
            });
        }
        Ok(FabricTraffic::Pattern(s.parse()?))
    }
}

impl fmt::Display for FabricTraffic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FabricTraffic::Pattern(p) => write!(f, "{p}"),
            FabricTraffic::DstSeq { path, ini: None } => write!(f, "dstseq:{}", path.display()),
            FabricTraffic::DstSeq {
                path,
                ini: Some(ini),
            } => write!(f, "dstseq:{},ini={}", path.display(), ini.display()),
            FabricTraffic::Hosts { path } => write!(f, "hosts:{}", path.display()),
        }
    }
}

fn read(path: &Path) -> Result<(String, String), FabricError> {
    Ok((path.display().to_string(), read_text(path)?))
}

impl FabricTraffic {
    /// Whether `seed` matters (a random pattern).
    #[must_use]
    pub fn is_random(&self) -> bool {
        matches!(self, FabricTraffic::Pattern(p) if p.is_randomized())
    }

    /// The traffic as a title: a random pattern with its seed (`permutation (seed 7)`),
    /// anything else as written.
    #[must_use]
    pub fn shown_with_seed(&self, seed: u64) -> String {
        match self {
            FabricTraffic::Pattern(p) => p.shown_with_seed(seed),
            other => other.to_string(),
        }
    }

    /// The traffic on `fabric` as `(src, dst)` positions of its CA order; `seed` draws the
    /// random patterns.
    ///
    /// # Errors
    /// [`FabricError::Traffic`] when the pattern does not suit the number of CAs;
    /// [`FabricError::Io`] for a file that cannot be read (the `.dstSeq.ini` included); the
    /// errors of [`parse_dst_seq`], [`parse_dst_seq_ini`], [`dst_seq_pairs`] and
    /// [`parse_host_pairs`].
    pub fn pairs(&self, fabric: &Fabric, seed: u64) -> Result<Vec<(u32, u32)>, FabricError> {
        match self {
            FabricTraffic::Pattern(spec) => pattern_pairs(spec, fabric, seed),
            FabricTraffic::DstSeq { path, ini } => {
                let ini = ini.clone().unwrap_or_else(|| {
                    let mut p = path.clone().into_os_string();
                    p.push(".ini");
                    PathBuf::from(p)
                });
                let (seq_file, seq_text) = read(path)?;
                let (ini_file, ini_text) = read(&ini)?;
                let (seq, _) = parse_dst_seq(&seq_text, &seq_file)?;
                let (assign, _) = parse_dst_seq_ini(&ini_text, &ini_file)?;
                dst_seq_pairs(fabric, &seq, &seq_file, &assign, &ini_file)
            }
            FabricTraffic::Hosts { path } => {
                let (file, text) = read(path)?;
                Ok(parse_host_pairs(fabric, &text, &file)?.0)
            }
        }
    }
}

/// A pattern over the CA order of `fabric` as `(src, dst)` positions; `seed` draws a random
/// one.
pub(crate) fn pattern_pairs(
    spec: &TrafficSpec,
    fabric: &Fabric,
    seed: u64,
) -> Result<Vec<(u32, u32)>, FabricError> {
    let n = u32::try_from(fabric.ca_order().len()).map_err(|_| FabricError::TooLarge {
        what: "CAs",
        count: fabric.ca_order().len() as u64,
        limit: u64::from(u32::MAX),
    })?;
    let m = spec.generate(n, seed)?;
    Ok(m.messages().iter().map(|m| (m.src, m.dst)).collect())
}
