//! A host GC detector scored against the device's ground truth.
//!
//! Amphibian (§III-E) holds requests to zones it believes are in GC. Whether
//! that helps depends on how often the belief is right, so the run reports
//! the detector itself: zone-time held vs zone-time in GC (precision and
//! recall over time), how many "in GC" verdicts were right when made, and
//! how many GC episodes were noticed at all.
//!
//! Ground truth for a zone: with chip zones, zone `z` is in GC while chip
//! `z` runs a GC job; with LBA-range zones every zone spans all chips
//! (static striping spreads a range over every chip), so a zone counts as
//! in GC while any chip is.

use serde::{Deserialize, Serialize};

use crate::device::GcChange;
use crate::engine::{Ns, NS_PER_S};
use crate::host::sched::DetectorLog;

/// `gc_detection` in the summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DetectionSummary {
    /// "chip" or "range".
    pub zone_kind: String,
    /// Zones the scheduler tracked.
    pub zones: u32,
    /// Verdicts "zone in GC" (after probes, or the oracle's flag).
    pub flags: u64,
    /// Of those, made while the zone was in GC.
    pub flags_in_gc: u64,
    /// Probe reads the scheduler injected.
    pub probes: u64,
    /// Zone-seconds the scheduler held requests back (suspect or in GC).
    pub held_zone_s: f64,
    /// Zone-seconds zones were in GC.
    pub gc_zone_s: f64,
    /// Zone-seconds held while in GC.
    pub overlap_zone_s: f64,
    /// overlap / held (`None` when nothing was held).
    pub precision: Option<f64>,
    /// overlap / in GC (`None` when no zone was in GC).
    pub recall: Option<f64>,
    /// GC episodes (a zone entering GC until it leaves it).
    pub gc_episodes: u64,
    /// Episodes during which the zone was held at some point.
    pub episodes_detected: u64,
}

enum Ev {
    Gc(GcChange),
    Hold(u32, bool),
    Flag(u32),
}

/// Score `log` against `truth` (the device's chip GC changes) up to `end`.
pub fn score(log: &DetectorLog, chips: u32, truth: &[GcChange], end: Ns) -> DetectionSummary {
    let zones = log.zones as usize;
    // Merge the three time-ordered streams; at equal times the device's
    // state changes first (a verdict at t sees GC that began at t).
    let mut evs: Vec<(Ns, u8, Ev)> = Vec::with_capacity(truth.len() + log.changes.len());
    evs.extend(truth.iter().map(|g| (g.at, 0, Ev::Gc(*g))));
    evs.extend(
        log.changes
            .iter()
            .map(|c| (c.at, 1, Ev::Hold(c.zone, c.held))),
    );
    evs.extend(log.flags.iter().map(|f| (f.at, 2, Ev::Flag(f.zone))));
    evs.sort_by_key(|e| (e.0, e.1));

    let mut held = vec![false; zones];
    let mut chip_gc = vec![false; chips as usize];
    let mut any_gc = 0u32;
    // Episodes: per zone, whether the current one has been held.
    let mut ep_open = vec![false; zones];
    let mut ep_hit = vec![false; zones];
    let (mut n_held, mut n_gc, mut n_both) = (0u64, 0u64, 0u64);
    let (mut held_ns, mut gc_ns, mut both_ns) = (0f64, 0f64, 0f64);
    let mut s = DetectionSummary {
        zone_kind: if log.chip_zones { "chip" } else { "range" }.into(),
        zones: log.zones,
        flags: 0,
        flags_in_gc: 0,
        probes: log.probes_sent,
        held_zone_s: 0.0,
        gc_zone_s: 0.0,
        overlap_zone_s: 0.0,
        precision: None,
        recall: None,
        gc_episodes: 0,
        episodes_detected: 0,
    };
    let in_gc = |z: usize, chip_gc: &[bool], any_gc: u32| {
        if log.chip_zones {
            chip_gc.get(z).copied().unwrap_or(false)
        } else {
            any_gc > 0
        }
    };
    let mut last = 0;
    for (at, _, ev) in evs
        .iter()
        .chain(std::iter::once(&(end, 3, Ev::Flag(u32::MAX))))
    {
        let t = (*at).max(last);
        let dt = (t - last) as f64;
        held_ns += dt * n_held as f64;
        gc_ns += dt * n_gc as f64;
        both_ns += dt * n_both as f64;
        last = t;
        // Zones whose truth may change with this event.
        let affected: Vec<usize> = match ev {
            Ev::Gc(g) if log.chip_zones => vec![g.chip as usize],
            Ev::Gc(_) => (0..zones).collect(),
            _ => Vec::new(),
        };
        let before: Vec<bool> = affected
            .iter()
            .map(|&z| in_gc(z, &chip_gc, any_gc))
            .collect();
        match ev {
            Ev::Gc(g) => {
                if let Some(c) = chip_gc.get_mut(g.chip as usize) {
                    if *c != g.in_gc {
                        *c = g.in_gc;
                        if g.in_gc {
                            any_gc += 1;
                        } else {
                            any_gc -= 1;
                        }
                    }
                }
            }
            Ev::Hold(z, h) => {
                let z = *z as usize;
                if z < zones && held[z] != *h {
                    held[z] = *h;
                    let g = in_gc(z, &chip_gc, any_gc);
                    if *h {
                        n_held += 1;
                        n_both += u64::from(g);
                        if ep_open[z] {
                            ep_hit[z] = true;
                        }
                    } else {
                        n_held -= 1;
                        n_both -= u64::from(g);
                    }
                }
            }
            Ev::Flag(z) => {
                let z = *z as usize;
                if z < zones {
                    s.flags += 1;
                    s.flags_in_gc += u64::from(in_gc(z, &chip_gc, any_gc));
                }
            }
        }
        for (&z, &was) in affected.iter().zip(&before) {
            if z >= zones {
                continue;
            }
            let now = in_gc(z, &chip_gc, any_gc);
            if was == now {
                continue;
            }
            if now {
                n_gc += 1;
                n_both += u64::from(held[z]);
                ep_open[z] = true;
                ep_hit[z] = held[z];
            } else {
                n_gc -= 1;
                n_both -= u64::from(held[z]);
                s.gc_episodes += 1;
                s.episodes_detected += u64::from(ep_hit[z]);
                ep_open[z] = false;
            }
        }
    }
    // Episodes still running at the end count too.
    for z in 0..zones {
        if ep_open[z] {
            s.gc_episodes += 1;
            s.episodes_detected += u64::from(ep_hit[z]);
        }
    }
    let sec = |ns: f64| ns / NS_PER_S as f64;
    s.held_zone_s = sec(held_ns);
    s.gc_zone_s = sec(gc_ns);
    s.overlap_zone_s = sec(both_ns);
    s.precision = (held_ns > 0.0).then(|| both_ns / held_ns);
    s.recall = (gc_ns > 0.0).then(|| both_ns / gc_ns);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::sched::{GcFlag, ZoneChange};

    fn gc(at: Ns, chip: u32, in_gc: bool) -> GcChange {
        GcChange { at, chip, in_gc }
    }
    fn hold(at: Ns, zone: u32, held: bool) -> ZoneChange {
        ZoneChange { at, zone, held }
    }

    /// Two chips. Chip 0 in GC 10..30 and 50..60, chip 1 in GC 40..45.
    /// Zone 0 held 20..40 (flagged at 25), zone 1 held 0..5 (flagged at 2).
    /// Held 20 + 5 = 25; in GC 20 + 10 + 5 = 35; overlap 10 (zone 0, 20..30).
    #[test]
    fn chip_zones_worked_example() {
        let truth = [
            gc(10, 0, true),
            gc(30, 0, false),
            gc(40, 1, true),
            gc(45, 1, false),
            gc(50, 0, true),
            gc(60, 0, false),
        ];
        let changes = [
            hold(0, 1, true),
            hold(5, 1, false),
            hold(20, 0, true),
            hold(40, 0, false),
        ];
        let flags = [GcFlag { at: 2, zone: 1 }, GcFlag { at: 25, zone: 0 }];
        let log = DetectorLog {
            zones: 2,
            chip_zones: true,
            changes: &changes,
            flags: &flags,
            probes_sent: 6,
        };
        let s = score(&log, 2, &truth, 100);
        let ns = 1e-9;
        assert!((s.held_zone_s - 25.0 * ns).abs() < 1e-15);
        assert!((s.gc_zone_s - 35.0 * ns).abs() < 1e-15);
        assert!((s.overlap_zone_s - 10.0 * ns).abs() < 1e-15);
        assert_eq!(s.precision, Some(10.0 / 25.0));
        assert_eq!(s.recall, Some(10.0 / 35.0));
        assert_eq!((s.flags, s.flags_in_gc, s.probes), (2, 1, 6));
        // Episodes: chip 0 10..30 (held from 20: detected), chip 1 40..45
        // (zone 1 not held), chip 0 50..60 (not held).
        assert_eq!((s.gc_episodes, s.episodes_detected), (3, 1));
    }

    /// Range zones: a zone is in GC while any chip is. Chips 0 and 1
    /// overlap (10..30 and 20..40), so "any chip" is 10..40; two zones
    /// make 60 zone-ns in GC. Zone 1 held 35..50 overlaps 5.
    #[test]
    fn range_zones_use_any_chip() {
        let truth = [
            gc(10, 0, true),
            gc(20, 1, true),
            gc(30, 0, false),
            gc(40, 1, false),
        ];
        let changes = [hold(35, 1, true), hold(50, 1, false)];
        let log = DetectorLog {
            zones: 2,
            chip_zones: false,
            changes: &changes,
            flags: &[],
            probes_sent: 0,
        };
        let s = score(&log, 2, &truth, 50);
        assert!((s.gc_zone_s - 60e-9).abs() < 1e-15);
        assert!((s.held_zone_s - 15e-9).abs() < 1e-15);
        assert_eq!(s.precision, Some(5.0 / 15.0));
        assert_eq!(s.recall, Some(5.0 / 60.0));
        assert_eq!((s.gc_episodes, s.episodes_detected), (2, 1));
    }

    /// Held through the end of the run and GC never ending: both intervals
    /// close at `end`; nothing held gives no precision.
    #[test]
    fn open_intervals_close_at_the_end() {
        let truth = [gc(10, 0, true)];
        let changes = [hold(0, 0, true)];
        let log = DetectorLog {
            zones: 1,
            chip_zones: true,
            changes: &changes,
            flags: &[],
            probes_sent: 0,
        };
        let s = score(&log, 1, &truth, 30);
        assert_eq!(s.precision, Some(20.0 / 30.0));
        assert_eq!(s.recall, Some(1.0));
        assert_eq!((s.gc_episodes, s.episodes_detected), (1, 1));
        let none = DetectorLog {
            zones: 1,
            chip_zones: true,
            changes: &[],
            flags: &[],
            probes_sent: 0,
        };
        let s = score(&none, 1, &truth, 30);
        assert_eq!(s.precision, None);
        assert_eq!(s.recall, Some(0.0));
    }
}
