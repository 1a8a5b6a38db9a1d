//! The benchmark plot as a hand-written SVG (no plotting dependency): the
//! transform length N along x, one evenly spaced position per measured size
//! in increasing order (so powers of two sit on a log scale), and the share
//! of the measured device-to-device copy bandwidth along y, one line per
//! contender with a legend. A missing value breaks its line.

use super::report::BenchReport;
use std::fmt::Write as _;

/// One line of the plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    pub name: String,
    /// CSS colour of the line and its markers.
    pub color: &'static str,
    /// One value per x position; `None` where nothing was measured.
    pub values: Vec<Option<f64>>,
}

/// What to draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Plot {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    /// Labels of the x positions, left to right.
    pub categories: Vec<String>,
    pub series: Vec<Series>,
}

const WIDTH: f64 = 960.0;
const HEIGHT: f64 = 540.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 30.0;
const TOP: f64 = 70.0;
const BOTTOM: f64 = 80.0;

/// The plot of `report`: ours and cuFFT as a percentage of copy bandwidth.
pub fn report_plot(report: &BenchReport) -> Plot {
    let mut rows: Vec<_> = report.rows.iter().collect();
    rows.sort_by_key(|r| (r.n, r.axes.clone()));
    Plot {
        title: format!(
            "{} batched {} FFT, % of copy bandwidth: {} ({})",
            report.precisions(),
            report.kinds(),
            report.device,
            report.date()
        ),
        x_label: "transform length N or shape (one position per shape, increasing points)"
            .to_string(),
        y_label: "% of device-to-device copy bandwidth".to_string(),
        categories: rows.iter().map(|r| r.label()).collect(),
        series: vec![
            Series {
                name: "fftgen (ours)".to_string(),
                color: "#d62728",
                values: rows.iter().map(|r| r.ours_pct_copy()).collect(),
            },
            Series {
                name: "cuFFT".to_string(),
                color: "#1f77b4",
                values: rows.iter().map(|r| r.cufft_pct_copy()).collect(),
            },
        ],
    }
}

/// The SVG document of `report`'s plot.
pub fn render_report(report: &BenchReport) -> String {
    render(&report_plot(report))
}

/// The top of the y axis: at least 100, else the next multiple of 20 above the data.
fn y_max(plot: &Plot) -> f64 {
    let data = plot
        .series
        .iter()
        .flat_map(|s| s.values.iter().flatten())
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    (data / 20.0).ceil().max(5.0) * 20.0
}

/// The SVG document of `plot`.
pub fn render(plot: &Plot) -> String {
    let (plot_w, plot_h) = (WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM);
    let count = plot.categories.len().max(1);
    let x = |i: usize| LEFT + plot_w * (i as f64 + 0.5) / count as f64;
    let top = y_max(plot);
    let y = |v: f64| TOP + plot_h * (1.0 - v.clamp(0.0, top) / top);

    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r#"<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#
    );
    let _ = writeln!(
        svg,
        r#"<text x="{}" y="30" text-anchor="middle" font-size="16">{}</text>"#,
        WIDTH / 2.0,
        escape(&plot.title)
    );

    // Horizontal grid lines and y ticks every 20 %.
    let mut tick = 0.0;
    while tick <= top + 1e-9 {
        let ty = y(tick);
        let stroke = if tick == 100.0 { "#888" } else { "#ddd" };
        let _ = writeln!(
            svg,
            r#"<line x1="{LEFT}" y1="{ty:.1}" x2="{:.1}" y2="{ty:.1}" stroke="{stroke}"/>"#,
            LEFT + plot_w
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{tick}</text>"#,
            LEFT - 6.0,
            ty + 4.0
        );
        tick += 20.0;
    }
    // Axes.
    let _ = writeln!(
        svg,
        r#"<path d="M {LEFT} {TOP} L {LEFT} {:.1} L {:.1} {:.1}" fill="none" stroke="black"/>"#,
        TOP + plot_h,
        LEFT + plot_w,
        TOP + plot_h
    );
    // x ticks and labels, rotated so long lists stay readable.
    for (i, label) in plot.categories.iter().enumerate() {
        let (tx, base) = (x(i), TOP + plot_h);
        let _ = writeln!(
            svg,
            r#"<line x1="{tx:.1}" y1="{base:.1}" x2="{tx:.1}" y2="{:.1}" stroke="black"/>"#,
            base + 5.0
        );
        let _ = writeln!(
            svg,
            r#"<text x="{tx:.1}" y="{:.1}" text-anchor="end" transform="rotate(-45 {tx:.1} {:.1})">{}</text>"#,
            base + 16.0,
            base + 16.0,
            escape(label)
        );
    }
    let _ = writeln!(
        svg,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        LEFT + plot_w / 2.0,
        HEIGHT - 12.0,
        escape(&plot.x_label)
    );
    let _ = writeln!(
        svg,
        r#"<text x="18" y="{:.1}" text-anchor="middle" transform="rotate(-90 18 {:.1})">{}</text>"#,
        TOP + plot_h / 2.0,
        TOP + plot_h / 2.0,
        escape(&plot.y_label)
    );

    // The series: one polyline per unbroken run of values, a marker per value.
    for series in &plot.series {
        let _ = writeln!(
            svg,
            r#"<g class="series" data-name="{}">"#,
            escape(&series.name)
        );
        let mut run: Vec<String> = Vec::new();
        let flush = |run: &mut Vec<String>, svg: &mut String| {
            if run.len() > 1 {
                let _ = writeln!(
                    svg,
                    r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="2"/>"#,
                    run.join(" "),
                    series.color
                );
            }
            run.clear();
        };
        for (i, value) in series.values.iter().enumerate() {
            match value.filter(|v| v.is_finite()) {
                Some(v) => {
                    let (px, py) = (x(i), y(v));
                    run.push(format!("{px:.1},{py:.1}"));
                    let _ = writeln!(
                        svg,
                        r#"<circle cx="{px:.1}" cy="{py:.1}" r="3.5" fill="{}"><title>{}: N = {}, {v:.1} %</title></circle>"#,
                        series.color,
                        escape(&series.name),
                        escape(plot.categories.get(i).map_or("?", String::as_str))
                    );
                }
                None => flush(&mut run, &mut svg),
            }
        }
        flush(&mut run, &mut svg);
        let _ = writeln!(svg, "</g>");
    }

    // Legend: one row in the top margin, right-aligned, clear of the data.
    let item_width = |series: &Series| 48.0 + 7.0 * series.name.chars().count() as f64;
    let total: f64 = plot.series.iter().map(item_width).sum();
    let (mut lx, ly) = (LEFT + plot_w - total - 10.0, TOP - 22.0);
    let _ = writeln!(svg, r#"<g class="legend">"#);
    let _ = writeln!(
        svg,
        r##"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="20" fill="white" stroke="#999"/>"##,
        lx - 6.0,
        ly - 10.0,
        total + 12.0
    );
    for series in &plot.series {
        let _ = writeln!(
            svg,
            r#"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{}" stroke-width="2"/>"#,
            lx + 30.0,
            series.color
        );
        let _ = writeln!(
            svg,
            r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
            lx + 36.0,
            ly + 4.0,
            escape(&series.name)
        );
        lx += item_width(series);
    }
    let _ = writeln!(svg, "</g>");
    svg.push_str("</svg>\n");
    svg
}

/// `text` with XML's special characters escaped.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::report::tests::synthetic_report;

    /// Checks that every tag closes in order and that no bare `<` or `&`
    /// appears in text; returns the element names in document order.
    fn check_well_formed(svg: &str) -> Vec<String> {
        let mut stack: Vec<String> = Vec::new();
        let mut names = Vec::new();
        let mut rest = svg;
        while let Some(open) = rest.find('<') {
            let text = &rest[..open];
            for (i, _) in text.match_indices('&') {
                let entity = &text[i..];
                assert!(
                    ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"]
                        .iter()
                        .any(|e| entity.starts_with(e)),
                    "bare & in {text:?}"
                );
            }
            let close = rest[open..].find('>').expect("unclosed tag") + open;
            let tag = &rest[open + 1..close];
            assert!(!tag.contains('<'), "`<` inside a tag: {tag}");
            assert_eq!(
                tag.matches('"').count() % 2,
                0,
                "unbalanced quotes in {tag}"
            );
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(
                    stack.pop().as_deref(),
                    Some(name.trim()),
                    "mismatched </{name}>"
                );
            } else {
                let name = tag
                    .split_whitespace()
                    .next()
                    .unwrap_or_default()
                    .trim_end_matches('/')
                    .to_string();
                names.push(name.clone());
                if !tag.ends_with('/') {
                    stack.push(name);
                }
            }
            rest = &rest[close + 1..];
        }
        assert!(stack.is_empty(), "unclosed elements: {stack:?}");
        assert!(rest.trim().is_empty(), "text after the root: {rest:?}");
        names
    }

    #[test]
    fn plot_of_a_report_is_well_formed_with_both_series_and_a_legend() {
        let report = synthetic_report();
        let svg = render_report(&report);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        let names = check_well_formed(&svg);
        assert_eq!(names[0], "svg");
        assert_eq!(names.iter().filter(|n| *n == "svg").count(), 1);
        assert!(
            svg.contains(r#"data-name="fftgen (ours)""#) && svg.contains(r#"data-name="cuFFT""#)
        );
        let legend = &svg[svg.find(r#"<g class="legend">"#).expect("a legend")..];
        assert!(legend.contains(">fftgen (ours)</text>") && legend.contains(">cuFFT</text>"));
        // Title with device (escaped) and date; both axis labels.
        assert!(
            svg.contains("NVIDIA H100 80GB HBM3 &lt;test &amp; co&gt;")
                && svg.contains("2026-11-20")
        );
        assert!(
            svg.contains("transform length N")
                && svg.contains("% of device-to-device copy bandwidth")
        );
        // Every size labels the x axis.
        for row in &report.rows {
            assert!(
                svg.contains(&format!(">{}</text>", row.label())),
                "no label for {}",
                row.label()
            );
        }
        // Ours has three points in one line; cuFFT misses N = 1000, so two
        // single points and no line.
        assert_eq!(svg.matches("<polyline").count(), 1);
        assert_eq!(svg.matches("<circle").count(), 3 + 2);
    }

    #[test]
    fn y_axis_grows_past_100_percent() {
        let plot = Plot {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            categories: vec!["2".into(), "4".into()],
            series: vec![Series {
                name: "a".into(),
                color: "red",
                values: vec![Some(50.0), Some(131.0)],
            }],
        };
        assert_eq!(y_max(&plot), 140.0);
        let svg = render(&plot);
        check_well_formed(&svg);
        assert!(svg.contains(">140</text>"));
    }
}
