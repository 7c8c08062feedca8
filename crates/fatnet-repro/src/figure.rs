//! Generated figures: a line-and-marker plot written as a self-contained SVG, and the CSV of
//! the points it draws.
//!
//! **Why the SVG is written by hand and not with `plotters`.** `plotters` (SVG backend,
//! `default-features = false`) builds here, but without one of its font features (`ttf`, which
//! pulls font-kit and fontconfig, or `ab_glyph`, which needs a font file) it lays out text with
//! a rough per-character estimate, its logarithmic axes label powers of ten, not of two, and it
//! rounds coordinates to whole pixels in a format the project does not control. A figure here is
//! a handful of series of a few points each, so a ~150-line writer with fixed-precision numbers,
//! a fixed palette and no timestamp gives byte-identical output with no new dependency.
//!
//! The figure's data must be the numbers of the table it illustrates: experiments build their
//! figures from the typed values of their own [`Table`](crate::Table) cells
//! ([`Value::shown`](crate::Value::shown), [`Detail::field`](crate::Detail::field)), never from
//! the rendered text, and the CSV written next to the SVG lists exactly the plotted points.
//!
//! **A missing point never vanishes silently.** A point whose value is missing (the cell has no
//! number there) or non-finite is built as NaN ([`point`]); it is listed in the CSV like any
//! other point, and the SVG, which cannot draw it, names it in a visible note under the plot
//! ("not drawn: …").
//!
//! **Layout.** The plot area is always 420 × 340 px; the canvas is 720 × 440 px unless the
//! legend, right of the plot, needs more: the canvas then grows to the right to fit the longest
//! legend entry (its width estimated per character by [`text_width`], generously, as the
//! viewer's font is unknown) and downwards to fit every entry, so no legend entry is ever cut.
//!
//! **Lines or markers.** A numeric horizontal axis joins each series' points with a line; a
//! categorical one ([`Figure::x_categories`]) has no order between its values, so its series
//! are drawn as markers (with their error bars) only, and their legend entries show the marker
//! alone.
//!
//! **Logarithmic axes** ([`Figure::log_x`], [`Figure::log_y`]) are base 2: ticks at powers of
//! two labelled `2^k` (every power, or every second, fourth, … power when there would be more
//! than 12 ticks). A point with a coordinate ≤ 0 on a logarithmic axis cannot be drawn: it is
//! listed in the CSV and named in the note, like a missing point. On a logarithmic vertical
//! axis an error bar reaching 0 or below is drawn down to the bottom of the plot, without its
//! lower cap.

use std::fmt::Write as _;

use crate::ReproError;

/// One line of a figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// Legend entry.
    pub name: String,
    /// The points `(x, y)`, in drawing order. Non-finite points (and, on a logarithmic axis,
    /// `x ≤ 0`) are listed in the CSV and named in the SVG's "not drawn" note.
    pub points: Vec<(f64, f64)>,
}

/// A line-and-marker plot. `Figure { id, title, .., ..Figure::default() }` leaves out the
/// error bars and the categorical axis (and a logarithmic axis).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figure {
    /// File stem, under the experiment's folder: `docs/reproduction/<paper>/<table>/<id>.svg`.
    pub id: &'static str,
    /// Title, printed above the plot.
    pub title: String,
    /// Label of the horizontal axis.
    pub x_label: String,
    /// Label of the vertical axis.
    pub y_label: String,
    /// The lines.
    pub series: Vec<Series>,
    /// Logarithmic horizontal axis, base 2 (ticks at powers of two, labelled `2^k`).
    pub log_x: bool,
    /// Logarithmic vertical axis, base 2 (ticks at powers of two, labelled `2^k`).
    pub log_y: bool,
    /// Vertical error bars, drawn as capped whiskers in their series' colour; empty for none.
    pub error_bars: Vec<ErrorBar>,
    /// A categorical horizontal axis: the point at `x = i` is labelled `x_categories[i]`
    /// (`i` from 0); empty for a numeric axis. Ignores [`Figure::log_x`].
    pub x_categories: Vec<String>,
}

/// One vertical error bar of a [`Figure`]: from `low` to `high` at `x`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorBar {
    /// Index of its series in [`Figure::series`] (gives its colour).
    pub series: usize,
    /// Horizontal position, as the series' points.
    pub x: f64,
    /// Lower end.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 440.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 230.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
/// Legend: gap between the plot and the legend's sample line, the sample's width plus the gap
/// to its text, a margin right of the longest text, and the spacing of entries.
const LEGEND_GAP: f64 = 15.0;
const LEGEND_SAMPLE: f64 = 30.0;
const LEGEND_MARGIN: f64 = 10.0;
const LEGEND_STEP: f64 = 20.0;
/// Font size of the legend and of the tick labels.
const FONT_SIZE: f64 = 12.0;
/// At most this many ticks on a logarithmic axis (more are thinned to every 2nd, 4th, … power).
const MAX_LOG_TICKS: usize = 12;
const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

/// An upper estimate of the width of `text` in a sans-serif font of `font_size` px: per
/// character, its width in Helvetica/Arial rounded up (narrow letters and punctuation 0.3–0.4
/// em, most lower-case letters and digits 0.56 em, capitals 0.78 em, `m`, `w`, `M`, `W` 0.95
/// em), and 1 em for any non-ASCII character (Greek letters, dashes, CJK).
pub fn text_width(text: &str, font_size: f64) -> f64 {
    let em: f64 = text
        .chars()
        .map(|c| match c {
            'i' | 'j' | 'l' | '\'' | '|' | '.' | ',' | ':' | ';' | '!' => 0.3,
            'f' | 't' | 'r' | 'I' | ' ' | '(' | ')' | '[' | ']' | '{' | '}' | '-' | '/' => 0.4,
            'm' | 'w' | 'M' | 'W' | '@' | '%' => 0.95,
            'A'..='Z' => 0.78,
            c if c.is_ascii() => 0.6,
            _ => 1.0,
        })
        .sum();
    em * font_size
}

/// A number with two decimals, never `-0.00`.
fn num(v: f64) -> String {
    let s = format!("{v:.2}");
    if s == "-0.00" { "0.00".into() } else { s }
}

/// A tick label with `decimals` decimals, never `-0`.
fn tick(v: f64, decimals: usize) -> String {
    format!("{:.decimals$}", v + 0.0)
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A step of 1, 2 or 5 times a power of ten giving about five intervals over `span`.
fn nice_step(span: f64) -> f64 {
    let raw = if span > 0.0 { span / 5.0 } else { 1.0 };
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    mag * if f < 1.5 {
        1.0
    } else if f < 3.0 {
        2.0
    } else if f < 7.0 {
        5.0
    } else {
        10.0
    }
}

/// Linear ticks covering `[lo, hi]`: (range low, range high, ticks, decimals of the labels).
fn linear_ticks(lo: f64, hi: f64) -> (f64, f64, Vec<f64>, usize) {
    let step = nice_step(hi - lo);
    let a = (lo / step).floor();
    let b = (hi / step).ceil().max(a + 1.0);
    let ticks = (0..=((b - a) as i64))
        .map(|i| (a + i as f64) * step)
        .collect();
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    (a * step, b * step, ticks, decimals)
}

/// Integer exponents covering `[lo, hi]` (in log2 units), thinned to at most
/// [`MAX_LOG_TICKS`] ticks: (range low, range high, ticks).
fn log_ticks(lo: f64, hi: f64) -> (f64, f64, Vec<f64>) {
    let (a, b) = (lo.floor(), hi.ceil().max(lo.floor() + 1.0));
    let mut every = 1i64;
    while (b - a) as i64 / every + 1 > MAX_LOG_TICKS as i64 {
        every *= 2;
    }
    let a = (a as i64).div_euclid(every) * every;
    let b = -((-(b as i64)).div_euclid(every)) * every;
    let ticks = (0..=(b - a) / every)
        .map(|i| (a + i * every) as f64)
        .collect();
    (a as f64, b as f64, ticks)
}

/// `2^k` as SVG text (the exponent raised and smaller).
fn power_of_two(k: f64) -> String {
    format!("2<tspan dy=\"-5\" font-size=\"9\">{}</tspan>", k as i64)
}

impl Figure {
    /// Whether the horizontal axis is logarithmic (never for a categorical axis).
    fn is_log_x(&self) -> bool {
        self.log_x && self.x_categories.is_empty()
    }

    /// Whether `(x, y)` can be drawn: finite, and positive on a logarithmic axis.
    fn drawable(&self, (x, y): (f64, f64)) -> bool {
        x.is_finite() && y.is_finite() && (!self.is_log_x() || x > 0.0) && (!self.log_y || y > 0.0)
    }

    /// Every drawable point: the series' points and the error bars' ends.
    fn finite_points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .chain(
                self.error_bars
                    .iter()
                    .flat_map(|b| [(b.x, b.low), (b.x, b.high)]),
            )
            .filter(|&p| self.drawable(p))
    }

    /// The figure as a self-contained SVG: axes, ticks, labels, legend, and the command and
    /// seed that made it (in `<desc>`; the leading comment repeats the seed, but cannot hold
    /// the command because XML forbids `--` inside comments). No timestamp: the output is a
    /// function of the figure's data.
    pub fn to_svg(&self, command: &str, seed: Option<u64>) -> String {
        let log_x = self.is_log_x();
        let log_y = self.log_y;
        let categorical = !self.x_categories.is_empty();
        let tx = |x: f64| if log_x { x.log2() } else { x };
        let ty = |y: f64| if log_y { y.log2() } else { y };
        let pts: Vec<(f64, f64)> = self.finite_points().map(|(x, y)| (tx(x), ty(y))).collect();
        let (xmin, xmax) = pts
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.0), b.max(p.0))
            });
        // A linear vertical axis always shows 0; a logarithmic one cannot.
        let y_start = if log_y { f64::INFINITY } else { 0.0 };
        let (ymin, ymax) = pts.iter().fold((y_start, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
        let (xmin, xmax) = if pts.is_empty() {
            (0.0, 1.0)
        } else {
            (xmin, xmax)
        };
        let (ymin, ymax) = if pts.is_empty() {
            (0.0, 1.0)
        } else {
            (ymin, ymax)
        };
        let (x_lo, x_hi, x_ticks, x_dec) = if !self.x_categories.is_empty() {
            let last = self.x_categories.len() as f64 - 1.0;
            let ticks = (0..self.x_categories.len()).map(|i| i as f64).collect();
            (-0.5, last + 0.5, ticks, 0)
        } else if log_x {
            let (a, b, ticks) = log_ticks(xmin, xmax);
            (a, b, ticks, 0)
        } else {
            linear_ticks(xmin, xmax)
        };
        let (y_lo, y_hi, y_ticks, y_dec) = if log_y {
            let (a, b, ticks) = log_ticks(ymin, ymax);
            (a, b, ticks, 0)
        } else {
            linear_ticks(ymin, ymax)
        };
        // The plot area is fixed; the canvas grows to fit the legend.
        let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
        let legend_text = self
            .series
            .iter()
            .map(|s| text_width(&s.name, FONT_SIZE))
            .fold(0.0, f64::max);
        let width = WIDTH.max(LEFT + pw + LEGEND_GAP + LEGEND_SAMPLE + legend_text + LEGEND_MARGIN);
        let height = HEIGHT.max(TOP + LEGEND_STEP * self.series.len() as f64 + LEGEND_MARGIN);
        let px = |x: f64| LEFT + (x - x_lo) / (x_hi - x_lo) * pw;
        let py = |y: f64| TOP + ph - (y - y_lo) / (y_hi - y_lo) * ph;

        let mut s = String::new();
        let seed_text = match seed {
            Some(v) => format!("seed {v}"),
            None => "deterministic, no seed".into(),
        };
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">",
            w = num_short(width),
            h = num_short(height)
        );
        let _ = writeln!(
            s,
            "<!-- fatnet-repro figure `{}` ({seed_text}); the exact command is in <desc>. Do not edit: regenerate. -->",
            self.id
        );
        let _ = writeln!(
            s,
            "<desc>Generated by `{}` ({seed_text}). Do not edit: regenerate.</desc>",
            xml(command)
        );
        let _ = writeln!(s, "<title>{}</title>", xml(&self.title));
        let _ = writeln!(
            s,
            "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"white\"/>",
            num_short(width),
            num_short(height)
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"14\">{}</text>",
            num(width / 2.0),
            xml(&self.title)
        );
        // Grid, ticks and tick labels.
        for &t in &x_ticks {
            let x = num(px(t));
            let label = if let Some(name) = self.x_categories.get(t as usize) {
                // Shrink a long category name to its slot (about 0.6 em per character).
                let slot = pw / self.x_categories.len() as f64;
                let size = (slot / (0.6 * name.chars().count().max(1) as f64)).clamp(7.0, 12.0);
                if size < 12.0 {
                    format!("<tspan font-size=\"{}\">{}</tspan>", num(size), xml(name))
                } else {
                    xml(name)
                }
            } else if log_x {
                power_of_two(t)
            } else {
                tick(t, x_dec)
            };
            let _ = writeln!(
                s,
                "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"#e0e0e0\"/><text x=\"{x}\" y=\"{}\" text-anchor=\"middle\">{label}</text>",
                num(TOP),
                num(TOP + ph + 5.0),
                num(TOP + ph + 18.0)
            );
        }
        for &t in &y_ticks {
            let y = num(py(t));
            let _ = writeln!(
                s,
                "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#e0e0e0\"/><text x=\"{}\" y=\"{y}\" text-anchor=\"end\" dominant-baseline=\"middle\">{}</text>",
                num(LEFT - 5.0),
                num(LEFT + pw),
                num(LEFT - 8.0),
                if log_y {
                    power_of_two(t)
                } else {
                    tick(t, y_dec)
                }
            );
        }
        // Axes and their labels.
        let _ = writeln!(
            s,
            "<path d=\"M {l} {t} L {l} {b} L {r} {b}\" fill=\"none\" stroke=\"black\"/>",
            l = num(LEFT),
            t = num(TOP),
            b = num(TOP + ph),
            r = num(LEFT + pw)
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            num(LEFT + pw / 2.0),
            num(TOP + ph + BOTTOM - 18.0),
            xml(&self.x_label)
        );
        let _ = writeln!(
            s,
            "<text x=\"18\" y=\"{y}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {y})\">{}</text>",
            xml(&self.y_label),
            y = num(TOP + ph / 2.0)
        );
        // Series: polyline (numeric axis only), markers, error bars, legend entry.
        for (i, series) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let drawn: Vec<(String, String)> = series
                .points
                .iter()
                .filter(|&&p| self.drawable(p))
                .map(|&(x, y)| (num(px(tx(x))), num(py(ty(y)))))
                .collect();
            if !categorical {
                let coords: Vec<String> = drawn.iter().map(|(x, y)| format!("{x},{y}")).collect();
                let _ = writeln!(
                    s,
                    "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\"/>",
                    coords.join(" ")
                );
            }
            for (x, y) in &drawn {
                let _ = writeln!(s, "{}", marker(i, x, y, color));
            }
            for bar in self.error_bars.iter().filter(|b| b.series == i) {
                let finite = [bar.x, bar.low, bar.high].iter().all(|v| v.is_finite());
                if !finite || (log_x && bar.x <= 0.0) || (log_y && bar.high <= 0.0) {
                    continue;
                }
                let x = px(tx(bar.x));
                let hi = py(ty(bar.high));
                // On a log axis a bar reaching 0 runs to the bottom of the plot, uncapped.
                let (lo, low_cap) = if log_y && bar.low <= 0.0 {
                    (TOP + ph, String::new())
                } else {
                    let lo = py(ty(bar.low));
                    (
                        lo,
                        format!(
                            "M {} {lo} L {} {lo} ",
                            num(x - 4.0),
                            num(x + 4.0),
                            lo = num(lo)
                        ),
                    )
                };
                let _ = writeln!(
                    s,
                    "<path d=\"{low_cap}M {x} {lo} L {x} {hi} M {} {hi} L {} {hi}\" fill=\"none\" stroke=\"{color}\"/>",
                    num(x - 4.0),
                    num(x + 4.0),
                    x = num(x),
                    lo = num(lo),
                    hi = num(hi)
                );
            }
            let ly = TOP + 10.0 + LEGEND_STEP * i as f64;
            let lx = LEFT + pw + LEGEND_GAP;
            let sample = if categorical {
                String::new()
            } else {
                format!(
                    "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{color}\" stroke-width=\"1.5\"/>",
                    num(lx),
                    num(lx + 24.0),
                    y = num(ly)
                )
            };
            let _ = writeln!(
                s,
                "{sample}{}<text x=\"{}\" y=\"{y}\" dominant-baseline=\"middle\">{}</text>",
                marker(i, &num(lx + 12.0), &num(ly), color),
                num(lx + LEGEND_SAMPLE),
                xml(&series.name),
                y = num(ly)
            );
        }
        let undrawn: Vec<String> = self
            .series
            .iter()
            .flat_map(|series| {
                series
                    .points
                    .iter()
                    .filter(|&&p| !self.drawable(p))
                    .map(|&(x, y)| format!("{} ({x}, {y})", series.name))
            })
            .collect();
        if !undrawn.is_empty() {
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#d62728\">not drawn ({}, listed in the CSV): {}</text>",
                num(LEFT),
                num(TOP + ph + BOTTOM - 4.0),
                if log_x || log_y {
                    "missing, non-finite, or not positive on a log axis"
                } else {
                    "missing or non-finite"
                },
                xml(&undrawn.join("; "))
            );
        }
        s.push_str("</svg>\n");
        s
    }

    /// The plotted points as CSV (`series,x,y`, one row per point, in series order; with
    /// `low,high` columns when the figure has error bars, and the category name as `x` on a
    /// categorical axis), headed by
    /// a `#` comment with the title, the axes, and the command and seed.
    ///
    /// # Errors
    ///
    /// [`ReproError::Csv`] if the CSV writer fails.
    pub fn to_csv(&self, command: &str, seed: Option<u64>) -> Result<String, ReproError> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let bars = !self.error_bars.is_empty();
        let x_text = |x: f64| match self.x_categories.get(x as usize) {
            Some(name) if x >= 0.0 && x.fract() == 0.0 => name.clone(),
            _ => x.to_string(),
        };
        if bars {
            w.write_record(["series", "x", "y", "low", "high"])?;
        } else {
            w.write_record(["series", "x", "y"])?;
        }
        for (i, series) in self.series.iter().enumerate() {
            for &(x, y) in &series.points {
                let mut row = vec![series.name.clone(), x_text(x), y.to_string()];
                if bars {
                    let bar = self.error_bars.iter().find(|b| b.series == i && b.x == x);
                    row.push(bar.map_or_else(String::new, |b| b.low.to_string()));
                    row.push(bar.map_or_else(String::new, |b| b.high.to_string()));
                }
                w.write_record(&row)?;
            }
        }
        let body = String::from_utf8(
            w.into_inner()
                .map_err(|e| csv::Error::from(e.into_error()))?,
        )
        .expect("csv of strings is UTF-8");
        let seed_text = match seed {
            Some(v) => format!("seed {v}"),
            None => "deterministic, no seed".into(),
        };
        Ok(format!(
            "# {}: x = {}, y = {}; generated by `{command}` ({seed_text})\n{body}",
            self.title, self.x_label, self.y_label
        ))
    }
}

/// A canvas dimension: whole pixels without decimals (`720`), else two decimals.
fn num_short(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v}")
    } else {
        num(v)
    }
}

/// Marker `i mod 4` (circle, square, triangle, diamond) centred on `(x, y)`.
fn marker(i: usize, x: &str, y: &str, color: &str) -> String {
    let (cx, cy): (f64, f64) = (x.parse().unwrap_or(0.0), y.parse().unwrap_or(0.0));
    match i % 4 {
        0 => format!("<circle cx=\"{x}\" cy=\"{y}\" r=\"3.5\" fill=\"{color}\"/>"),
        1 => format!(
            "<rect x=\"{}\" y=\"{}\" width=\"7\" height=\"7\" fill=\"{color}\"/>",
            num(cx - 3.5),
            num(cy - 3.5)
        ),
        2 => format!(
            "<path d=\"M {} {} L {} {} L {} {} Z\" fill=\"{color}\"/>",
            num(cx),
            num(cy - 4.5),
            num(cx + 4.0),
            num(cy + 3.0),
            num(cx - 4.0),
            num(cy + 3.0)
        ),
        _ => format!(
            "<path d=\"M {} {} L {} {} L {} {} L {} {} Z\" fill=\"{color}\"/>",
            num(cx),
            num(cy - 4.5),
            num(cx + 4.5),
            num(cy),
            num(cx),
            num(cy + 4.5),
            num(cx - 4.5),
            num(cy)
        ),
    }
}

/// A point from typed values: a missing coordinate (`None`: the cell holds no number there)
/// becomes NaN, so that the point is listed in the CSV and named in the SVG's note instead of
/// being dropped.
pub fn point(x: Option<f64>, y: Option<f64>) -> (f64, f64) {
    (x.unwrap_or(f64::NAN), y.unwrap_or(f64::NAN))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure() -> Figure {
        Figure {
            id: "demo",
            title: "Demo <plot> & more".into(),
            x_label: "n".into(),
            y_label: "ratio".into(),
            series: vec![
                Series {
                    name: "GREEDY (FixedPriority)".into(),
                    points: vec![(64.0, 1.25), (256.0, 1.5), (1024.0, f64::NAN)],
                },
                Series {
                    name: "RANDOM".into(),
                    points: vec![(64.0, 0.75), (256.0, 0.5)],
                },
            ],
            log_x: true,
            ..Figure::default()
        }
    }

    #[test]
    fn svg_is_deterministic_and_names_series_and_command() {
        let cmd = "cargo xtask reproduce --quick --paper greenberg-leiserson";
        let a = figure().to_svg(cmd, Some(7));
        assert_eq!(a, figure().to_svg(cmd, Some(7)));
        assert!(a.starts_with("<svg "));
        assert!(a.ends_with("</svg>\n"));
        assert!(a.contains("GREEDY (FixedPriority)"));
        assert!(a.contains("RANDOM"));
        assert!(a.contains(cmd));
        assert!(a.contains("seed 7"));
        assert!(a.contains("Demo &lt;plot&gt; &amp; more"));
        // XML forbids `--` inside a comment.
        for comment in a.split("<!--").skip(1) {
            let body = comment.split("-->").next().unwrap();
            assert!(!body.contains("--"), "{body}");
        }
        // Two finite points per series are drawn; the NaN point is not, and the note says so.
        assert_eq!(a.matches("<circle").count(), 2 + 1);
        assert!(
            a.contains("not drawn (missing, non-finite, or not positive on a log axis, listed in the CSV): GREEDY (FixedPriority) (1024, NaN)</text>"),
            "{a}"
        );
        assert_eq!(point(Some(1.0), None).0, 1.0);
        assert!(point(Some(1.0), None).1.is_nan());
        let linear = Figure {
            log_x: false,
            ..figure()
        };
        assert_eq!(linear.to_svg(cmd, None), linear.to_svg(cmd, None));
    }

    #[test]
    fn csv_lists_every_point() {
        let csv = figure().to_csv("cmd", None).unwrap();
        assert_eq!(csv.lines().count(), 2 + 5);
        assert!(csv.contains("GREEDY (FixedPriority),1024,NaN\n"));
        assert!(csv.contains("GREEDY (FixedPriority),256,1.5\n"));
    }

    #[test]
    fn error_bars_widen_the_axis_and_categories_label_it() {
        let f = Figure {
            id: "bars",
            title: "t".into(),
            x_label: "flow".into(),
            y_label: "latency".into(),
            series: vec![Series {
                name: "s".into(),
                points: vec![(0.0, 10.0), (1.0, 20.0)],
            }],
            log_x: true,
            error_bars: vec![
                ErrorBar {
                    series: 0,
                    x: 0.0,
                    low: 8.0,
                    high: 12.0,
                },
                ErrorBar {
                    series: 0,
                    x: 1.0,
                    low: 15.0,
                    high: 47.0,
                },
            ],
            x_categories: vec!["worm".into(), "store".into()],
            log_y: false,
        };
        let svg = f.to_svg("cmd", Some(1));
        // Category names are the tick labels; the log axis is ignored for categories.
        assert!(svg.contains(">worm</text>") && svg.contains(">store</text>"));
        assert!(!svg.contains("tspan"));
        // The bar reaching 47 forces a tick at 50 (points alone stop at 20).
        assert!(svg.contains(">50</text>"), "{svg}");
        // One whisker path per bar.
        assert_eq!(svg.matches("<path d=\"M ").count() - 1, 2);
        let csv = f.to_csv("cmd", Some(1)).unwrap();
        assert!(csv.contains("series,x,y,low,high\n"));
        assert!(csv.contains("s,store,20,15,47\n"), "{csv}");
    }

    /// The value of attribute `name` in the tag starting at `tag`.
    fn attr(tag: &str, name: &str) -> f64 {
        let start = tag.find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        tag[start..].split('"').next().unwrap().parse().unwrap()
    }

    #[test]
    fn legend_fits_the_canvas_however_long_its_labels() {
        let long = "topology=karyntree:k=4,levels=3, traffic=uniform:self=false, WWW";
        let f = Figure {
            id: "wide",
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: (0..30)
                .map(|i| Series {
                    name: if i == 7 { long.into() } else { format!("s{i}") },
                    points: vec![(1.0, i as f64), (2.0, 1.0 + i as f64)],
                })
                .collect(),
            ..Figure::default()
        };
        let svg = f.to_svg("cmd", None);
        let head = svg.lines().next().unwrap();
        let (width, height) = (attr(head, "width"), attr(head, "height"));
        assert!(width > WIDTH && height > HEIGHT, "{head}");
        // Every legend text (left-anchored, vertically centred) ends inside the canvas.
        let mut legend = 0;
        for piece in svg.split("<text").skip(1) {
            let tag = piece.split('>').next().unwrap();
            if !tag.contains("dominant-baseline") || tag.contains("text-anchor") {
                continue;
            }
            let label = piece[tag.len() + 1..].split("</text>").next().unwrap();
            let right = attr(tag, "x") + text_width(label, FONT_SIZE);
            assert!(right <= width, "{label}: {right} > {width}");
            assert!(attr(tag, "y") + FONT_SIZE / 2.0 <= height, "{label}");
            legend += 1;
        }
        assert_eq!(legend, 30);
        assert!(svg.contains(long));
        // The estimate is an upper bound of real fonts: 66 characters at 12 px, wider than
        // the old fixed 185 px of legend.
        assert!(text_width(long, 12.0) > 400.0);
        // A figure whose legend fits keeps the 720 x 440 canvas.
        let small = figure().to_svg("cmd", None);
        assert!(
            small.starts_with(
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"440\""
            )
        );
    }

    #[test]
    fn categorical_series_are_markers_and_numeric_ones_lines() {
        let categorical = Figure {
            id: "c",
            title: "t".into(),
            x_label: "traffic".into(),
            y_label: "latency".into(),
            series: vec![
                Series {
                    name: "a".into(),
                    points: vec![(0.0, 10.0), (1.0, 20.0)],
                },
                Series {
                    name: "b".into(),
                    points: vec![(0.0, 12.0), (1.0, 25.0)],
                },
            ],
            error_bars: vec![ErrorBar {
                series: 1,
                x: 1.0,
                low: 20.0,
                high: 30.0,
            }],
            x_categories: vec!["permutation".into(), "uniform".into()],
            ..Figure::default()
        };
        let svg = categorical.to_svg("cmd", None);
        assert!(!svg.contains("<polyline"), "{svg}");
        assert!(
            !svg.contains("<line x1=\"505.00\""),
            "no line in the legend either"
        );
        // Markers: 2 circles + 2 squares on the plot, one of each in the legend.
        assert_eq!(svg.matches("<circle").count(), 3);
        assert_eq!(svg.matches("<rect x=").count() - 1, 3);
        // Only the axes and the one error bar are paths: nothing joins the points.
        assert_eq!(svg.matches("<path").count(), 2);
        let numeric = Figure {
            x_categories: Vec::new(),
            ..categorical
        };
        let svg = numeric.to_svg("cmd", None);
        assert_eq!(svg.matches("<polyline").count(), 2);
    }

    #[test]
    fn log_y_ticks_powers_of_two_and_names_what_it_cannot_draw() {
        let f = Figure {
            id: "logy",
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            series: vec![Series {
                name: "s".into(),
                points: vec![(1.0, 3.0), (2.0, 100.0), (3.0, 0.0)],
            }],
            log_y: true,
            error_bars: vec![ErrorBar {
                series: 0,
                x: 1.0,
                low: -1.0,
                high: 5.0,
            }],
            ..Figure::default()
        };
        let svg = f.to_svg("cmd", None);
        // 3 .. 100 (and the bar's top, 5) span 2^1 .. 2^7: one tick per power.
        for k in 1..=7 {
            assert!(
                svg.contains(&format!("font-size=\"9\">{k}</tspan></text>")),
                "2^{k}: {svg}"
            );
        }
        assert!(!svg.contains("font-size=\"9\">0</tspan>") && !svg.contains(">8</tspan>"));
        // y = 0 cannot be drawn on a log axis: named in the note, not plotted.
        assert_eq!(svg.matches("<circle").count(), 2 + 1);
        assert!(
            svg.contains("not positive on a log axis, listed in the CSV): s (3, 0)"),
            "{svg}"
        );
        // The bar reaching below 0 runs to the bottom of the plot (y = 380) without a low cap.
        assert!(svg.contains("<path d=\"M 70.00 380.00 L 70.00 "), "{svg}");
        // Twenty powers of two are thinned to every second one.
        let (lo, hi, ticks) = log_ticks(0.0, 20.0);
        assert_eq!((lo, hi), (0.0, 20.0));
        assert_eq!(ticks.len(), 11);
        assert_eq!(ticks[1], 2.0);
        let (lo, hi, ticks) = log_ticks(-3.2, 30.5);
        assert_eq!((lo, hi, ticks.len()), (-4.0, 32.0, 10));
    }
}
