//! Reading and writing message sets as plain text or JSON.
//!
//! **Text** ([`read_text`], [`write_text`]): one message per line, `src dst` as two decimal
//! processor ids separated by whitespace. A `#` starts a comment that runs to the end of the
//! line; blank lines are ignored. The processor count is not in the file: the reader is told
//! it. Message ids follow the order of the lines.
//!
//! ```text
//! # fatnet message set: 4 processors, 2 messages
//! 0 3
//! 3 0   # the reply
//! ```
//!
//! **JSON** ([`read_json`], [`write_json`]): one object with the processor count and the
//! messages as `[src, dst]` pairs, in id order. Other fields are ignored.
//!
//! ```json
//! {"processors": 4, "messages": [
//! [0, 3],
//! [3, 0]
//! ]}
//! ```
//!
//! [`write_json`] puts one message per line, so files under version control diff by message.
//! [`read_file`] tells the formats apart by the first non-space character: `{` means JSON.
//!
//! Readers never panic on bad input: every problem is a [`TrafficError`] naming the line
//! (text), the line and column (JSON syntax, from `serde_json`) or the message index (JSON
//! ids out of range), and [`read_file`] adds the path.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};
use std::path::Path;

use crate::message::{MAX_MESSAGES, RawMessageSet};
use crate::{Message, MessageSet, TrafficError};

/// A message-set file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// One `src dst` pair per line.
    Text,
    /// `{"processors": n, "messages": [[src, dst], ...]}`.
    Json,
}

impl Format {
    /// The format of a file with contents `bytes`: JSON if the first character other than
    /// white space (and a UTF-8 byte-order mark) is `{`, text otherwise.
    pub fn detect(bytes: &[u8]) -> Format {
        let bytes = strip_bom(bytes);
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') => Format::Json,
            _ => Format::Text,
        }
    }
}

fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// The largest message-set file read (1 GiB: a text file of 2^26 messages between million-node
/// ids is about 1 GiB; larger sets are generated from a traffic spec, not read).
pub const MAX_FILE_BYTES: u64 = 1 << 30;

/// The longest line of a text message set (a `src dst` pair and a comment fit many times).
pub const MAX_LINE_BYTES: usize = 4096;

/// Reads a text message set on `processors` processors.
///
/// # Errors
///
/// [`TrafficError::TooFewProcessors`] if `processors == 0`; [`TrafficError::MalformedLine`]
/// for a line that is not UTF-8 or not two non-negative integers;
/// [`TrafficError::LineProcessorOutOfRange`] for an id `>= processors`;
/// [`TrafficError::TooManyMessages`] past [`crate::MAX_MESSAGES`] lines;
/// [`TrafficError::MalformedLine`] for a line longer than [`MAX_LINE_BYTES`];
/// [`TrafficError::Io`] if reading fails.
pub fn read_text<R: Read>(reader: R, processors: u32) -> Result<MessageSet, TrafficError> {
    if processors == 0 {
        return Err(TrafficError::TooFewProcessors {
            what: "message set",
            processors,
            min: 1,
        });
    }
    let mut reader = BufReader::new(reader);
    let mut messages = Vec::new();
    let mut buf = Vec::new();
    let mut line = 0usize;
    loop {
        buf.clear();
        // At most MAX_LINE_BYTES + 1 bytes per line: a file of one endless line is refused at
        // its first kilobytes, not read into memory.
        if (&mut reader)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)?
            == 0
        {
            break;
        }
        line += 1;
        if buf.len() > MAX_LINE_BYTES {
            return Err(TrafficError::MalformedLine {
                line,
                text: shorten(&String::from_utf8_lossy(&buf)),
                expected: "a line of at most 4,096 bytes",
            });
        }
        let bytes = if line == 1 { strip_bom(&buf) } else { &buf };
        let text = std::str::from_utf8(bytes).map_err(|_| TrafficError::MalformedLine {
            line,
            text: shorten(&String::from_utf8_lossy(bytes)),
            expected: "UTF-8 text",
        })?;
        if let Some(m) = parse_line(text, line, processors)? {
            if messages.len() == MAX_MESSAGES {
                return Err(TrafficError::TooManyMessages {
                    count: MAX_MESSAGES as u64 + 1,
                    max: MAX_MESSAGES as u64,
                });
            }
            messages.push(m);
        }
    }
    MessageSet::new(processors, messages)
}

/// One line of the text format: `None` for blank and comment lines.
fn parse_line(raw: &str, line: usize, processors: u32) -> Result<Option<Message>, TrafficError> {
    let content = raw.split_once('#').map_or(raw, |(before, _)| before).trim();
    if content.is_empty() {
        return Ok(None);
    }
    let malformed = || TrafficError::MalformedLine {
        line,
        text: shorten(raw.trim_end_matches(['\n', '\r'])),
        expected: "two processor ids `src dst`",
    };
    let mut fields = content.split_whitespace();
    let (Some(a), Some(b), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err(malformed());
    };
    let id = |field: &str| -> Result<u32, TrafficError> {
        if !field.bytes().all(|c| c.is_ascii_digit()) {
            return Err(malformed());
        }
        // All digits: the only way to fail is overflow, which is out of range too.
        let value = field.parse::<u64>().unwrap_or(u64::MAX);
        if value >= u64::from(processors) {
            return Err(TrafficError::LineProcessorOutOfRange {
                line,
                processor: value,
                processors,
            });
        }
        Ok(value as u32)
    };
    Ok(Some(Message::new(id(a)?, id(b)?)))
}

/// At most 60 characters of `s`, with `…` when shortened.
fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    match s.char_indices().nth(MAX) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}…", &s[..cut]),
    }
}

/// Writes `set` in the text format: a `#` header comment naming the processor and message
/// counts, then one `src dst` line per message in id order.
///
/// # Errors
///
/// [`TrafficError::Io`] if writing fails.
pub fn write_text<W: Write>(writer: W, set: &MessageSet) -> Result<(), TrafficError> {
    let mut w = BufWriter::new(writer);
    writeln!(
        w,
        "# fatnet message set: {} processors, {} messages",
        set.processors(),
        set.len()
    )?;
    for m in set.messages() {
        writeln!(w, "{} {}", m.src, m.dst)?;
    }
    w.flush()?;
    Ok(())
}

/// Reads a JSON message set; the processor count comes from the file.
///
/// # Errors
///
/// [`TrafficError::Json`] for a syntax or schema error (it names the line and column),
/// [`TrafficError::ProcessorOutOfRange`] naming the first message with an id `>= processors`,
/// [`TrafficError::TooFewProcessors`] for `"processors": 0`.
pub fn read_json<R: Read>(reader: R) -> Result<MessageSet, TrafficError> {
    let raw: RawMessageSet = serde_json::from_reader(BufReader::new(reader))
        .map_err(|source| TrafficError::Json { source })?;
    MessageSet::new(raw.processors, raw.messages)
}

fn read_json_slice(bytes: &[u8]) -> Result<MessageSet, TrafficError> {
    let raw: RawMessageSet =
        serde_json::from_slice(strip_bom(bytes)).map_err(|source| TrafficError::Json { source })?;
    MessageSet::new(raw.processors, raw.messages)
}

/// Writes `set` as JSON, one `[src, dst]` pair per line.
///
/// # Errors
///
/// [`TrafficError::Io`] if writing fails.
pub fn write_json<W: Write>(writer: W, set: &MessageSet) -> Result<(), TrafficError> {
    let mut w = BufWriter::new(writer);
    write!(w, "{{\"processors\": {}, \"messages\": [", set.processors())?;
    for (i, m) in set.messages().iter().enumerate() {
        let sep = if i + 1 == set.len() { "" } else { "," };
        write!(w, "\n[{}, {}]{sep}", m.src, m.dst)?;
    }
    if !set.is_empty() {
        writeln!(w)?;
    }
    writeln!(w, "]}}")?;
    w.flush()?;
    Ok(())
}

/// Reads the message set in the file `path`, in either format ([`Format::detect`]), for
/// `processors` processors.
///
/// # Errors
///
/// [`TrafficError::File`] naming `path` and wrapping: [`TrafficError::Io`] if the file
/// cannot be read or is not a regular file, [`TrafficError::FileTooLarge`] above
/// [`MAX_FILE_BYTES`], the errors of [`read_text`] or [`read_json`], and
/// [`TrafficError::ProcessorsMismatch`] if a JSON file is for another processor count.
pub fn read_file(path: impl AsRef<Path>, processors: u32) -> Result<MessageSet, TrafficError> {
    let path = path.as_ref();
    read_file_inner(path, processors).map_err(|e| e.in_file(path))
}

fn read_file_inner(path: &Path, processors: u32) -> Result<MessageSet, TrafficError> {
    let bytes = read_bounded_inner(path)?;
    match Format::detect(&bytes) {
        Format::Text => read_text(&bytes[..], processors),
        Format::Json => {
            let set = read_json_slice(&bytes)?;
            if set.processors() != processors {
                return Err(TrafficError::ProcessorsMismatch {
                    expected: processors,
                    found: set.processors(),
                });
            }
            Ok(set)
        }
    }
}

/// The bytes of the regular file `path`, at most [`MAX_FILE_BYTES`]: the bounds of
/// [`read_file`], for other files users give (a schedule to verify).
///
/// # Errors
///
/// [`TrafficError::File`] naming `path` and wrapping: [`TrafficError::Io`] if the file
/// cannot be read or is not a regular file (a device or a pipe would be read forever),
/// [`TrafficError::FileTooLarge`] above [`MAX_FILE_BYTES`].
pub fn read_bounded(path: impl AsRef<Path>) -> Result<Vec<u8>, TrafficError> {
    let path = path.as_ref();
    read_bounded_inner(path).map_err(|e| e.in_file(path))
}

fn read_bounded_inner(path: &Path) -> Result<Vec<u8>, TrafficError> {
    // A device or a pipe (`/dev/zero`) would be read forever: only regular files, and no
    // larger than MAX_FILE_BYTES (also while reading: a file may grow, or report no size).
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file").into(),
        );
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(TrafficError::FileTooLarge {
            bytes: meta.len(),
            max: MAX_FILE_BYTES,
        });
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(TrafficError::FileTooLarge {
            bytes: bytes.len() as u64,
            max: MAX_FILE_BYTES,
        });
    }
    Ok(bytes)
}

/// Writes `set` to the file `path` in `format`, replacing the file if it exists.
///
/// # Errors
///
/// [`TrafficError::File`] naming `path` and wrapping the [`TrafficError::Io`] error.
pub fn write_file(
    path: impl AsRef<Path>,
    set: &MessageSet,
    format: Format,
) -> Result<(), TrafficError> {
    let path = path.as_ref();
    let write = || -> Result<(), TrafficError> {
        let file = File::create(path)?;
        match format {
            Format::Text => write_text(file, set),
            Format::Json => write_json(file, set),
        }
    };
    write().map_err(|e| e.in_file(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(n: u32, pairs: &[(u32, u32)]) -> MessageSet {
        MessageSet::new(n, pairs.iter().map(|&p| p.into()).collect()).unwrap()
    }

    fn text_err(input: &str, n: u32) -> TrafficError {
        read_text(input.as_bytes(), n).unwrap_err()
    }

    #[test]
    fn text_round_trip() {
        let s = set(5, &[(0, 4), (4, 0), (2, 2), (0, 4)]);
        let mut out = Vec::new();
        write_text(&mut out, &s).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert_eq!(
            text,
            "# fatnet message set: 5 processors, 4 messages\n0 4\n4 0\n2 2\n0 4\n"
        );
        assert_eq!(read_text(&out[..], 5).unwrap(), s);
        let empty = set(3, &[]);
        let mut out = Vec::new();
        write_text(&mut out, &empty).unwrap();
        assert_eq!(read_text(&out[..], 3).unwrap(), empty);
    }

    #[test]
    fn text_comments_blank_lines_and_spacing() {
        let input = "\u{feff}# header\n\n  1\t2  \n3 0 # trailing comment\r\n   # indented\n0 0";
        assert_eq!(
            read_text(input.as_bytes(), 4).unwrap(),
            set(4, &[(1, 2), (3, 0), (0, 0)])
        );
        assert!(read_text("".as_bytes(), 4).unwrap().is_empty());
    }

    #[test]
    fn text_malformed_lines_name_the_line() {
        let e = text_err("0 1\n1 2 3\n", 4);
        assert!(matches!(e, TrafficError::MalformedLine { line: 2, .. }));
        assert_eq!(
            e.to_string(),
            "line 2: expected two processor ids `src dst`, found `1 2 3`"
        );
        assert!(matches!(
            text_err("# c\n\n7\n", 8),
            TrafficError::MalformedLine { line: 3, .. }
        ));
        assert!(matches!(
            text_err("0 -1\n", 8),
            TrafficError::MalformedLine { line: 1, .. }
        ));
        assert!(matches!(
            text_err("0 x\n", 8),
            TrafficError::MalformedLine { line: 1, .. }
        ));
        assert!(matches!(
            text_err("0,1\n", 8),
            TrafficError::MalformedLine { line: 1, .. }
        ));
        assert!(matches!(
            text_err("0 +1\n", 8),
            TrafficError::MalformedLine { line: 1, .. }
        ));
        let e = read_text(&b"0 1\n\xff\xfe 1\n"[..], 8).unwrap_err();
        assert!(matches!(
            e,
            TrafficError::MalformedLine {
                line: 2,
                expected: "UTF-8 text",
                ..
            }
        ));
        let long = format!("{}\n", "9 ".repeat(100));
        let e = text_err(&long, 8);
        let TrafficError::MalformedLine { text, .. } = &e else {
            panic!("{e}")
        };
        assert_eq!(text.chars().count(), 61);
        assert!(!e.to_string().contains('\n'));
    }

    #[test]
    fn text_out_of_range_names_line_and_id() {
        let e = text_err("0 1\n\n2 8\n", 8);
        assert!(matches!(
            e,
            TrafficError::LineProcessorOutOfRange {
                line: 3,
                processor: 8,
                processors: 8
            }
        ));
        assert_eq!(e.to_string(), "line 3: processor 8 out of range (n = 8)");
        assert!(matches!(
            text_err("99999999999999999999999 0\n", 8),
            TrafficError::LineProcessorOutOfRange {
                line: 1,
                processor: u64::MAX,
                ..
            }
        ));
        assert!(matches!(
            text_err("0 0\n", 0),
            TrafficError::TooFewProcessors { .. }
        ));
    }

    #[test]
    fn json_round_trip_and_layout() {
        let s = set(4, &[(0, 3), (3, 0), (1, 1)]);
        let mut out = Vec::new();
        write_json(&mut out, &s).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        assert_eq!(
            text,
            "{\"processors\": 4, \"messages\": [\n[0, 3],\n[3, 0],\n[1, 1]\n]}\n"
        );
        assert_eq!(read_json(&out[..]).unwrap(), s);
        // The serde form of MessageSet reads the same files.
        assert_eq!(serde_json::from_slice::<MessageSet>(&out).unwrap(), s);
        let empty = set(2, &[]);
        let mut out = Vec::new();
        write_json(&mut out, &empty).unwrap();
        assert_eq!(
            String::from_utf8(out.clone()).unwrap(),
            "{\"processors\": 2, \"messages\": []}\n"
        );
        assert_eq!(read_json(&out[..]).unwrap(), empty);
    }

    #[test]
    fn json_errors() {
        let e =
            read_json(r#"{"processors": 4, "messages": [[0, 1], [2, 4]]}"#.as_bytes()).unwrap_err();
        assert!(matches!(
            e,
            TrafficError::ProcessorOutOfRange {
                index: 1,
                processor: 4,
                processors: 4
            }
        ));
        let e =
            read_json("{\"processors\": 4,\n \"messages\": [[0, 1], [2]]}".as_bytes()).unwrap_err();
        assert!(matches!(e, TrafficError::Json { .. }));
        assert!(e.to_string().contains("line 2"), "{e}");
        for bad in [
            r#"{"processors": 4}"#,
            r#"{"messages": []}"#,
            r#"{"processors": -1, "messages": []}"#,
            r#"{"processors": 4, "messages": [[0, -1]]}"#,
            r#"{"processors": 4, "messages": [[0, 1, 2]]}"#,
            r#"{"processors": 4, "messages": [[0, 99999999999]]}"#,
            r#"{"processors": 4, "messages": [[0, 1]"#,
            r#"[[0, 1]]"#,
            "",
        ] {
            assert!(
                matches!(read_json(bad.as_bytes()), Err(TrafficError::Json { .. })),
                "{bad}"
            );
        }
        assert!(matches!(
            read_json(r#"{"processors": 0, "messages": []}"#.as_bytes()),
            Err(TrafficError::TooFewProcessors { .. })
        ));
        // Unknown fields are ignored.
        assert_eq!(
            read_json(
                r#"{"spec": "complement", "processors": 2, "messages": [[0, 1]]}"#.as_bytes()
            )
            .unwrap(),
            set(2, &[(0, 1)])
        );
    }

    #[test]
    fn detect_format() {
        assert_eq!(Format::detect(b"  \n\t{\"processors\""), Format::Json);
        assert_eq!(Format::detect(b"\xEF\xBB\xBF{"), Format::Json);
        assert_eq!(Format::detect(b"# {\n0 1"), Format::Text);
        assert_eq!(Format::detect(b""), Format::Text);
        assert_eq!(Format::detect(b"0 1\n"), Format::Text);
    }

    #[test]
    fn files_round_trip_and_errors_name_the_path() {
        let dir = std::env::temp_dir().join(format!("fatnet-traffic-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let s = set(8, &[(0, 7), (7, 0), (3, 3)]);
        for (name, format) in [("a.txt", Format::Text), ("a.json", Format::Json)] {
            let path = dir.join(name);
            write_file(&path, &s, format).unwrap();
            assert_eq!(read_file(&path, 8).unwrap(), s);
        }
        // JSON for another processor count.
        let e = read_file(dir.join("a.json"), 16).unwrap_err();
        let TrafficError::File { path, source } = &e else {
            panic!("{e}")
        };
        assert_eq!(path, &dir.join("a.json"));
        assert!(matches!(
            **source,
            TrafficError::ProcessorsMismatch {
                expected: 16,
                found: 8
            }
        ));
        // Text with an id out of range for the caller's count.
        let e = read_file(dir.join("a.txt"), 4).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("a.txt: line 2: processor 7 out of range (n = 4)"),
            "{e}"
        );
        // A missing file.
        let e = read_file(dir.join("missing.txt"), 4).unwrap_err();
        let TrafficError::File { source, .. } = &e else {
            panic!("{e}")
        };
        assert!(matches!(**source, TrafficError::Io { .. }));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A device is not read (it would be read forever), and one endless line is refused at
    /// its first kilobytes.
    #[test]
    fn files_and_lines_are_bounded() {
        let e = read_file("/dev/zero", 4).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        // 10 MB on one line, read from memory: refused after MAX_LINE_BYTES + 1 bytes.
        let long = "1".repeat(10_000_000);
        let e = read_text(long.as_bytes(), 4).unwrap_err();
        assert!(
            matches!(e, TrafficError::MalformedLine { line: 1, expected, .. } if expected.contains("4,096")),
            "{e}"
        );
        // A line of exactly MAX_LINE_BYTES (a pair padded with blanks) is read.
        let pad = format!("0 1{}\n", " ".repeat(MAX_LINE_BYTES - 4));
        assert_eq!(pad.len(), MAX_LINE_BYTES);
        assert_eq!(read_text(pad.as_bytes(), 4).unwrap().len(), 1);
    }
}
