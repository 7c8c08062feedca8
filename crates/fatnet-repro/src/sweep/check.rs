//! One `[params]` or `[zip]` entry of a sweep file, checked on its own.
//!
//! Owns [`ParamValue`] (a value as written, and as a record repeats it) and the checks of a
//! single key and its values: is the key a parameter of some kind of sweep (and of this one),
//! is each value of the right TOML type, is a choice one of the library's names, does a
//! topology or traffic spec parse. It does not check combinations of values, ranges or
//! defaults: those are the scenario's (`fatnet_scenario`'s typed options, applied per point in
//! `job`), and the file's top level (kind, trials, seed, zip lengths) is `spec`'s.

use fatnet::offline::leiserson::{FictitiousCapacity, Scheduler};
use fatnet::online::packet::{FlowControl, PathPolicy, Queueing, ScanOrder, SinkModel};
use fatnet::online::{
    Arrivals, BroadcastScheme, DropPolicy, DynamicRouter, RandomPreset, RouterKind,
};
use fatnet::scenario::Network;
use fatnet::traffic::TrafficSpec;
use serde::{Deserialize, Serialize};
use toml::Spanned;
use toml::de::DeValue;

use super::SweepKind;
use super::problem::{Problems, SweepProblemKind, line_of};

/// A parameter value as written in the sweep file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValue {
    /// An integer.
    Int(u64),
    /// A real number (`rate`, `p`), finite; an integer written for one is stored as a float.
    Float(f64),
    /// A string.
    Str(String),
    /// A flag (`interleave`, `out_the_root`).
    Bool(bool),
}

impl std::fmt::Display for ParamValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Str(s) => write!(f, "{s}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// A non-negative integer value, if `value` is one.
pub(super) fn as_u64(value: &DeValue<'_>) -> Option<u64> {
    value
        .as_integer()
        .and_then(|i| u64::from_str_radix(i.as_str(), i.radix()).ok())
}

/// A parameter value checked on its own, with its line.
#[derive(Clone, Debug)]
pub(super) struct Value {
    pub(super) value: ParamValue,
    pub(super) line: usize,
}

/// A TOML integer or float as an `f64`.
fn as_f64(value: &DeValue<'_>) -> Option<f64> {
    if let Some(i) = value.as_integer() {
        return i64::from_str_radix(i.as_str(), i.radix())
            .ok()
            .map(|i| i as f64);
    }
    value.as_float()?.as_str().parse().ok()
}

/// Checks one value of parameter `key` on its own (type and range); `kind` picks the choices
/// of a key two kinds share (`router`), and is `None` when the sweep's kind is unknown.
fn check_value(
    key: &str,
    v: &Spanned<DeValue<'_>>,
    kind: Option<SweepKind>,
    problems: &mut Problems<'_>,
) -> Option<Value> {
    let span = v.span();
    let line = line_of(problems.source, span.start);
    let bad = |value: String, reason: &str| SweepProblemKind::BadValue {
        key: format!("params.{key}"),
        value,
        reason: reason.to_string(),
    };
    let choices: Option<&[&str]> = match key {
        "queueing" => Some(Queueing::NAMES),
        "flow" => Some(FlowControl::NAMES),
        "path" => Some(PathPolicy::NAMES),
        "scan" => Some(ScanOrder::NAMES),
        "sink" => Some(SinkModel::NAMES),
        "router" => Some(match kind {
            Some(SweepKind::Dynamic) => DynamicRouter::NAMES,
            Some(_) | None => RouterKind::NAMES,
        }),
        "arrivals" => Some(Arrivals::NAMES),
        "broadcast" => Some(BroadcastScheme::NAMES),
        "policy" => Some(DropPolicy::NAMES),
        "preset" => Some(RandomPreset::NAMES),
        "algorithm" => Some(Scheduler::NAMES),
        "fictitious" => Some(FictitiousCapacity::NAMES),
        _ => None,
    };
    let wrong = |expected| SweepProblemKind::WrongType {
        key: format!("params.{key}"),
        expected,
    };
    let value = match key {
        "topology" | "traffic" => {
            let Some(s) = v.get_ref().as_str() else {
                problems.at(span, wrong("a string (a spec)"));
                return None;
            };
            let parsed = if key == "topology" {
                s.parse::<Network>().err().map(|e| e.to_string())
            } else {
                s.parse::<TrafficSpec>().err().map(|e| e.to_string())
            };
            if let Some(reason) = parsed {
                problems.at(span, bad(s.to_string(), &reason));
                return None;
            }
            ParamValue::Str(s.to_string())
        }
        "queue" => match (as_u64(v.get_ref()), v.get_ref().as_str()) {
            (Some(q), _) if q >= 1 && u32::try_from(q).is_ok() => ParamValue::Int(q),
            (_, Some("unbounded")) => ParamValue::Str("unbounded".into()),
            _ => {
                problems.at(span, wrong("an integer >= 1 or \"unbounded\""));
                return None;
            }
        },
        "interleave" | "out_the_root" => match v.get_ref().as_bool() {
            Some(b) => ParamValue::Bool(b),
            None => {
                problems.at(span, wrong("true or false"));
                return None;
            }
        },
        "k1" | "k2" | "r" => match as_f64(v.get_ref()) {
            Some(x) => ParamValue::Float(x),
            None => {
                problems.at(span, wrong("a number"));
                return None;
            }
        },
        // Ranges and defaults are the scenario's (`DynamicOptions::resolve`).
        "rate" | "p" | "slots" | "warmup" => match (as_u64(v.get_ref()), as_f64(v.get_ref())) {
            // Whole slots stay integers, as written.
            (Some(n), _) if matches!(key, "slots" | "warmup") => ParamValue::Int(n),
            (_, Some(x)) => ParamValue::Float(x),
            (_, None) => {
                problems.at(span, wrong("a number"));
                return None;
            }
        },
        // Ranges are the scenario's (each point's options are resolved as the command resolves
        // them, and a refusal names the parameter's line).
        "flits" | "delay" | "priority_range" | "max_steps" | "max_cycles" | "k" | "batches" => {
            let Some(n) = as_u64(v.get_ref()) else {
                problems.at(span, wrong("a non-negative integer"));
                return None;
            };
            ParamValue::Int(n)
        }
        _ => {
            let choices = choices.expect("every parameter is handled");
            let Some(s) = v.get_ref().as_str() else {
                problems.at(span, wrong("a string"));
                return None;
            };
            if !choices.contains(&s) {
                let reason = format!("expected one of {}", choices.join(", "));
                problems.at(span, bad(s.to_string(), &reason));
                return None;
            }
            ParamValue::Str(s.to_string())
        }
    };
    Some(Value { value, line })
}

/// The values of a `[params]` or `[zip]` entry: a list, or (in `[params]`) one scalar. With
/// `kind` unknown (a bad or missing `simulator`), any simulator's or scheduler's key is taken.
pub(super) fn check_entry(
    table: &str,
    key: &Spanned<std::borrow::Cow<'_, str>>,
    value: &Spanned<DeValue<'_>>,
    kind: Option<SweepKind>,
    problems: &mut Problems<'_>,
) -> Option<Vec<Value>> {
    let name = key.get_ref().as_ref();
    let known = SweepKind::ALL.iter().any(|k| k.params().contains(&name));
    if !known {
        problems.at(
            key.span(),
            SweepProblemKind::UnknownKey {
                key: format!("{table}.{name}"),
            },
        );
        return None;
    }
    if let Some(kind) = kind
        && !kind.params().contains(&name)
    {
        problems.at(
            key.span(),
            SweepProblemKind::NotForKind {
                key: format!("{table}.{name}"),
                kind: kind.to_string(),
            },
        );
        return None;
    }
    match value.get_ref() {
        DeValue::Array(items) => {
            if items.is_empty() {
                problems.at(
                    value.span(),
                    SweepProblemKind::EmptyList {
                        key: format!("{table}.{name}"),
                    },
                );
                return None;
            }
            let checked: Vec<Option<Value>> = items
                .iter()
                .map(|item| check_value(name, item, kind, problems))
                .collect();
            checked.into_iter().collect()
        }
        _ if table == "zip" => {
            problems.at(
                value.span(),
                SweepProblemKind::WrongType {
                    key: format!("zip.{name}"),
                    expected: "a list",
                },
            );
            None
        }
        _ => check_value(name, value, kind, problems).map(|v| vec![v]),
    }
}
