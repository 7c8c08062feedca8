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
const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
];

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

impl Figure {
    /// Whether the horizontal axis is logarithmic (never for a categorical axis).
    fn is_log_x(&self) -> bool {
        self.log_x && self.x_categories.is_empty()
    }

    /// Every drawable point: the series' points and the error bars' ends.
    fn finite_points(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        let log_x = self.is_log_x();
        self.series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .chain(
                self.error_bars
                    .iter()
                    .flat_map(|b| [(b.x, b.low), (b.x, b.high)]),
            )
            .filter(move |&(x, y)| x.is_finite() && y.is_finite() && (!log_x || x > 0.0))
    }

    /// The figure as a self-contained SVG: axes, ticks, labels, legend, and the command and
    /// seed that made it (in `<desc>`; the leading comment repeats the seed, but cannot hold
    /// the command because XML forbids `--` inside comments). No timestamp: the output is a
    /// function of the figure's data.
    pub fn to_svg(&self, command: &str, seed: Option<u64>) -> String {
        let log_x = self.is_log_x();
        let tx = |x: f64| if log_x { x.log2() } else { x };
        let pts: Vec<(f64, f64)> = self.finite_points().map(|(x, y)| (tx(x), y)).collect();
        let (xmin, xmax) = pts
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.0), b.max(p.0))
            });
        let (ymin, ymax) = pts.iter().fold((0.0f64, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.1), b.max(p.1))
        });
        let (xmin, xmax) = if pts.is_empty() {
            (0.0, 1.0)
        } else {
            (xmin, xmax)
        };
        let ymax = if pts.is_empty() { 1.0 } else { ymax };
        let (x_lo, x_hi, x_ticks, x_dec) = if !self.x_categories.is_empty() {
            let last = self.x_categories.len() as f64 - 1.0;
            let ticks = (0..self.x_categories.len()).map(|i| i as f64).collect();
            (-0.5, last + 0.5, ticks, 0)
        } else if log_x {
            let (a, b) = (xmin.floor(), xmax.ceil().max(xmin.floor() + 1.0));
            let ticks = (0..=((b - a) as i64)).map(|i| a + i as f64).collect();
            (a, b, ticks, 0)
        } else {
            linear_ticks(xmin, xmax)
        };
        let (y_lo, y_hi, y_ticks, y_dec) = linear_ticks(ymin, ymax);
        let (pw, ph) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
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
            w = WIDTH,
            h = HEIGHT
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
            "<rect x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"white\"/>"
        );
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"14\">{}</text>",
            num(WIDTH / 2.0),
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
                format!("2<tspan dy=\"-5\" font-size=\"9\">{}</tspan>", t as i64)
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
                tick(t, y_dec)
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
            num(HEIGHT - 18.0),
            xml(&self.x_label)
        );
        let _ = writeln!(
            s,
            "<text x=\"18\" y=\"{y}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {y})\">{}</text>",
            xml(&self.y_label),
            y = num(TOP + ph / 2.0)
        );
        // Series: polyline, markers, legend entry.
        for (i, series) in self.series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let drawn: Vec<(String, String)> = series
                .points
                .iter()
                .filter(|&&(x, y)| x.is_finite() && y.is_finite() && (!log_x || x > 0.0))
                .map(|&(x, y)| (num(px(tx(x))), num(py(y))))
                .collect();
            let coords: Vec<String> = drawn.iter().map(|(x, y)| format!("{x},{y}")).collect();
            let _ = writeln!(
                s,
                "<polyline points=\"{}\" fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\"/>",
                coords.join(" ")
            );
            for (x, y) in &drawn {
                let _ = writeln!(s, "{}", marker(i, x, y, color));
            }
            for bar in self.error_bars.iter().filter(|b| b.series == i) {
                let finite = [bar.x, bar.low, bar.high].iter().all(|v| v.is_finite());
                if !finite || (log_x && bar.x <= 0.0) {
                    continue;
                }
                let (x, lo, hi) = (px(tx(bar.x)), py(bar.low), py(bar.high));
                let _ = writeln!(
                    s,
                    "<path d=\"M {} {lo} L {} {lo} M {x} {lo} L {x} {hi} M {} {hi} L {} {hi}\" fill=\"none\" stroke=\"{color}\"/>",
                    num(x - 4.0),
                    num(x + 4.0),
                    num(x - 4.0),
                    num(x + 4.0),
                    x = num(x),
                    lo = num(lo),
                    hi = num(hi)
                );
            }
            let ly = TOP + 10.0 + 20.0 * i as f64;
            let lx = LEFT + pw + 15.0;
            let _ = writeln!(
                s,
                "<line x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"{color}\" stroke-width=\"1.5\"/>{}<text x=\"{}\" y=\"{y}\" dominant-baseline=\"middle\">{}</text>",
                num(lx),
                num(lx + 24.0),
                marker(i, &num(lx + 12.0), &num(ly), color),
                num(lx + 30.0),
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
                    .filter(|&&(x, y)| !(x.is_finite() && y.is_finite() && (!log_x || x > 0.0)))
                    .map(|&(x, y)| format!("{} ({x}, {y})", series.name))
            })
            .collect();
        if !undrawn.is_empty() {
            let _ = writeln!(
                s,
                "<text x=\"{}\" y=\"{}\" font-size=\"9\" fill=\"#d62728\">not drawn (missing or non-finite, listed in the CSV): {}</text>",
                num(LEFT),
                num(HEIGHT - 4.0),
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
            a.contains("not drawn (missing or non-finite, listed in the CSV): GREEDY (FixedPriority) (1024, NaN)</text>"),
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
}
