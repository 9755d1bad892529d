//! The size–latency probe (Amphibian Fig. 1): one I/O at a time at random
//! aligned offsets of the window, for each request size, reads and
//! (with `allow_write`) writes; mean latency per size and a least-squares
//! line `latency = intercept + slope · size`.

use std::time::Instant;

use serde::Serialize;

use crate::backend::{self, BackendKind, IoKind};
use crate::buf::mix;
use crate::env::{self, KernelInfo};
use crate::error::{ReplayError, ReplayResult};
use crate::inflight::InFlight;
use crate::replay::fill;
use crate::target::{Target, TargetInfo, TargetSpec, Window};

/// What to measure.
#[derive(Debug, Clone)]
pub struct ProbeSpec {
    pub target: TargetSpec,
    /// Request sizes in bytes (multiples of the I/O unit).
    pub sizes: Vec<u32>,
    /// I/Os per (direction, size).
    pub per_size: u32,
    /// Also measure writes (needs `allow_write`).
    pub writes: bool,
    /// Write the window first so reads reach the device (`None`: when the
    /// file was created by this probe).
    pub prefill: Option<bool>,
    pub backend: BackendKind,
    pub seed: u64,
}

/// Latency of one (direction, size).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ProbePoint {
    pub op: &'static str,
    pub size: u32,
    pub n: u32,
    pub mean_us: f64,
    pub p50_us: f64,
    pub p99_us: f64,
    pub min_us: f64,
}

/// `mean_us ≈ intercept_us + slope_us_per_kib · size / 1024`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LineFit {
    pub op: &'static str,
    pub intercept_us: f64,
    pub slope_us_per_kib: f64,
    /// The bandwidth the slope implies (MB/s = 10^6 B/s).
    pub mb_s: f64,
    pub r2: f64,
}

/// Everything a probe reports.
#[derive(Debug, Clone, Serialize)]
pub struct ProbeResult {
    pub points: Vec<ProbePoint>,
    pub fits: Vec<LineFit>,
    pub target: TargetInfo,
    pub window: Window,
    pub backend: serde_json::Value,
    pub fallback: Option<String>,
    pub kernel: KernelInfo,
    pub prefilled: bool,
}

/// Least-squares line through `(x, y)` (`None` with fewer than two
/// distinct `x`): (intercept, slope, R²).
pub fn line_fit(xs: &[f64], ys: &[f64]) -> Option<(f64, f64, f64)> {
    let n = xs.len() as f64;
    if xs.len() < 2 || xs.len() != ys.len() {
        return None;
    }
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxx: f64 = xs.iter().map(|x| (x - mx).powi(2)).sum();
    if sxx == 0.0 {
        return None;
    }
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let slope = sxy / sxx;
    let icpt = my - slope * mx;
    let ss_res: f64 = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - icpt - slope * x).powi(2))
        .sum();
    let ss_tot: f64 = ys.iter().map(|y| (y - my).powi(2)).sum();
    let r2 = if ss_tot > 0.0 {
        1.0 - ss_res / ss_tot
    } else {
        1.0
    };
    Some((icpt, slope, r2))
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    sorted[((q * n as f64).ceil() as usize).clamp(1, n) - 1]
}

/// Run the probe.
pub fn probe(spec: &ProbeSpec) -> ReplayResult<ProbeResult> {
    if spec.writes && !spec.target.allow_write {
        return Err(ReplayError::Invalid(
            "probing writes needs allow_write (--allow-write)".into(),
        ));
    }
    if spec.sizes.is_empty() || spec.per_size == 0 {
        return Err(ReplayError::Invalid(
            "probe: give sizes and a count > 0".into(),
        ));
    }
    let target = Target::open(&spec.target)?;
    let w = target.window;
    for &s in &spec.sizes {
        if s == 0 || s % w.align != 0 || s as u64 > w.size {
            return Err(ReplayError::Invalid(format!(
                "probe size {s}: must be a non-zero multiple of the {}-byte I/O unit within the \
                 {}-byte window",
                w.align, w.size
            )));
        }
    }
    let fd = std::os::unix::io::AsRawFd::as_raw_fd(&target.file);
    let (mut be, fallback) = backend::open(spec.backend, fd, 8)?;
    let mut io = InFlight::new(w, spec.target.allow_write, None, spec.seed);
    let prefill = spec
        .prefill
        .unwrap_or(target.info.created && spec.target.allow_write);
    if prefill {
        fill(be.as_mut(), &mut io)?;
    }
    let mut points = Vec::new();
    let mut x = spec.seed;
    let kinds: &[(IoKind, &'static str)] = if spec.writes {
        &[(IoKind::Read, "read"), (IoKind::Write, "write")]
    } else {
        &[(IoKind::Read, "read")]
    };
    let mut dones = Vec::new();
    for &(kind, op) in kinds {
        for &size in &spec.sizes {
            let slots = (w.size - size as u64) / w.align as u64 + 1;
            let mut lat = Vec::with_capacity(spec.per_size as usize);
            for _ in 0..spec.per_size {
                x = mix(x);
                let start = (x % slots) * w.align as u64;
                let t = Instant::now();
                io.send(be.as_mut(), 0, kind, start, size as u64)?;
                dones.clear();
                while dones.is_empty() {
                    be.wait(None, &mut dones)?;
                }
                lat.push(t.elapsed().as_secs_f64() * 1e6);
                io.finish(dones[0], |_| {
                    format!("probe {op} of {size} bytes at {start}")
                })?;
            }
            lat.sort_by(f64::total_cmp);
            points.push(ProbePoint {
                op,
                size,
                n: spec.per_size,
                mean_us: lat.iter().sum::<f64>() / lat.len() as f64,
                p50_us: quantile(&lat, 0.5),
                p99_us: quantile(&lat, 0.99),
                min_us: lat[0],
            });
        }
    }
    let fits = kinds
        .iter()
        .filter_map(|&(_, op)| {
            let (xs, ys): (Vec<f64>, Vec<f64>) = points
                .iter()
                .filter(|p| p.op == op)
                .map(|p| (p.size as f64 / 1024.0, p.mean_us))
                .unzip();
            let (i, s, r2) = line_fit(&xs, &ys)?;
            Some(LineFit {
                op,
                intercept_us: i,
                slope_us_per_kib: s,
                mb_s: if s > 0.0 { 1024.0 / s } else { f64::INFINITY },
                r2,
            })
        })
        .collect();
    Ok(ProbeResult {
        points,
        fits,
        window: w,
        backend: be.settings(),
        fallback,
        kernel: env::kernel(),
        prefilled: prefill,
        target: target.info.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::line_fit;

    /// Worked example: y = 10 + 2x exactly, then one point off the line.
    #[test]
    fn line_fit_by_hand() {
        let (i, s, r2) = line_fit(&[1.0, 2.0, 3.0], &[12.0, 14.0, 16.0]).unwrap();
        assert!((i - 10.0).abs() < 1e-12 && (s - 2.0).abs() < 1e-12 && (r2 - 1.0).abs() < 1e-12);
        // (0,0), (1,1), (2,1): slope 0.5, intercept 1/6, R² = 0.75.
        let (i, s, r2) = line_fit(&[0.0, 1.0, 2.0], &[0.0, 1.0, 1.0]).unwrap();
        assert!((s - 0.5).abs() < 1e-12 && (i - 1.0 / 6.0).abs() < 1e-12);
        assert!((r2 - 0.75).abs() < 1e-12);
        assert!(line_fit(&[1.0, 1.0], &[2.0, 3.0]).is_none());
    }
}
