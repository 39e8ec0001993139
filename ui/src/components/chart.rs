//! Small SVG charts: one metric series (its average as a line, the min–max band of rollups, the
//! y range and last value beside it) and a host's sparkline. The paths are computed by plain
//! functions, tested natively; the views only place them.

use leptos::prelude::*;
use nomos_types::observe::MetricPoint;
use nomos_types::MetricSeries;

/// The chart's drawing box; the SVG stretches it to the width it is given.
const WIDTH: f64 = 300.0;
const HEIGHT: f64 = 64.0;
/// Keeps the stroke of a line at the top or bottom of the range inside the box.
const INSET: f64 = 2.0;

/// A series as paths in a `width` × `height` box, and the value range the box spans.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    /// The average, left (oldest) to right.
    pub line: String,
    /// Min to max as a closed shape, when any point is a rollup that spans a range.
    pub band: Option<String>,
    pub lo: f64,
    pub hi: f64,
}

/// The paths of `points` (ordered by time), leaving out points that are not finite numbers so
/// no path ever holds `NaN`. `None` when nothing is left to draw.
pub fn geometry(points: &[MetricPoint], width: f64, height: f64) -> Option<Geometry> {
    let points: Vec<MetricPoint> = points
        .iter()
        .filter(|p| p.avg.is_finite())
        .map(|p| MetricPoint {
            // A rollup's bounds are drawn only when they are numbers around the average.
            min: if p.min.is_finite() { p.min.min(p.avg) } else { p.avg },
            max: if p.max.is_finite() { p.max.max(p.avg) } else { p.avg },
            ..*p
        })
        .collect();
    let first = points.first()?;
    let lo = points.iter().map(|p| p.min).fold(f64::INFINITY, f64::min);
    let hi = points.iter().map(|p| p.max).fold(f64::NEG_INFINITY, f64::max);
    let (t0, t1) = points.iter().fold((first.at, first.at), |(a, b), p| (a.min(p.at), b.max(p.at)));
    let y = |v: f64| {
        if hi > lo {
            INSET + (hi - v) / (hi - lo) * (height - 2.0 * INSET)
        } else {
            // A flat series sits in the middle rather than on an edge.
            height / 2.0
        }
    };
    // One instant (one point, or all at once) is drawn across the whole width.
    let xs: Vec<f64> = if t1 > t0 {
        points.iter().map(|p| (p.at - t0) as f64 / (t1 - t0) as f64 * width).collect()
    } else {
        vec![0.0; points.len()]
    };
    let spread = |values: &mut dyn Iterator<Item = (f64, f64)>| -> Vec<(f64, f64)> {
        let mut out: Vec<(f64, f64)> = values.collect();
        if t1 == t0 {
            let last = out.last().copied().unwrap_or((0.0, height / 2.0));
            out = vec![(0.0, last.1), (width, last.1)];
        }
        out
    };
    let line = path(&spread(&mut xs.iter().zip(&points).map(|(x, p)| (*x, y(p.avg)))), false);
    let band = points.iter().any(|p| p.max > p.min).then(|| {
        let upper = spread(&mut xs.iter().zip(&points).map(|(x, p)| (*x, y(p.max))));
        let lower = spread(&mut xs.iter().zip(&points).map(|(x, p)| (*x, y(p.min))));
        let outline: Vec<(f64, f64)> = upper.into_iter().chain(lower.into_iter().rev()).collect();
        path(&outline, true)
    });
    Some(Geometry { line, band, lo, hi })
}

/// `M x,y L x,y …` with one decimal (enough for a few hundred pixels), closed with `Z` if asked.
fn path(points: &[(f64, f64)], closed: bool) -> String {
    let mut out = String::new();
    for (i, (x, y)) in points.iter().enumerate() {
        out.push_str(if i == 0 { "M" } else { " L" });
        out.push_str(&format!("{x:.1},{y:.1}"));
    }
    if closed && !out.is_empty() {
        out.push_str(" Z");
    }
    out
}

/// The points of a sparkline (an SVG `polyline`), from 0 up to at least 100: CPU and memory are
/// percentages, and a quiet host should look quiet rather than fill the box.
pub fn spark_points(values: &[f64], width: f64, height: f64) -> String {
    let values: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    let hi = values.iter().copied().fold(100.0, f64::max);
    let y = |v: f64| height - v.max(0.0) / hi * height;
    let step = if values.len() > 1 { width / (values.len() - 1) as f64 } else { 0.0 };
    let mut pts: Vec<(f64, f64)> = values.iter().enumerate().map(|(i, v)| (i as f64 * step, y(*v))).collect();
    if pts.len() == 1 {
        let level = pts[0].1;
        pts = vec![(0.0, level), (width, level)];
    }
    pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect::<Vec<_>>().join(" ")
}

/// A value with its unit: `42.5 %`, `3 °C`, `1250 ms`.
pub fn format_value(v: f64, unit: &str) -> String {
    let n = if !v.is_finite() {
        "–".to_string()
    } else if v.fract() == 0.0 || v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    match unit.trim() {
        "" => n,
        "%" => format!("{n}%"),
        unit => format!("{n} {unit}"),
    }
}

/// One metric of an entity over a range; "no data yet" rather than an empty box.
#[component]
pub fn MetricChart(series: MetricSeries) -> impl IntoView {
    let MetricSeries { metric, unit, points, last, .. } = series;
    let last = last.map(|v| format_value(v, &unit)).unwrap_or_default();
    let body = match geometry(&points, WIDTH, HEIGHT) {
        None => view! { <p class="muted chart-empty" data-testid="chart-empty">"no data yet"</p> }.into_any(),
        Some(g) => {
            let view_box = format!("0 0 {WIDTH} {HEIGHT}");
            view! {
                <div class="chart-body">
                    <div class="chart-axis muted">
                        <span>{format_value(g.hi, &unit)}</span>
                        <span>{format_value(g.lo, &unit)}</span>
                    </div>
                    <svg class="chart-svg" viewBox=view_box preserveAspectRatio="none" role="img" aria-label=metric.clone()>
                        {g.band.map(|d| view! { <path class="chart-band" d=d /> })}
                        <path class="chart-line" d=g.line vector-effect="non-scaling-stroke" />
                    </svg>
                </div>
            }
            .into_any()
        }
    };
    let data_metric = metric.clone();
    view! {
        <figure class="chart" data-testid="metric-chart" data-metric=data_metric>
            <figcaption class="chart-head">
                <strong>{metric}</strong>
                <span class="chart-last" data-testid="chart-last">{last}</span>
            </figcaption>
            {body}
        </figure>
    }
}

/// A host's recent CPU (accent) and memory (warm) in one small box.
#[component]
pub fn Sparkline(cpu: Vec<f64>, memory: Vec<f64>) -> impl IntoView {
    const W: f64 = 120.0;
    const H: f64 = 28.0;
    let title = format!(
        "CPU {} · memory {}",
        cpu.last().map_or_else(|| "–".into(), |v| format_value(*v, "%")),
        memory.last().map_or_else(|| "–".into(), |v| format_value(*v, "%"))
    );
    let label = title.clone();
    view! {
        <svg class="sparkline" viewBox=format!("0 0 {W} {H}") preserveAspectRatio="none" role="img" aria-label=label>
            <title>{title}</title>
            <polyline class="spark-cpu" points=spark_points(&cpu, W, H) vector-effect="non-scaling-stroke" />
            <polyline class="spark-memory" points=spark_points(&memory, W, H) vector-effect="non-scaling-stroke" />
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(at: i64, avg: f64) -> MetricPoint {
        MetricPoint { at, avg, min: avg, max: avg }
    }

    fn no_nan(g: &Geometry) {
        let all = format!("{} {}", g.line, g.band.clone().unwrap_or_default());
        assert!(!all.contains("NaN") && !all.contains("inf"), "{all}");
    }

    #[test]
    fn an_empty_series_draws_nothing() {
        assert_eq!(geometry(&[], 300.0, 60.0), None);
        assert_eq!(geometry(&[p(1, f64::NAN)], 300.0, 60.0), None, "only NaN is nothing too");
    }

    #[test]
    fn one_point_is_a_flat_line_across() {
        let g = geometry(&[p(10, 5.0)], 300.0, 60.0).unwrap();
        assert_eq!(g.line, "M0.0,30.0 L300.0,30.0");
        assert_eq!((g.lo, g.hi), (5.0, 5.0));
        assert_eq!(g.band, None);
    }

    #[test]
    fn a_flat_series_sits_in_the_middle() {
        let g = geometry(&[p(0, 7.0), p(30, 7.0), p(60, 7.0)], 300.0, 60.0).unwrap();
        assert_eq!(g.line, "M0.0,30.0 L150.0,30.0 L300.0,30.0");
        no_nan(&g);
    }

    #[test]
    fn the_line_spans_time_and_value() {
        let g = geometry(&[p(0, 0.0), p(50, 10.0), p(100, 5.0)], 200.0, 24.0).unwrap();
        // y runs downwards, inside the inset: 10 at the top (2), 0 at the bottom (22).
        assert_eq!(g.line, "M0.0,22.0 L100.0,2.0 L200.0,12.0");
        assert_eq!((g.lo, g.hi), (0.0, 10.0));
    }

    #[test]
    fn rollups_draw_a_min_max_band_and_skip_bad_numbers() {
        let pts = [
            MetricPoint { at: 0, avg: 5.0, min: 0.0, max: 10.0 },
            MetricPoint { at: 30, avg: f64::NAN, min: 0.0, max: 1.0 },
            MetricPoint { at: 60, avg: 5.0, min: f64::NAN, max: f64::INFINITY },
        ];
        let g = geometry(&pts, 100.0, 24.0).unwrap();
        assert_eq!(g.line, "M0.0,12.0 L100.0,12.0");
        assert_eq!(g.band.as_deref(), Some("M0.0,2.0 L100.0,12.0 L100.0,12.0 L0.0,22.0 Z"));
        no_nan(&g);
    }

    #[test]
    fn values_read_with_any_unit() {
        assert_eq!(format_value(42.0, "%"), "42%");
        assert_eq!(format_value(3.25159, "°C"), "3.25 °C");
        assert_eq!(format_value(12.34, "µs"), "12.3 µs");
        assert_eq!(format_value(1250.0, " ms "), "1250 ms");
        assert_eq!(format_value(2.5, ""), "2.50");
        assert_eq!(format_value(f64::NAN, "日"), "– 日");
    }

    #[test]
    fn sparklines_scale_to_a_hundred_at_least() {
        assert_eq!(spark_points(&[], 100.0, 10.0), "");
        assert_eq!(spark_points(&[50.0], 100.0, 10.0), "0.0,5.0 100.0,5.0");
        assert_eq!(spark_points(&[0.0, 100.0, f64::NAN], 100.0, 10.0), "0.0,10.0 100.0,0.0");
        assert_eq!(spark_points(&[0.0, 200.0], 100.0, 10.0), "0.0,10.0 100.0,0.0");
    }
}
