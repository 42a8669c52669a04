//! Geometry for the inline SVG charts: coordinates and scales computed once here, so the
//! templates only draw (shapes, colours and labels stay in templates/).

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Series {
    pub name: String,
    /// SVG `points` attribute.
    pub points: String,
    pub last: Option<Point>,
    pub index: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Tick {
    pub pos: f64,
    /// The value at the tick (exact decimal text for money axes, month code for time axes).
    pub value: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct LineChart {
    pub width: f64,
    pub height: f64,
    pub left: f64,
    pub bottom: f64,
    pub series: Vec<Series>,
    pub x_ticks: Vec<Tick>,
    pub y_ticks: Vec<Tick>,
}

const W: f64 = 760.0;
const H: f64 = 260.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 60.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 28.0;

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// A line chart of several series over the same months; y from 0 to a rounded maximum.
pub(crate) fn line_chart(months: &[String], series: &[(String, Vec<Option<Decimal>>)]) -> LineChart {
    let max = series
        .iter()
        .flat_map(|(_, v)| v.iter().flatten())
        .filter_map(ToPrimitive::to_f64)
        .fold(0.0f64, f64::max);
    // Four equal steps of 1, 2, 2.5 or 5 times a power of ten: ticks people read at a glance.
    let step = nice_step(max / 4.0);
    let top_value = step * 4.0;
    let n = months.len().max(2) as f64;
    let x = |i: usize| round1(LEFT + (W - LEFT - RIGHT) * i as f64 / (n - 1.0));
    let y =
        |v: f64| round1(TOP + (H - TOP - BOTTOM) * (1.0 - if top_value > 0.0 { v / top_value } else { 0.0 }));
    let series = series
        .iter()
        .enumerate()
        .map(|(index, (name, values))| {
            let pts: Vec<Point> = values
                .iter()
                .enumerate()
                .filter_map(|(i, v)| v.and_then(|d| d.to_f64()).map(|f| Point { x: x(i), y: y(f) }))
                .collect();
            Series {
                name: name.clone(),
                points: pts.iter().map(|p| format!("{},{}", p.x, p.y)).collect::<Vec<_>>().join(" "),
                last: pts.last().cloned(),
                index,
            }
        })
        .collect();
    let step = (months.len() / 6).max(1);
    let x_ticks = months
        .iter()
        .enumerate()
        .filter(|(i, _)| i % step == 0)
        .map(|(i, m)| Tick { pos: x(i), value: m.clone() })
        .collect();
    let y_ticks = (0..=4)
        .map(|k| {
            let v = top_value * f64::from(k) / 4.0;
            Tick {
                pos: y(v),
                value: Decimal::from_f64_retain(v).map(|d| d.round_dp(0).to_string()).unwrap_or_default(),
            }
        })
        .collect();
    LineChart { width: W, height: H, left: LEFT, bottom: H - BOTTOM, series, x_ticks, y_ticks }
}

/// 1, 2, 2.5 or 5 times a power of ten, at or above `v`.
fn nice_step(v: f64) -> f64 {
    if v <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0].iter().map(|m| m * p).find(|c| *c >= v * (1.0 - 1e-12)).unwrap_or(10.0 * p)
}

/// Bar length as a percentage of the largest absolute value.
pub(crate) fn bar_percent(v: Option<Decimal>, max: Decimal) -> f64 {
    match (v, max.is_zero()) {
        (Some(v), false) => round1((v.abs() / max * Decimal::from(100)).to_f64().unwrap_or(0.0)),
        _ => 0.0,
    }
}

/// The 27 states on a tile grid shaped roughly like the map of Brazil: (uf, column, row).
pub(crate) const TILE_GRID: [(&str, u8, u8); 27] = [
    ("RR", 2, 0),
    ("AP", 4, 0),
    ("AM", 1, 1),
    ("PA", 3, 1),
    ("MA", 4, 1),
    ("CE", 5, 1),
    ("RN", 6, 1),
    ("AC", 0, 2),
    ("RO", 1, 2),
    ("TO", 3, 2),
    ("PI", 4, 2),
    ("PB", 6, 2),
    ("MT", 2, 3),
    ("GO", 3, 3),
    ("BA", 4, 3),
    ("PE", 5, 3),
    ("AL", 6, 3),
    ("MS", 2, 4),
    ("DF", 3, 4),
    ("MG", 4, 4),
    ("SE", 5, 4),
    ("PR", 2, 5),
    ("SP", 3, 5),
    ("RJ", 4, 5),
    ("ES", 5, 5),
    ("SC", 2, 6),
    ("RS", 2, 7),
];

/// One of five heat classes (0 lightest) for `v` within `0..=max`.
pub(crate) fn heat(v: Option<Decimal>, max: Decimal) -> u8 {
    let p = bar_percent(v, max);
    match p {
        p if p >= 80.0 => 4,
        p if p >= 40.0 => 3,
        p if p >= 15.0 => 2,
        p if p >= 5.0 => 1,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_and_ticks() {
        assert_eq!(nice_step(730.0), 1000.0);
        assert_eq!(nice_step(3.05e12 / 4.0), 1e12);
        assert_eq!(nice_step(2.1e11), 2.5e11);
        let c = line_chart(
            &["202401".into(), "202402".into()],
            &[("x".into(), vec![Some(Decimal::from(50)), Some(Decimal::from(100))])],
        );
        assert_eq!(c.series[0].points, "80,122 700,12", "max 100 -> ticks 0, 25, 50, 75, 100");
        assert_eq!(c.y_ticks.last().map(|t| t.value.as_str()), Some("100"));
        assert_eq!(heat(Some(Decimal::from(90)), Decimal::from(100)), 4);
        assert_eq!(TILE_GRID.len(), 27);
    }
}
