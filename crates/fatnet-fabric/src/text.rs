//! Small text helpers shared by the readers, and the per-file [`LineReport`].

use crate::error::{FabricError, Loc};
use crate::fabric::{Endpoint, Fabric, NodeId, NodeKind};

/// What a reader made of a file's lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineReport {
    /// The file name the reader was given.
    pub file: String,
    /// The number of lines.
    pub lines: usize,
    /// The 1-based numbers of lines the reader did not recognise and skipped.
    pub unrecognised: Vec<usize>,
}

impl LineReport {
    pub(crate) fn new(file: &str, text: &str) -> Self {
        Self {
            file: file.to_owned(),
            lines: text.lines().count(),
            unrecognised: Vec::new(),
        }
    }

    /// The number of unrecognised lines.
    #[must_use]
    pub fn unrecognised_count(&self) -> usize {
        self.unrecognised.len()
    }
}

/// Makes the CAs listed one per non-empty line of `text` the fabric's CA order, for the
/// readers of a CA-order file (`ftree.hcas`, `opensm-ftree-ca-order.dump`). `resolve` reads
/// one line into its CA and the name to use in messages, checking what the line says against
/// that CA; this function skips blank lines, refuses a CA listed twice and applies the order.
///
/// # Errors
/// `resolve`'s errors, [`FabricError::NodeConflict`] for a CA listed twice, and those of
/// [`Fabric::with_ca_order`].
pub(crate) fn apply_ca_order_lines(
    fabric: Fabric,
    text: &str,
    file: &str,
    mut resolve: impl FnMut(&Fabric, Loc<'_>, &str) -> Result<(NodeId, String), FabricError>,
) -> Result<(Fabric, LineReport), FabricError> {
    let report = LineReport::new(file, text);
    let mut order = Vec::new();
    let mut seen = vec![false; fabric.node_count()];
    for (i, raw) in text.lines().enumerate() {
        let loc = Loc { file, line: i + 1 };
        if raw.trim().is_empty() {
            continue;
        }
        let (node, name) = resolve(&fabric, loc, raw)?;
        if std::mem::replace(&mut seen[node.index()], true) {
            return Err(loc.node_conflict(&name, "listed twice"));
        }
        order.push(node);
    }
    let fabric = fabric.with_ca_order(order)?;
    Ok((fabric, report))
}

/// The CA port owning `lid` (`shown` is the LID as the file wrote it, for the error).
///
/// # Errors
/// [`FabricError::Unknown`] if no CA port has that LID.
pub(crate) fn ca_of_lid(
    fabric: &Fabric,
    lid: u16,
    loc: Loc<'_>,
    shown: &str,
) -> Result<Endpoint, FabricError> {
    fabric
        .endpoint_of_lid(lid)
        .filter(|e| fabric.node(e.node).kind() == NodeKind::Ca)
        .ok_or_else(|| loc.unknown("CA LID", shown))
}

/// The largest fabric file read (1 GiB: OpenSM's dumps of the largest InfiniBand subnet,
/// 49,151 LIDs, are a few hundred MiB).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// Reads a whole file as UTF-8 text.
///
/// # Errors
/// [`FabricError::Io`] if the file cannot be read or is not a regular file,
/// [`FabricError::TooLarge`] above [`MAX_FILE_BYTES`], [`FabricError::Syntax`] (with the line of the
/// first bad byte) if it is not UTF-8.
pub fn read_text(path: &std::path::Path) -> Result<String, FabricError> {
    let file = path.display().to_string();
    let io = |source| FabricError::Io {
        file: file.clone(),
        source,
    };
    let bytes = fatnet_traffic::io::read_bounded(path, MAX_FILE_BYTES).map_err(|e| match e {
        fatnet_traffic::TrafficError::FileTooLarge { bytes, max } => FabricError::TooLarge {
            what: "bytes in a fabric file",
            count: bytes,
            limit: max,
        },
        fatnet_traffic::TrafficError::Io { source } => io(source),
        other => io(std::io::Error::other(other.to_string())),
    })?;
    String::from_utf8(bytes).map_err(|e| {
        let good = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..good].iter().filter(|&&b| b == b'\n').count() + 1;
        Loc { file: &file, line }.syntax("UTF-8 text", "a byte that is not UTF-8")
    })
}

/// A cursor over one line.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cur<'a> {
    pub s: &'a str,
    pub loc: Loc<'a>,
}

impl<'a> Cur<'a> {
    pub(crate) fn new(s: &'a str, loc: Loc<'a>) -> Self {
        Self { s, loc }
    }

    pub(crate) fn err(&self, expected: &'static str) -> FabricError {
        self.loc.syntax(expected, self.s)
    }

    pub(crate) fn ws(&mut self) {
        self.s = self.s.trim_start();
    }

    pub(crate) fn at_end(&self) -> bool {
        self.s.trim().is_empty()
    }

    /// Consumes `c` if it comes next.
    pub(crate) fn eat(&mut self, c: char) -> bool {
        if let Some(rest) = self.s.strip_prefix(c) {
            self.s = rest;
            true
        } else {
            false
        }
    }

    pub(crate) fn expect(&mut self, c: char, expected: &'static str) -> Result<(), FabricError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(expected))
        }
    }

    /// Consumes the keyword `w` (followed by a non-word character) if it comes next.
    pub(crate) fn eat_word(&mut self, w: &str) -> bool {
        match self.s.strip_prefix(w) {
            Some(rest)
                if !rest
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                self.s = rest;
                true
            }
            _ => false,
        }
    }

    /// A run of characters satisfying `f` (possibly empty).
    pub(crate) fn take_while(&mut self, f: impl Fn(char) -> bool) -> &'a str {
        let end = self.s.find(|c: char| !f(c)).unwrap_or(self.s.len());
        let (a, b) = self.s.split_at(end);
        self.s = b;
        a
    }

    /// A decimal number.
    pub(crate) fn dec(&mut self, expected: &'static str) -> Result<u32, FabricError> {
        let save = *self;
        let digits = self.take_while(|c| c.is_ascii_digit());
        digits.parse().map_err(|_| save.err(expected))
    }

    /// A hexadecimal number with an optional `0x`, not necessarily zero-padded.
    pub(crate) fn hex(&mut self, expected: &'static str) -> Result<u64, FabricError> {
        let save = *self;
        if !self.eat_str("0x") {
            self.eat_str("0X");
        }
        let digits = self.take_while(|c| c.is_ascii_hexdigit());
        if digits.is_empty() || digits.len() > 16 {
            return Err(save.err(expected));
        }
        u64::from_str_radix(digits, 16).map_err(|_| save.err(expected))
    }

    pub(crate) fn eat_str(&mut self, p: &str) -> bool {
        if let Some(rest) = self.s.strip_prefix(p) {
            self.s = rest;
            true
        } else {
            false
        }
    }

    /// A double-quoted string running to the last `"` of the line: `ibnetdiscover` writes node
    /// descriptions unescaped, and nothing after a description is quoted, so a description
    /// may itself contain `"` (and `#`).
    pub(crate) fn quoted_last(&mut self, expected: &'static str) -> Result<&'a str, FabricError> {
        let save = *self;
        if !self.eat('"') {
            return Err(save.err(expected));
        }
        let Some(end) = self.s.rfind('"') else {
            return Err(save.err(expected));
        };
        let (q, rest) = self.s.split_at(end);
        self.s = &rest[1..];
        Ok(q)
    }

    /// A double-quoted string (no escapes, as `ibnetdiscover` writes them); `#` may occur inside.
    pub(crate) fn quoted(&mut self, expected: &'static str) -> Result<&'a str, FabricError> {
        let save = *self;
        if !self.eat('"') {
            return Err(save.err(expected));
        }
        let Some(end) = self.s.find('"') else {
            return Err(save.err(expected));
        };
        let (q, rest) = self.s.split_at(end);
        self.s = &rest[1..];
        Ok(q)
    }
}
