//! Typed table cells: the values an experiment computed, formatted only when a table is
//! rendered (Markdown, CSV).
//!
//! **Key design decision: a cell holds values, not text.** `ours`, `paper` and the key
//! columns are [`Value`]s (an integer or count, a number with its printed precision, an
//! estimate with its half-width, sample size and confidence, an exact rational, text only
//! where the entry really is words, and a phrase, words with typed values among them, for a
//! claim's outcome with its numbers); the detail column is a [`Detail`], a sequence of literal
//! text and values, some of them labelled ([`field`]). A figure reads its points from these
//! values ([`Value::shown`], [`Detail::field`]), never by parsing the rendered text.
//!
//! **A figure plots what its table prints.** [`Value::shown`] is the value rounded to the
//! decimals the table prints (decimal rounding of the exact binary value, as `format!` does),
//! so a figure's CSV and the table it illustrates agree digit for digit. The unrounded value
//! is [`Value::exact`].

use std::fmt;

/// One value of a table cell.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// An integer or a count, printed in full.
    Int(i128),
    /// A number printed with a fixed number of decimals (`{:.d$}`).
    Fixed {
        /// The exact value.
        value: f64,
        /// Decimals printed.
        decimals: usize,
    },
    /// A signed difference printed with its sign and a fixed number of decimals (`{:+.d$}`).
    Signed {
        /// The exact value.
        value: f64,
        /// Decimals printed.
        decimals: usize,
    },
    /// A percentage printed with a fixed number of decimals and `%` (`{:.d$}%`); `value` is
    /// in percent.
    Percent {
        /// The value, in percent.
        value: f64,
        /// Decimals printed.
        decimals: usize,
    },
    /// A number printed in Rust's shortest round-trip form (`3`, `3.5`).
    Float(f64),
    /// A sample mean with its confidence interval; printed as the mean.
    Estimate(Estimate),
    /// An exact rational `numerator/denominator`, printed as such.
    Ratio {
        /// Numerator.
        numerator: u64,
        /// Denominator.
        denominator: u64,
    },
    /// A closed interval of numbers `[low, high]` (a pair of bounds), printed with a fixed
    /// number of decimals.
    Interval {
        /// Lower end.
        low: f64,
        /// Upper end.
        high: f64,
        /// Decimals printed.
        decimals: usize,
    },
    /// A range of integers `low–high` (a value known only between two bounds).
    Range {
        /// Lower end.
        low: i128,
        /// Upper end.
        high: i128,
    },
    /// A power `base^exponent`, printed as such (`2^10`, `4^3`).
    Power {
        /// The base.
        base: u32,
        /// The exponent.
        exponent: u32,
    },
    /// Words (a verdict of a claim, a routing, a name).
    Text(String),
    /// Words with values among them (a claim's outcome with the numbers that decide it),
    /// printed as the [`Detail`] is; its values stay typed ([`Detail::values`]).
    Phrase(Detail),
}

/// A sample mean with its confidence interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The mean.
    pub mean: f64,
    /// Half-width of the confidence interval (NaN when it is undefined, below 2 samples).
    pub half_width: f64,
    /// Sample size.
    pub n: u64,
    /// Confidence level in percent (95, 99).
    pub confidence: u8,
    /// Decimals printed.
    pub decimals: usize,
}

impl Estimate {
    /// The mean of `s` with its Student-t 95% interval, printed with `decimals` decimals.
    pub fn student95(s: &crate::runner::Summary, decimals: usize) -> Estimate {
        let mean = s.mean.unwrap_or(f64::NAN);
        Estimate {
            mean,
            half_width: s.ci95_high.map_or(f64::NAN, |h| h - mean),
            n: s.n,
            confidence: 95,
            decimals,
        }
    }

    /// A mean with a `confidence`% interval of half-width `half_width`, printed with
    /// `decimals` decimals.
    pub fn new(mean: f64, half_width: f64, n: u64, confidence: u8, decimals: usize) -> Estimate {
        Estimate {
            mean,
            half_width,
            n,
            confidence,
            decimals,
        }
    }

    /// `99% CI [low, high]`, the ends printed with the estimate's decimals.
    pub fn interval(&self) -> Detail {
        crate::detail![
            Value::Int(i128::from(self.confidence)),
            "% CI [",
            fixed(self.low(), self.decimals),
            ", ",
            fixed(self.high(), self.decimals),
            "]",
        ]
    }

    /// Lower end of the interval.
    pub fn low(&self) -> f64 {
        self.mean - self.half_width
    }

    /// Upper end of the interval.
    pub fn high(&self) -> f64 {
        self.mean + self.half_width
    }
}

/// The number `value` rounded to `decimals` decimals exactly as `{:.decimals$}` prints it.
fn rounded(value: f64, decimals: usize) -> f64 {
    if !value.is_finite() {
        return value;
    }
    // Decimal rounding of the exact binary value: the formatter is the reference, and the
    // nearest double to its output is the number a reader of the table sees.
    format!("{value:.decimals$}").parse().unwrap_or(f64::NAN)
}

impl Value {
    /// Text.
    pub fn text(s: impl Into<String>) -> Value {
        Value::Text(s.into())
    }

    /// The number as the table prints it (rounded to its printed decimals), or `None` for
    /// text. Figures plot this, so that they show exactly the table's numbers.
    pub fn shown(&self) -> Option<f64> {
        match *self {
            Value::Int(v) => Some(v as f64),
            Value::Fixed { value, decimals }
            | Value::Signed { value, decimals }
            | Value::Percent { value, decimals } => Some(rounded(value, decimals)),
            Value::Float(v) => Some(v),
            Value::Estimate(e) => Some(rounded(e.mean, e.decimals)),
            Value::Ratio {
                numerator,
                denominator,
            } => Some(numerator as f64 / denominator as f64),
            Value::Power { base, exponent } => Some(f64::from(base).powi(exponent as i32)),
            Value::Range { .. } | Value::Interval { .. } | Value::Text(_) | Value::Phrase(_) => {
                None
            }
        }
    }

    /// The unrounded number, or `None` for text.
    pub fn exact(&self) -> Option<f64> {
        match *self {
            Value::Int(v) => Some(v as f64),
            Value::Fixed { value, .. }
            | Value::Signed { value, .. }
            | Value::Percent { value, .. }
            | Value::Float(value) => Some(value),
            Value::Estimate(e) => Some(e.mean),
            Value::Ratio {
                numerator,
                denominator,
            } => Some(numerator as f64 / denominator as f64),
            Value::Power { base, exponent } => Some(f64::from(base).powi(exponent as i32)),
            Value::Range { .. } | Value::Interval { .. } | Value::Text(_) | Value::Phrase(_) => {
                None
            }
        }
    }

    /// The estimate, if this is one.
    pub fn estimate(&self) -> Option<&Estimate> {
        match self {
            Value::Estimate(e) => Some(e),
            _ => None,
        }
    }

    /// The text, if this is text.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Fixed { value, decimals } => write!(f, "{value:.decimals$}"),
            Value::Signed { value, decimals } => write!(f, "{value:+.decimals$}"),
            Value::Percent { value, decimals } => write!(f, "{value:.decimals$}%"),
            Value::Float(v) => write!(f, "{v}"),
            Value::Estimate(e) => write!(f, "{:.d$}", e.mean, d = e.decimals),
            Value::Ratio {
                numerator,
                denominator,
            } => write!(f, "{numerator}/{denominator}"),
            Value::Power { base, exponent } => write!(f, "{base}^{exponent}"),
            Value::Range { low, high } => write!(f, "{low}–{high}"),
            Value::Interval {
                low,
                high,
                decimals,
            } => write!(f, "[{low:.decimals$}, {high:.decimals$}]"),
            Value::Text(s) => f.write_str(s),
            Value::Phrase(d) => write!(f, "{d}"),
        }
    }
}

/// Key columns compare with their printed form: `cell.key[0] == "0.3"`.
impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        match self {
            Value::Text(s) => s == other,
            v => {
                let printed = v.to_string();
                printed == other
            }
        }
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq<String> for Value {
    fn eq(&self, other: &String) -> bool {
        *self == *other.as_str()
    }
}

macro_rules! int_value {
    ($($t:ty),*) => {$(
        impl From<$t> for Value {
            fn from(v: $t) -> Value {
                Value::Int(i128::from(v))
            }
        }
    )*};
}
int_value!(u8, u16, u32, u64, i32, i64);

impl From<usize> for Value {
    fn from(v: usize) -> Value {
        Value::Int(v as i128)
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Text(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Text(s)
    }
}

impl From<Detail> for Value {
    fn from(d: Detail) -> Value {
        Value::Phrase(d)
    }
}

impl From<Estimate> for Value {
    fn from(e: Estimate) -> Value {
        Value::Estimate(e)
    }
}

/// `value` with `decimals` decimals.
pub fn fixed(value: f64, decimals: usize) -> Value {
    Value::Fixed { value, decimals }
}

/// `value` with its sign and `decimals` decimals.
pub fn signed(value: f64, decimals: usize) -> Value {
    Value::Signed { value, decimals }
}

/// `value` in the shortest form that reads back exactly.
pub fn float(value: f64) -> Value {
    Value::Float(value)
}

/// The interval `[low, high]`, `decimals` decimals.
pub fn interval(low: f64, high: f64, decimals: usize) -> Value {
    Value::Interval {
        low,
        high,
        decimals,
    }
}

/// The integers `low–high`.
pub fn range(low: impl Into<i128>, high: impl Into<i128>) -> Value {
    Value::Range {
        low: low.into(),
        high: high.into(),
    }
}

/// `base^exponent`.
pub fn power(base: u32, exponent: u32) -> Value {
    Value::Power { base, exponent }
}

/// An integer or count.
pub fn int(value: impl Into<Value>) -> Value {
    value.into()
}

/// One piece of a [`Detail`].
#[derive(Clone, Debug, PartialEq)]
pub enum Part {
    /// Literal text.
    Text(String),
    /// A value.
    Value(Value),
    /// A labelled value, printed `label = value`, found by [`Detail::field`].
    Field {
        /// The label.
        label: String,
        /// The value.
        value: Value,
    },
}

/// `label = value`: a value of a [`Detail`] that figures and tests look up by its label.
pub fn field(label: impl Into<String>, value: impl Into<Value>) -> Part {
    Part::Field {
        label: label.into(),
        value: value.into(),
    }
}

impl From<&str> for Part {
    fn from(s: &str) -> Part {
        Part::Text(s.to_string())
    }
}

impl From<String> for Part {
    fn from(s: String) -> Part {
        Part::Text(s)
    }
}

impl From<&String> for Part {
    fn from(s: &String) -> Part {
        Part::Text(s.clone())
    }
}

macro_rules! int_part {
    ($($t:ty),*) => {$(
        impl From<$t> for Part {
            fn from(v: $t) -> Part {
                Part::Value(Value::from(v))
            }
        }
    )*};
}
int_part!(u8, u16, u32, u64, usize, i32, i64);

impl From<Value> for Part {
    fn from(v: Value) -> Part {
        Part::Value(v)
    }
}

/// The detail column of a cell: how our value was obtained or cross-checked, as text and
/// values, concatenated when rendered.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detail(pub Vec<Part>);

impl Detail {
    /// An empty detail.
    pub fn new() -> Detail {
        Detail(Vec::new())
    }

    /// Appends a part.
    pub fn push(&mut self, part: impl Into<Part>) -> &mut Self {
        self.0.push(part.into());
        self
    }

    /// Appends the parts of `other`.
    pub fn append(&mut self, other: Detail) -> &mut Self {
        self.0.extend(other.0);
        self
    }

    /// The value labelled `label` ([`field`]), if any.
    pub fn field(&self, label: &str) -> Option<&Value> {
        self.0.iter().find_map(|p| match p {
            Part::Field { label: l, value } if l == label => Some(value),
            _ => None,
        })
    }

    /// Every value, labelled or not, in order.
    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.0.iter().filter_map(|p| match p {
            Part::Value(v) | Part::Field { value: v, .. } => Some(v),
            Part::Text(_) => None,
        })
    }

    /// Whether the detail is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Parts joined by `separator`, each part one detail.
    pub fn join(details: impl IntoIterator<Item = Detail>, separator: &str) -> Detail {
        let mut out = Detail::new();
        for (i, d) in details.into_iter().enumerate() {
            if i > 0 {
                out.push(separator);
            }
            out.append(d);
        }
        out
    }
}

impl fmt::Display for Detail {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.0 {
            match p {
                Part::Text(s) => f.write_str(s)?,
                Part::Value(v) => write!(f, "{v}")?,
                Part::Field { label, value } => write!(f, "{label} = {value}")?,
            }
        }
        Ok(())
    }
}

impl From<&str> for Detail {
    fn from(s: &str) -> Detail {
        Detail(vec![Part::from(s)])
    }
}

impl From<String> for Detail {
    fn from(s: String) -> Detail {
        Detail(vec![Part::Text(s)])
    }
}

impl From<Part> for Detail {
    fn from(p: Part) -> Detail {
        Detail(vec![p])
    }
}

impl From<Value> for Detail {
    fn from(v: Value) -> Detail {
        Detail(vec![Part::Value(v)])
    }
}

/// A [`Detail`] from parts: `detail!["λ = ", fixed(l, 3), ", ", field("cycles/λ", fixed(r, 2))]`.
/// Each item is anything that converts into a [`Part`] (text, a [`Value`], a [`field`]) or,
/// written `..d`, a whole [`Detail`] spliced in.
#[macro_export]
macro_rules! detail {
    (@acc $d:ident;) => {};
    (@acc $d:ident; .. $e:expr $(, $($rest:tt)*)?) => {
        $d.append($e);
        $crate::detail!(@acc $d; $($($rest)*)?);
    };
    (@acc $d:ident; $e:expr $(, $($rest:tt)*)?) => {
        $d.push($e);
        $crate::detail!(@acc $d; $($($rest)*)?);
    };
    ($($items:tt)*) => {{
        #[allow(unused_mut)]
        let mut d = $crate::Detail::new();
        $crate::detail!(@acc d; $($items)*);
        d
    }};
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_print_as_the_tables_did_and_show_the_printed_number() {
        assert_eq!(fixed(2.345, 2).to_string(), format!("{:.2}", 2.345));
        assert_eq!(signed(1.25, 1).to_string(), "+1.2");
        assert_eq!(signed(-0.5, 2).to_string(), "-0.50");
        assert_eq!(float(3.0).to_string(), "3");
        assert_eq!(int(42u64).to_string(), "42");
        assert_eq!(
            (power(4, 3).to_string(), power(4, 3).shown()),
            ("4^3".into(), Some(64.0))
        );
        let e = Estimate {
            mean: 110.25,
            half_width: 2.0,
            n: 4,
            confidence: 99,
            decimals: 1,
        };
        assert_eq!(Value::from(e).to_string(), "110.2");
        // A figure sees the printed number, not the exact one.
        assert_eq!(Value::from(e).shown(), Some(110.2));
        assert_eq!(Value::from(e).exact(), Some(110.25));
        assert_eq!(fixed(2.0 / 3.0, 3).shown(), Some(0.667));
        assert_eq!(fixed(f64::NAN, 3).shown().map(f64::is_nan), Some(true));
        assert_eq!(Value::text("holds").shown(), None);
        assert!(Value::from(16u32) == "16");
        assert!(fixed(0.3, 1) == "0.3");
    }

    #[test]
    fn details_render_in_order_and_find_their_fields() {
        let d = detail![
            "λ = ",
            fixed(0.5, 3),
            ", ",
            field("cycles/λ", fixed(2.5, 2)),
            ..detail!["; ", int(7u32)]
        ];
        assert_eq!(d.to_string(), "λ = 0.500, cycles/λ = 2.50; 7");
        assert_eq!(d.field("cycles/λ").and_then(Value::shown), Some(2.5));
        assert_eq!(d.field("λ"), None);
        assert_eq!(d.values().count(), 3);
        // A phrase prints as its detail and keeps its values typed; it is no number.
        let phrase = Value::from(detail!["slope ", fixed(0.12345, 4), " vs ", fixed(0.2, 4)]);
        assert_eq!(phrase.to_string(), "slope 0.1235 vs 0.2000");
        assert_eq!((phrase.shown(), phrase.exact()), (None, None));
        assert!(phrase == "slope 0.1235 vs 0.2000");
        let Value::Phrase(parts) = &phrase else {
            panic!("a phrase")
        };
        let exact: Vec<f64> = parts.values().filter_map(Value::exact).collect();
        assert_eq!(exact, [0.12345, 0.2]);
        assert_eq!(
            Detail::join([detail!["a"], detail!["b"]], ", ").to_string(),
            "a, b"
        );
    }
}
