//! Process variation: per-block program speed (VIOS §2.2 and §4; Shi et al.
//! TVLSI'16 write-speed detection; baselines.md §6.4). Every assumption the
//! papers leave open is listed in docs/variation.md.
//!
//! Each block draws a BER growth rate `g` (raw BER per 1000 P/E cycles at the
//! slowest write step) once, from a Gaussian bounded to mean ± k·sd, so a
//! block stays relatively fast or slow for its whole life. At wear `N` P/E
//! cycles and ISPP step ΔVp its raw BER is
//! `g · N/1000 · (ΔVp / step_min)^exponent`. Write-speed detection (run when a
//! block is erased) picks the largest ΔVp on the grid
//! `step_min, step_min + step_inc, …, step_max` whose BER the ECC still
//! corrects, never raising a block's step again (VIOS §3.1), and
//! `tPROG = program_us · step_min / ΔVp` (VIOS §4: 600 µs at 0.3, inversely
//! proportional to ΔVp). Reads and erases do not vary.

use serde::{Deserialize, Serialize};

use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::flash::timing::range;
use crate::rng::Rng;

/// Process-variation model (docs/variation.md; VIOS §4, baselines §6.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VariationConfig {
    /// Per-block program speeds from the variation model (every scheduler).
    pub enabled: bool,
    /// Wear stage of the device in P/E cycles (VIOS evaluates 6K/9K/12K/15K).
    pub wear_pe: u32,
    /// BER growth rate per 1000 P/E cycles: mean of the bounded Gaussian.
    pub ber_growth_mean: f64,
    /// Its standard deviation.
    pub ber_growth_sd: f64,
    /// The Gaussian is bounded to mean ± this many sd.
    pub ber_bound_sd: f64,
    /// Smallest (slowest) ISPP write step ΔVp, V; tPROG = program_us ×
    /// step_min / ΔVp.
    pub step_min: f64,
    /// Largest (fastest) write step, V.
    pub step_max: f64,
    /// Granularity of the write-step grid, V.
    pub step_inc: f64,
    /// Highest raw BER the ECC corrects (write-speed detection target).
    pub ecc_ber: f64,
    /// BER grows as (ΔVp / step_min)^exponent.
    pub step_exponent: f64,
}

impl Default for VariationConfig {
    fn default() -> Self {
        VariationConfig {
            enabled: false,
            wear_pe: 12_000,
            ber_growth_mean: 3.7e-4,
            ber_growth_sd: 9e-5,
            ber_bound_sd: 3.0,
            step_min: 0.3,
            step_max: 0.6,
            step_inc: 0.03,
            ecc_ber: 8.9e-3,
            step_exponent: 2.0,
        }
    }
}

impl VariationConfig {
    /// Range checks; each error names its key and the allowed range.
    pub fn validate(&self) -> SimResult<()> {
        let v = self;
        range("variation.ber_growth_mean", v.ber_growth_mean, 1e-12, 1.0)?;
        range("variation.ber_growth_sd", v.ber_growth_sd, 0.0, 1.0)?;
        range("variation.ber_bound_sd", v.ber_bound_sd, 0.0, 10.0)?;
        range("variation.step_min", v.step_min, 1e-3, 10.0)?;
        range("variation.step_max", v.step_max, v.step_min, 10.0)?;
        range("variation.step_inc", v.step_inc, 1e-4, 10.0)?;
        range("variation.ecc_ber", v.ecc_ber, 1e-12, 1.0)?;
        range("variation.step_exponent", v.step_exponent, 0.1, 10.0)?;
        if v.wear_pe > 10_000_000 {
            return Err(SimError::config(
                "variation.wear_pe",
                format!("{} is outside [0, 10000000]", v.wear_pe),
            ));
        }
        Ok(())
    }
}

/// Per-block write step and program-latency factor.
#[derive(Debug, Clone)]
pub struct Variation {
    cfg: VariationConfig,
    /// BER growth rate per block (per 1000 P/E cycles at step_min).
    growth: Vec<f32>,
    /// Current write step ΔVp per block.
    step: Vec<f32>,
    /// Program latency multiplier per block (step_min / ΔVp, or an override).
    factor: Vec<f32>,
}

impl Variation {
    /// Draw the growth rates and detect every block's speed at `cfg.wear_pe`
    /// plus its erase count.
    pub fn new(cfg: &VariationConfig, blocks: u32, erase_counts: &[u32], seed: u64) -> Self {
        let mut rng = Rng::derive(seed, 0x7076); // "pv"
        let lo = (cfg.ber_growth_mean - cfg.ber_bound_sd * cfg.ber_growth_sd).max(1e-12);
        let hi = cfg.ber_growth_mean + cfg.ber_bound_sd * cfg.ber_growth_sd;
        let growth = (0..blocks)
            .map(|_| {
                bounded_gaussian(&mut rng, cfg.ber_growth_mean, cfg.ber_growth_sd, lo, hi) as f32
            })
            .collect();
        let mut v = Variation {
            cfg: cfg.clone(),
            growth,
            step: vec![cfg.step_max as f32; blocks as usize],
            factor: vec![1.0; blocks as usize],
        };
        for b in 0..blocks {
            v.detect(b, erase_counts.get(b as usize).copied().unwrap_or(0));
        }
        v
    }

    /// Write-speed detection for `block` after `erases` erases in this run.
    pub fn detect(&mut self, block: u32, erases: u32) {
        let c = &self.cfg;
        let wear = (c.wear_pe as f64 + erases as f64) / 1000.0;
        let ber_min_step = self.growth[block as usize] as f64 * wear;
        let step = if ber_min_step <= 0.0 {
            c.step_max
        } else {
            // Largest step with ber_min_step·(s/step_min)^e ≤ ecc_ber.
            let s = c.step_min * (c.ecc_ber / ber_min_step).powf(1.0 / c.step_exponent);
            let k = ((s - c.step_min) / c.step_inc + 1e-9).floor().max(0.0);
            (c.step_min + k * c.step_inc).min(c.step_max)
        };
        let b = block as usize;
        let step = (step as f32).min(self.step[b]);
        self.step[b] = step;
        self.factor[b] = (c.step_min / step as f64) as f32;
    }

    /// Program latency of a page in `block` whose nominal (slowest-step)
    /// latency is `nominal`.
    #[inline]
    pub fn program_ns(&self, block: u32, nominal: Ns) -> Ns {
        (nominal as f64 * self.factor[block as usize] as f64).round() as Ns
    }

    /// Write step of `block` (V).
    pub fn step(&self, block: u32) -> f64 {
        self.step[block as usize] as f64
    }

    /// Pin `block`'s program latency to `ns` given the nominal `base` (worked
    /// examples and experiments).
    pub fn set_program_ns(&mut self, block: u32, ns: Ns, base: Ns) {
        self.factor[block as usize] = (ns as f64 / base.max(1) as f64) as f32;
    }
}

/// Gaussian draw rejected until it lies in [lo, hi] (the mean when sd = 0).
fn bounded_gaussian(rng: &mut Rng, mean: f64, sd: f64, lo: f64, hi: f64) -> f64 {
    if sd <= 0.0 || hi <= lo {
        return mean.clamp(lo, hi.max(lo));
    }
    loop {
        let x = mean + sd * rng.normal();
        if (lo..=hi).contains(&x) {
            return x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(wear: u32) -> Variation {
        let cfg = VariationConfig {
            enabled: true,
            wear_pe: wear,
            ..Default::default()
        };
        Variation::new(&cfg, 4000, &[], 7)
    }

    fn mean_factor(v: &Variation) -> f64 {
        v.factor.iter().map(|&f| f as f64).sum::<f64>() / v.factor.len() as f64
    }

    #[test]
    fn steps_on_grid_and_latency_inverse_to_step() {
        let v = model(12_000);
        for b in 0..4000 {
            let s = v.step(b);
            assert!((0.3 - 1e-6..=0.6 + 1e-6).contains(&s));
            let k = (s - 0.3) / 0.03;
            assert!((k - k.round()).abs() < 1e-3, "step {s} off grid");
            // 600 us at 0.3; inversely proportional to the step.
            let t = v.program_ns(b, 600_000) as f64;
            assert!((t - 600_000.0 * 0.3 / s).abs() < 50.0);
        }
    }

    #[test]
    fn wear_slows_programs_and_widens_spread() {
        let (a, b) = (model(6_000), model(15_000));
        assert!(mean_factor(&a) < mean_factor(&b));
        let spread = |v: &Variation| {
            let m = mean_factor(v);
            v.factor
                .iter()
                .map(|&f| (f as f64 - m).powi(2))
                .sum::<f64>()
                / v.factor.len() as f64
        };
        assert!(spread(&a) < spread(&b));
    }

    #[test]
    fn step_never_rises_after_detection() {
        let mut v = model(12_000);
        let before: Vec<f64> = (0..100).map(|b| v.step(b)).collect();
        for b in 0..100 {
            v.detect(b, 3000);
            assert!(v.step(b) <= before[b as usize] + 1e-9);
        }
    }
}
