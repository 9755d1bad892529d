//! Can external GC keep up with the front-end? (the sizing condition the
//! workshop paper leaves implicit; SWAN states it as back-end reclamation
//! keeping pace with the front-end.)
//!
//! A victim whose written slots are a fraction `v` valid must have its
//! `v · cap` valid units copied away while the front-end fills the free
//! part of the next SSD, `(1 − v) · cap` units (the next front-end starts
//! with the copied data in it). At copy rate C and fill rate F that is
//! `v · cap / C ≤ (1 − v) · cap / F`, i.e. `v / (1 − v) ≤ C / F`.

use serde::Serialize;

/// Whether an xGC job with victim valid fraction `v` keeps up with a
/// front-end filling at `fill_rate` while copying at `copy_rate` (any
/// consistent units): `v / (1 − v) ≤ copy_rate / fill_rate`. A front-end
/// that does not fill is always kept up with; a fully valid victim never.
pub fn keeps_up(v: f64, copy_rate: f64, fill_rate: f64) -> bool {
    if fill_rate <= 0.0 {
        return true;
    }
    if v >= 1.0 {
        return false;
    }
    // Relative tolerance: equality holds exactly at the boundary.
    v / (1.0 - v) <= copy_rate / fill_rate * (1.0 + 1e-9)
}

/// The keep-up check over every finished xGC job.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KeepUp {
    /// xGC jobs finished (victims TRIMmed).
    pub jobs: u64,
    /// Jobs that broke the condition `v / (1 − v) ≤ C / F`.
    pub jobs_behind: u64,
    /// Largest victim valid fraction v at job start.
    pub max_valid_fraction: f64,
    /// Largest `v / (1 − v)` over the jobs (the copy/fill ratio needed).
    pub max_needed_ratio: f64,
    /// Smallest measured copy rate / fill rate over jobs whose front-end
    /// wrote anything (0 if none did).
    pub min_copy_fill_ratio: f64,
    /// Mean copy rate over the jobs, units/s (units copied / job time).
    pub copy_units_per_s: f64,
    /// Mean front-end fill rate during the jobs, units/s (units written /
    /// job time in which writes were not waiting for xGC).
    pub fill_units_per_s: f64,
}

impl KeepUp {
    /// Record a finished job: victim valid fraction `v` at its start,
    /// `copied` units over `secs`, `written` user units over `fill_secs`
    /// (the job's time minus the time writes waited).
    pub fn record(&mut self, v: f64, copied: u64, secs: f64, written: u64, fill_secs: f64) {
        let copy = if secs > 0.0 {
            copied as f64 / secs
        } else {
            0.0
        };
        let fill = if fill_secs > 0.0 {
            written as f64 / fill_secs
        } else {
            0.0
        };
        let n = self.jobs as f64;
        self.copy_units_per_s = (self.copy_units_per_s * n + copy) / (n + 1.0);
        self.fill_units_per_s = (self.fill_units_per_s * n + fill) / (n + 1.0);
        self.jobs += 1;
        self.max_valid_fraction = self.max_valid_fraction.max(v);
        let need = if v < 1.0 { v / (1.0 - v) } else { f64::MAX };
        self.max_needed_ratio = self.max_needed_ratio.max(need);
        if fill > 0.0 {
            let r = copy / fill;
            if self.jobs == 1 || self.min_copy_fill_ratio == 0.0 || r < self.min_copy_fill_ratio {
                self.min_copy_fill_ratio = r;
            }
        }
        if !keeps_up(v, copy, fill) {
            self.jobs_behind += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Worked by hand: v = 0.5 needs C/F ≥ 0.5/0.5 = 1; v = 0.6 needs
    /// 0.6/0.4 = 1.5; v = 0.75 needs 3; v = 0.2 needs 0.25.
    #[test]
    fn keep_up_condition_worked_examples() {
        assert!(keeps_up(0.5, 900.0, 900.0)); // 1 ≤ 1
        assert!(!keeps_up(0.5, 899.0, 900.0)); // 1 > 0.999
        assert!(!keeps_up(0.6, 900.0, 900.0)); // 1.5 > 1
        assert!(keeps_up(0.6, 1350.0, 900.0)); // 1.5 ≤ 1.5
        assert!(keeps_up(0.75, 2700.0, 900.0)); // 3 ≤ 3
        assert!(!keeps_up(0.75, 1800.0, 900.0)); // 3 > 2
        assert!(keeps_up(0.2, 250.0, 1000.0)); // 0.25 ≤ 0.25
        assert!(!keeps_up(1.0, 1e12, 1.0)); // a fully valid victim frees nothing
        assert!(keeps_up(0.9, 0.0, 0.0)); // nothing to keep up with
    }

    /// Two jobs: v = 0.5 copying 1000 units in 1 s while 1000 units were
    /// written in 1 s (C/F = 1, kept up); v = 0.6 copying 600 units in 1 s
    /// while 800 were written in 0.5 s of unstalled time (C/F = 600/1600 =
    /// 0.375 < 1.5: behind).
    #[test]
    fn record_counts_jobs_behind() {
        let mut k = KeepUp::default();
        k.record(0.5, 1000, 1.0, 1000, 1.0);
        assert_eq!((k.jobs, k.jobs_behind), (1, 0));
        k.record(0.6, 600, 1.0, 800, 0.5);
        assert_eq!((k.jobs, k.jobs_behind), (2, 1));
        assert!((k.max_needed_ratio - 1.5).abs() < 1e-12);
        assert!((k.min_copy_fill_ratio - 0.375).abs() < 1e-12);
        assert!((k.copy_units_per_s - 800.0).abs() < 1e-9);
        assert!((k.fill_units_per_s - 1300.0).abs() < 1e-9);
        assert_eq!(k.max_valid_fraction, 0.6);
    }
}
