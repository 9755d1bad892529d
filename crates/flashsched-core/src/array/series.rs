//! Per-bin time series of an array run: bandwidth of the array (by request
//! completion) and of each SSD (by sub-request completion), xGC copies, and
//! each SSD's cumulative internal-GC count sampled at bin ends.
//!
//! Sparse (`metrics::bins`): counts are kept for bins that received
//! something, sampled state as change points, so idle simulated time costs
//! no memory. [`ArraySeries::table`] lists the bins in which anything
//! happened.

use crate::engine::Ns;
use crate::metrics::bins::{union_bins, SparseBins, StepSeries};

/// Time series of an array run, one entry per bin of `bin_ns` (every
/// series has the same length once the run has finished).
#[derive(Debug, Clone, Default)]
pub struct ArraySeries {
    /// Bin width, ns.
    pub bin_ns: Ns,
    /// Bytes of client requests completed per bin.
    pub array_bytes: SparseBins<u64>,
    /// Per SSD: bytes written per bin (user, RAID-5 and xGC traffic).
    pub ssd_written: Vec<SparseBins<u64>>,
    /// Per SSD: bytes read per bin (user, RAID-5 and xGC traffic).
    pub ssd_read: Vec<SparseBins<u64>>,
    /// Units copied by xGC per bin (serial array).
    pub xgc_units: SparseBins<u64>,
    /// Per SSD: internal GC invocations so far, at the end of each bin.
    pub gc_cumulative: Vec<StepSeries<u64>>,
    /// Per SSD: pages internal GC has moved so far, at the end of each bin.
    pub gc_moved_cumulative: Vec<StepSeries<u64>>,
    /// Front-end SSD at the end of each bin (-1 = none / not serial; the
    /// first one when there are several).
    pub front: StepSeries<i32>,
    /// Every front-end at the end of each bin: bit i set = SSD i (< 64).
    pub front_mask: StepSeries<u64>,
    /// Bins sampled so far (the state of bins below this is recorded).
    sampled: u64,
}

/// The series over the bins in which anything happened (bytes moved, an
/// xGC copy, a GC invocation, a front-end change), all columns aligned with
/// `bins`; a bin not listed had none of these.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SeriesTable {
    /// Bin numbers (bin `b` covers `[b, b + 1) × bin_s`), ascending.
    pub bins: Vec<u64>,
    /// Bytes the array completed per bin.
    pub array_bytes: Vec<u64>,
    /// Bytes on the link, host to array / array to host, per bin.
    pub wire_in: Vec<f64>,
    /// See `wire_in`.
    pub wire_out: Vec<f64>,
    /// External-GC copy units per bin (serial arrays).
    pub xgc_units: Vec<u64>,
    /// Index of the front-end SSD at the end of the bin (serial arrays; the
    /// first one when there are several).
    pub front: Vec<i32>,
    /// Bit mask of every front-end SSD (< 64) at the end of the bin.
    pub front_mask: Vec<u64>,
    /// Per SSD: bytes written per bin.
    pub ssd_written: Vec<Vec<u64>>,
    /// Per SSD: bytes read per bin.
    pub ssd_read: Vec<Vec<u64>>,
    /// Per SSD: GC invocations so far at the end of the bin.
    pub gc_cumulative: Vec<Vec<u64>>,
    /// Per SSD: pages GC moved so far at the end of the bin.
    pub gc_moved_cumulative: Vec<Vec<u64>>,
}

/// `s`'s value at each of `bins` (ascending), 0 where it has none.
fn column<T: Copy + Default>(s: &SparseBins<T>, bins: &[u64]) -> Vec<T> {
    let mut k = 0;
    let (have, vals) = (s.bins(), s.values());
    bins.iter()
        .map(|&b| {
            while k < have.len() && have[k] < b {
                k += 1;
            }
            if k < have.len() && have[k] == b {
                vals[k]
            } else {
                T::default()
            }
        })
        .collect()
}

impl ArraySeries {
    /// Empty series for `ssds` SSDs and bins of `bin_ns` (at least 1 ns).
    pub(crate) fn new(ssds: usize, bin_ns: Ns) -> ArraySeries {
        ArraySeries {
            bin_ns: bin_ns.max(1),
            ssd_written: vec![SparseBins::default(); ssds],
            ssd_read: vec![SparseBins::default(); ssds],
            gc_cumulative: vec![StepSeries::default(); ssds],
            gc_moved_cumulative: vec![StepSeries::default(); ssds],
            front: StepSeries::starting_at(-1),
            ..Default::default()
        }
    }

    #[inline]
    fn bin(&self, t: Ns) -> u64 {
        t / self.bin_ns
    }

    /// A client request of `bytes` completed at `t`.
    pub(crate) fn add_array(&mut self, t: Ns, bytes: u64) {
        let b = self.bin(t);
        *self.array_bytes.at(b) += bytes;
    }

    /// A sub-request of `bytes` completed on `ssd` at `t`.
    pub(crate) fn add_ssd(&mut self, ssd: usize, t: Ns, bytes: u64, write: bool) {
        let b = self.bin(t);
        let v = if write {
            &mut self.ssd_written[ssd]
        } else {
            &mut self.ssd_read[ssd]
        };
        *v.at(b) += bytes;
    }

    /// xGC copied one unit at `t`.
    pub(crate) fn add_xgc(&mut self, t: Ns) {
        let b = self.bin(t);
        *self.xgc_units.at(b) += 1;
    }

    /// Bins sampled so far.
    pub(crate) fn sampled(&self) -> u64 {
        self.sampled
    }

    /// Record the state at the end of every bin before `t`'s bin (nothing
    /// changed since the last event, so all of them hold the current state).
    /// `gc(i)` is SSD i's (GC invocations, GC pages moved) so far.
    /// `front` is (first front-end or -1, mask of every front-end).
    pub(crate) fn sample_until(
        &mut self,
        t: Ns,
        gc: impl Fn(usize) -> (u64, u64),
        front: (i32, u64),
    ) {
        self.sample_bins(self.bin(t), gc, front);
    }

    fn sample_bins(&mut self, upto: u64, gc: impl Fn(usize) -> (u64, u64), front: (i32, u64)) {
        if upto <= self.sampled {
            return;
        }
        let from = self.sampled;
        for (i, (s, m)) in self
            .gc_cumulative
            .iter_mut()
            .zip(self.gc_moved_cumulative.iter_mut())
            .enumerate()
        {
            let (n, moved) = gc(i);
            s.set_from(from, n);
            m.set_from(from, moved);
        }
        self.front.set_from(from, front.0);
        self.front_mask.set_from(from, front.1);
        self.sampled = upto;
    }

    /// Sample the state at the end of the run (ending at `t`) and of every
    /// bin that received something.
    pub(crate) fn finish(&mut self, t: Ns, gc: impl Fn(usize) -> (u64, u64), front: (i32, u64)) {
        let last = |s: &SparseBins<u64>| s.bins().last().map_or(0, |&b| b + 1);
        let n = [
            self.bin(t) + 1,
            last(&self.array_bytes),
            last(&self.xgc_units),
            self.ssd_written.iter().map(last).max().unwrap_or(0),
            self.ssd_read.iter().map(last).max().unwrap_or(0),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        self.sample_bins(n, gc, front);
    }

    /// Every series over the bins in which anything happened; `wire` is the
    /// link's (inbound, outbound) series, if there is a link.
    pub fn table(&self, wire: Option<(&SparseBins<f64>, &SparseBins<f64>)>) -> SeriesTable {
        let gc_bins: Vec<Vec<u64>> = self
            .gc_cumulative
            .iter()
            .chain(&self.gc_moved_cumulative)
            .map(|s| s.change_bins().collect())
            .collect();
        let mut front_bins: Vec<u64> = self.front.change_bins().collect();
        front_bins.extend(self.front_mask.change_bins());
        front_bins.sort_unstable();
        front_bins.dedup();
        let mut lists: Vec<&[u64]> =
            vec![self.array_bytes.bins(), self.xgc_units.bins(), &front_bins];
        lists.extend(self.ssd_written.iter().map(|s| s.bins()));
        lists.extend(self.ssd_read.iter().map(|s| s.bins()));
        lists.extend(gc_bins.iter().map(|v| v.as_slice()));
        if let Some((wi, wo)) = wire {
            lists.push(wi.bins());
            lists.push(wo.bins());
        }
        let bins = union_bins(lists);
        let empty = SparseBins::default();
        let (wi, wo) = wire.unwrap_or((&empty, &empty));
        SeriesTable {
            array_bytes: column(&self.array_bytes, &bins),
            wire_in: column(wi, &bins),
            wire_out: column(wo, &bins),
            xgc_units: column(&self.xgc_units, &bins),
            front: bins.iter().map(|&b| self.front.at(b)).collect(),
            front_mask: bins.iter().map(|&b| self.front_mask.at(b)).collect(),
            ssd_written: self.ssd_written.iter().map(|s| column(s, &bins)).collect(),
            ssd_read: self.ssd_read.iter().map(|s| column(s, &bins)).collect(),
            gc_cumulative: self
                .gc_cumulative
                .iter()
                .map(|s| bins.iter().map(|&b| s.at(b)).collect())
                .collect(),
            gc_moved_cumulative: self
                .gc_moved_cumulative
                .iter()
                .map(|s| bins.iter().map(|&b| s.at(b)).collect())
                .collect(),
            bins,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two bursts a year of simulated time apart: two rows, not 3·10^7; the
    /// GC count and the front-end are those at the end of each listed bin.
    #[test]
    fn idle_bins_are_not_stored_or_listed() {
        let bin = 1_000_000_000; // 1 s
        let year = 365 * 86_400 * bin;
        let mut s = ArraySeries::new(2, bin);
        s.add_array(10, 4096);
        s.add_ssd(1, 20, 4096, true);
        s.sample_until(year + 5, |i| (i as u64, 10 * i as u64), (0, 1)); // SSD 1: 1 GC
        s.add_array(year + 5, 8192);
        s.add_xgc(year + 6);
        s.finish(year + 7, |i| (3 + i as u64, 7), (1, 0b110));
        let t = s.table(None);
        assert_eq!(t.bins, vec![0, year / bin]);
        assert_eq!(t.array_bytes, vec![4096, 8192]);
        assert_eq!(t.xgc_units, vec![0, 1]);
        assert_eq!(t.ssd_written, vec![vec![0, 0], vec![4096, 0]]);
        assert_eq!(t.gc_cumulative, vec![vec![0, 3], vec![1, 4]]);
        assert_eq!(t.gc_moved_cumulative, vec![vec![0, 7], vec![10, 7]]);
        assert_eq!(t.front, vec![0, 1]);
        assert_eq!(t.front_mask, vec![1, 0b110]);
        assert_eq!(t.wire_in, vec![0.0, 0.0]);
        let held = s.array_bytes.heap_bytes() + s.xgc_units.heap_bytes();
        assert!(held < 1000, "{held} bytes");
    }
}
