//! Per-bin time series of an array run: bandwidth of the array (by request
//! completion) and of each SSD (by sub-request completion), xGC copies, and
//! each SSD's cumulative internal-GC count sampled at bin ends.

use crate::engine::Ns;

/// Time series of an array run, one entry per bin of `bin_ns` (every
/// series has the same length once the run has finished).
#[derive(Debug, Clone, Default)]
pub struct ArraySeries {
    /// Bin width, ns.
    pub bin_ns: Ns,
    /// Bytes of client requests completed per bin.
    pub array_bytes: Vec<u64>,
    /// Per SSD: bytes written per bin (user, RAID-5 and xGC traffic).
    pub ssd_written: Vec<Vec<u64>>,
    /// Per SSD: bytes read per bin (user, RAID-5 and xGC traffic).
    pub ssd_read: Vec<Vec<u64>>,
    /// Units copied by xGC per bin (serial array).
    pub xgc_units: Vec<u64>,
    /// Per SSD: internal GC invocations so far, at the end of each bin.
    pub gc_cumulative: Vec<Vec<u64>>,
    /// Front-end SSD at the end of each bin (-1 = none / not serial).
    pub front: Vec<i32>,
}

#[inline]
fn bump(v: &mut Vec<u64>, bin: usize, x: u64) {
    if bin >= v.len() {
        v.resize(bin + 1, 0);
    }
    v[bin] += x;
}

impl ArraySeries {
    /// Empty series for `ssds` SSDs and bins of `bin_ns` (at least 1 ns).
    pub(crate) fn new(ssds: usize, bin_ns: Ns) -> ArraySeries {
        ArraySeries {
            bin_ns: bin_ns.max(1),
            ssd_written: vec![Vec::new(); ssds],
            ssd_read: vec![Vec::new(); ssds],
            gc_cumulative: vec![Vec::new(); ssds],
            ..Default::default()
        }
    }

    #[inline]
    fn bin(&self, t: Ns) -> usize {
        (t / self.bin_ns) as usize
    }

    /// A client request of `bytes` completed at `t`.
    pub(crate) fn add_array(&mut self, t: Ns, bytes: u64) {
        let b = self.bin(t);
        bump(&mut self.array_bytes, b, bytes);
    }

    /// A sub-request of `bytes` completed on `ssd` at `t`.
    pub(crate) fn add_ssd(&mut self, ssd: usize, t: Ns, bytes: u64, write: bool) {
        let b = self.bin(t);
        let v = if write {
            &mut self.ssd_written[ssd]
        } else {
            &mut self.ssd_read[ssd]
        };
        bump(v, b, bytes);
    }

    /// xGC copied one unit at `t`.
    pub(crate) fn add_xgc(&mut self, t: Ns) {
        let b = self.bin(t);
        bump(&mut self.xgc_units, b, 1);
    }

    /// Bins sampled so far.
    pub(crate) fn sampled(&self) -> usize {
        self.front.len()
    }

    /// Record the state at the end of every bin before `t`'s bin.
    pub(crate) fn sample_until(&mut self, t: Ns, gc: impl Fn(usize) -> u64, front: i32) {
        let upto = self.bin(t);
        while self.front.len() < upto {
            for (i, v) in self.gc_cumulative.iter_mut().enumerate() {
                v.push(gc(i));
            }
            self.front.push(front);
        }
    }

    /// Pad every series to the same number of bins.
    pub(crate) fn finish(&mut self, t: Ns, gc: impl Fn(usize) -> u64, front: i32) {
        let n = [
            self.bin(t) + 1,
            self.array_bytes.len(),
            self.xgc_units.len(),
            self.ssd_written.iter().map(Vec::len).max().unwrap_or(0),
            self.ssd_read.iter().map(Vec::len).max().unwrap_or(0),
        ]
        .into_iter()
        .max()
        .unwrap_or(0);
        self.sample_until(n as Ns * self.bin_ns, gc, front);
        self.array_bytes.resize(n, 0);
        self.xgc_units.resize(n, 0);
        for v in self.ssd_written.iter_mut().chain(self.ssd_read.iter_mut()) {
            v.resize(n, 0);
        }
    }
}
