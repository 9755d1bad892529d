//! Run metrics: per-request records (struct of arrays, cheap to hand to
//! Arrow/pandas), latency histograms for reads, writes and all, and
//! per-second series.

pub mod histogram;
pub mod summary;

use crate::engine::{Ns, NS_PER_S};
use crate::workload::Op;
pub use histogram::Histogram;
pub use summary::{GcSummary, LatencySummary, Summary};

/// Per-request columns; row i is the i-th completed request.
#[derive(Debug, Default, Clone)]
pub struct Records {
    pub arrival: Vec<u64>,
    pub dispatch: Vec<u64>,
    pub complete: Vec<u64>,
    /// 0 = read, 1 = write, 2 = trim.
    pub op: Vec<u8>,
    pub offset: Vec<u64>,
    pub size: Vec<u32>,
    pub stream: Vec<u32>,
}

impl Records {
    pub fn len(&self) -> usize {
        self.arrival.len()
    }
    pub fn is_empty(&self) -> bool {
        self.arrival.is_empty()
    }
}

/// Totals for one second of simulated time (by completion time).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Second {
    pub ios: u64,
    pub reads: u64,
    pub writes: u64,
    pub bytes: u64,
    pub latency_sum_ns: u128,
}

/// Collects everything measured about completed requests.
#[derive(Debug, Clone)]
pub struct Metrics {
    keep_records: bool,
    pub records: Records,
    pub all: Histogram,
    pub read: Histogram,
    pub write: Histogram,
    pub seconds: Vec<Second>,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub trims: u64,
    pub last_completion: Ns,
}

/// One completed request.
#[derive(Debug, Clone, Copy)]
pub struct Completion {
    pub arrival: Ns,
    pub dispatch: Ns,
    pub complete: Ns,
    pub op: Op,
    pub offset: u64,
    pub size: u32,
    pub stream: u32,
}

impl Metrics {
    pub fn new(keep_records: bool) -> Self {
        Metrics {
            keep_records,
            records: Records::default(),
            all: Histogram::new(),
            read: Histogram::new(),
            write: Histogram::new(),
            seconds: Vec::new(),
            bytes_read: 0,
            bytes_written: 0,
            trims: 0,
            last_completion: 0,
        }
    }

    #[inline]
    pub fn record(&mut self, c: &Completion) {
        let lat = c.complete - c.arrival;
        self.last_completion = self.last_completion.max(c.complete);
        let sec = (c.complete / NS_PER_S) as usize;
        if sec >= self.seconds.len() {
            self.seconds.resize(sec + 1, Second::default());
        }
        let s = &mut self.seconds[sec];
        s.ios += 1;
        s.bytes += c.size as u64;
        s.latency_sum_ns += lat as u128;
        match c.op {
            Op::Read => {
                self.read.record(lat);
                self.bytes_read += c.size as u64;
                s.reads += 1;
            }
            Op::Write => {
                self.write.record(lat);
                self.bytes_written += c.size as u64;
                s.writes += 1;
            }
            Op::Trim => self.trims += 1,
        }
        if c.op != Op::Trim {
            self.all.record(lat);
        }
        if self.keep_records {
            let r = &mut self.records;
            r.arrival.push(c.arrival);
            r.dispatch.push(c.dispatch);
            r.complete.push(c.complete);
            r.op.push(match c.op {
                Op::Read => 0,
                Op::Write => 1,
                Op::Trim => 2,
            });
            r.offset.push(c.offset);
            r.size.push(c.size);
            r.stream.push(c.stream);
        }
    }

    /// Requests completed so far (reads + writes + trims).
    pub fn completed(&self) -> u64 {
        self.all.count() + self.trims
    }

    /// p99 latency (ns) per second, from the per-request records (empty when
    /// records are not kept).
    pub fn p99_per_second(&self) -> Vec<f64> {
        if !self.keep_records {
            return Vec::new();
        }
        let mut per: Vec<Vec<u64>> = vec![Vec::new(); self.seconds.len()];
        let r = &self.records;
        for i in 0..r.len() {
            if r.op[i] != 2 {
                per[(r.complete[i] / NS_PER_S) as usize].push(r.complete[i] - r.arrival[i]);
            }
        }
        per.into_iter()
            .map(|mut v| {
                if v.is_empty() {
                    return 0.0;
                }
                let k = ((0.99 * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
                *v.select_nth_unstable(k).1 as f64
            })
            .collect()
    }
}
