//! One name per option: the enums users choose from on the command line, in config and sweep
//! files and in JSON output are named once, by [`named_options!`](crate::named_options).
//!
//! **Key design decision: a name is declared once, beside its variant.** The macro generates
//! `name()`, `Display`, `FromStr` (with an [`UnknownName`] error listing every accepted name),
//! serde (the name as a string, in both directions) and, when the crate that expands it has
//! a `clap` feature and it is on, `clap::ValueEnum` (so `--help` lists the names with the
//! first paragraph of each variant's documentation, rustdoc links shown as plain text:
//! [`option_help`]). Front ends therefore never mirror a library
//! enum: they parse into it.

use thiserror::Error;

/// A name that is not one of an option's names.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown {what} `{given}`: expected one of {}", expected.join(", "))]
pub struct UnknownName {
    /// What was being named (`flow control`, `path policy`, ...).
    pub what: &'static str,
    /// The text given, with control characters escaped.
    pub given: String,
    /// Every accepted name.
    pub expected: &'static [&'static str],
}

impl UnknownName {
    /// The error for `given`, escaped so that it prints on one line.
    pub fn new(what: &'static str, given: &str, expected: &'static [&'static str]) -> Self {
        Self {
            what,
            given: given.escape_debug().to_string(),
            expected,
        }
    }
}

/// The `--help` text of an option's value: the first paragraph of its documentation (`lines`,
/// one doc attribute each, up to the first blank one) on one line, with rustdoc links shown as
/// their text (`` [`RandomRouter`] `` and `` [the proof](crate::x) `` become `` `RandomRouter` ``
/// and `the proof`).
///
/// ```
/// use fatnet_topology::option_help;
/// let doc = [" Greedy concentrator ([`Greedy`]): the", " first `cap(c)` win.", "", " More."];
/// assert_eq!(option_help(&doc), "Greedy concentrator (`Greedy`): the first `cap(c)` win.");
/// ```
pub fn option_help(lines: &[&str]) -> String {
    let paragraph: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .take_while(|l| !l.is_empty())
        .collect();
    let text = paragraph.join(" ");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find(']') {
            Some(close) => {
                out.push_str(&after[..close]);
                rest = &after[close + 1..];
                // An inline link's target, `(...)`, is dropped.
                if rest.starts_with('(')
                    && let Some(end) = rest.find(')')
                {
                    rest = &rest[end + 1..];
                }
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Declares an enum of unit variants with one user-facing name per variant.
///
/// ```
/// fatnet_topology::named_options! {
///     /// How a thing is done.
///     pub enum Mode("mode") {
///         /// Quickly.
///         Fast = "fast",
///         /// Carefully.
///         Slow = "slow",
///     }
/// }
/// assert_eq!("fast".parse::<Mode>(), Ok(Mode::Fast));
/// assert_eq!(Mode::Slow.to_string(), "slow");
/// assert_eq!(
///     "quick".parse::<Mode>().unwrap_err().to_string(),
///     "unknown mode `quick`: expected one of fast, slow"
/// );
/// ```
///
/// The crate that expands it needs `serde` as a dependency, and `clap` behind a feature named
/// `clap` if it wants `clap::ValueEnum`.
#[macro_export]
macro_rules! named_options {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident($what:literal) {
            $(
                #[doc = $doc:literal]
                $(#[doc = $more:literal])*
                $variant:ident = $text:literal
            ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $(
                #[doc = $doc]
                $(#[doc = $more])*
                $variant
            ),+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];
            /// Every name, in declaration order.
            pub const NAMES: &'static [&'static str] = &[$($text),+];

            /// The user-facing name (command line, files, JSON).
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl ::core::fmt::Display for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::core::str::FromStr for $name {
            type Err = $crate::UnknownName;
            fn from_str(s: &str) -> ::core::result::Result<Self, Self::Err> {
                match s {
                    $($text => Ok($name::$variant),)+
                    _ => Err($crate::UnknownName::new($what, s, Self::NAMES)),
                }
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(&self, s: S) -> ::core::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(d: D) -> ::core::result::Result<Self, D::Error> {
                struct V;
                impl ::serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                        write!(f, "a {}: one of {}", $what, $name::NAMES.join(", "))
                    }
                    fn visit_str<E: ::serde::de::Error>(self, v: &str) -> ::core::result::Result<$name, E> {
                        v.parse().map_err(E::custom)
                    }
                }
                d.deserialize_str(V)
            }
        }

        #[cfg(feature = "clap")]
        impl ::clap::ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] {
                Self::ALL
            }
            fn to_possible_value(&self) -> Option<::clap::builder::PossibleValue> {
                Some(match self {
                    $($name::$variant => ::clap::builder::PossibleValue::new($text)
                        .help($crate::option_help(&[$doc, $($more),*])),)+
                })
            }
        }
    };
}

#[cfg(test)]
mod tests {
    crate::named_options! {
        /// A test option.
        pub enum Colour("colour") {
            /// Red.
            Red = "red",
            /// Green,
            /// over two lines.
            Green = "green",
        }
    }

    #[test]
    fn names_round_trip_through_text_and_serde() {
        for &c in Colour::ALL {
            assert_eq!(c.to_string().parse::<Colour>(), Ok(c));
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.name()));
            assert_eq!(serde_json::from_str::<Colour>(&json).unwrap(), c);
        }
    }

    #[test]
    fn an_unknown_name_lists_the_names_and_escapes_the_input() {
        let e = "bl\u{1b}ue".parse::<Colour>().unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown colour `bl\\u{1b}ue`: expected one of red, green"
        );
        let e = serde_json::from_str::<Colour>("\"blue\"").unwrap_err();
        assert!(e.to_string().contains("expected one of red, green"), "{e}");
    }
}
