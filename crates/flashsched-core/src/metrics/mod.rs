//! Run metrics: per-request records (struct of arrays, cheap to hand to
//! Arrow/pandas), latency histograms for reads, writes and all, and
//! per-second series (sparse: only seconds in which something completed).

pub mod bins;
pub mod csv;
pub mod gc_detect;
pub mod histogram;
mod stage;
pub mod summary;
pub mod tail;

use std::ops::Deref;
use std::sync::Arc;

use crate::engine::{Ns, NS_PER_S};
pub use crate::io::Completion;
use crate::io::Op;
pub use bins::SparseBins;
pub use histogram::Histogram;
use stage::RowStage;
pub use summary::{GcSummary, LatencySummary, Summary};
pub use tail::TailLatency;

/// A growable column that can be handed out without copying: the run
/// appends to a plain vector, [`Column::share`] moves the contents into a
/// shared buffer it gives out, and an append after that takes the buffer
/// back if nobody holds it any more, or copies it (copy on write), so shared
/// contents never change.
///
/// Appending to a plain vector matters: a `Arc::make_mut` per append (what
/// this was) is an atomic compare-exchange per column per request, 7 per
/// completed request, ~3 % of a 1M-request run with records (issue #23).
#[derive(Debug, Clone)]
pub enum Column<T> {
    /// Only the run holds the contents.
    Owned(Vec<T>),
    /// The contents were given out; the next append takes them back or
    /// copies them.
    Shared(Arc<Vec<T>>),
}

impl<T> Default for Column<T> {
    fn default() -> Self {
        Column::Owned(Vec::new())
    }
}

impl<T: Clone> Column<T> {
    /// The contents as a plain vector to append to (taken back, or copied,
    /// if they were given out).
    pub(crate) fn owned(&mut self) -> &mut Vec<T> {
        if let Column::Shared(a) = self {
            let v = match Arc::get_mut(a) {
                Some(v) => std::mem::take(v),
                None => (**a).clone(),
            };
            *self = Column::Owned(v);
        }
        match self {
            Column::Owned(v) => v,
            // (Not reached: made owned above.)
            Column::Shared(a) => Arc::make_mut(a),
        }
    }

    /// The contents so far, shared (no copy).
    pub fn share(&mut self) -> Arc<Vec<T>> {
        let a = match std::mem::take(self) {
            Column::Owned(v) => Arc::new(v),
            Column::Shared(a) => a,
        };
        *self = Column::Shared(Arc::clone(&a));
        a
    }

    /// No rows, keeping the room of contents nobody else holds (shared
    /// contents still held elsewhere are left to them).
    fn clear(&mut self) {
        let mut v = match std::mem::take(self) {
            Column::Owned(v) => v,
            Column::Shared(a) => Arc::try_unwrap(a).unwrap_or_default(),
        };
        v.clear();
        *self = Column::Owned(v);
    }

    /// Whether nobody but this column holds its contents.
    fn unshared(&self) -> bool {
        match self {
            Column::Owned(_) => true,
            Column::Shared(a) => Arc::strong_count(a) == 1,
        }
    }

    /// Rows allocated (for the memory estimate).
    pub(crate) fn capacity(&self) -> usize {
        self.contents().capacity()
    }
}

impl<T> Column<T> {
    /// The vector holding the rows, whoever shares it.
    #[inline]
    fn contents(&self) -> &Vec<T> {
        match self {
            Column::Owned(v) => v,
            Column::Shared(a) => a,
        }
    }
}

impl<T> Deref for Column<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.contents()
    }
}

/// A request's `op` as its column stores it.
#[inline]
fn op_code(op: Op) -> u8 {
    match op {
        Op::Read => 0,
        Op::Write => 1,
        Op::Trim => 2,
    }
}

/// Per-request columns; row i is the i-th completed request (completion
/// order). Empty unless the run keeps records.
#[derive(Debug, Default, Clone)]
pub struct Records {
    /// Arrival at the host queue, ns.
    pub arrival: Column<u64>,
    /// Dispatch from the host queue to the device (or array layer), ns.
    pub dispatch: Column<u64>,
    /// Completion, ns.
    pub complete: Column<u64>,
    /// 0 = read, 1 = write, 2 = trim.
    pub op: Column<u8>,
    /// Byte offset on the device's (or array volume's) logical space.
    pub offset: Column<u64>,
    /// Size in bytes.
    pub size: Column<u32>,
    /// Stream id from the workload.
    pub stream: Column<u32>,
}

impl Records {
    /// Rows recorded.
    pub fn len(&self) -> usize {
        self.arrival.len()
    }
    /// No row recorded.
    pub fn is_empty(&self) -> bool {
        self.arrival.is_empty()
    }

    /// Room for `n` rows in every column, none recorded.
    pub fn with_capacity(n: usize) -> Records {
        Records {
            arrival: Column::Owned(Vec::with_capacity(n)),
            dispatch: Column::Owned(Vec::with_capacity(n)),
            complete: Column::Owned(Vec::with_capacity(n)),
            op: Column::Owned(Vec::with_capacity(n)),
            offset: Column::Owned(Vec::with_capacity(n)),
            size: Column::Owned(Vec::with_capacity(n)),
            stream: Column::Owned(Vec::with_capacity(n)),
        }
    }

    /// Whether nobody else holds any column's contents (so none of those
    /// changes when it is recorded into again).
    pub fn unshared(&self) -> bool {
        self.arrival.unshared()
            && self.dispatch.unshared()
            && self.complete.unshared()
            && self.op.unshared()
            && self.offset.unshared()
            && self.size.unshared()
            && self.stream.unshared()
    }

    /// Drop every row (columns nobody else holds keep their room).
    fn clear(&mut self) {
        self.arrival.clear();
        self.dispatch.clear();
        self.complete.clear();
        self.op.clear();
        self.offset.clear();
        self.size.clear();
        self.stream.clear();
    }
}

/// Totals for one second of simulated time (by completion time). Unlike the
/// latency histograms, `ios`, `bytes` and `latency_sum_ns` include TRIMs.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Second {
    /// Requests completed in this second (reads, writes and TRIMs).
    pub ios: u64,
    /// Reads completed.
    pub reads: u64,
    /// Writes completed.
    pub writes: u64,
    /// Bytes of the requests completed (TRIMmed bytes included).
    pub bytes: u64,
    /// Sum of those requests' latencies (arrival to completion), ns.
    pub latency_sum_ns: u128,
}

/// Collects everything measured about completed requests.
#[derive(Debug, Clone)]
pub struct Metrics {
    keep_records: bool,
    /// One row per request, if kept. A model that records through
    /// [`record_staged`](Self::record_staged) has rows not in it yet while
    /// it runs, and flushes them whenever it returns to its caller.
    pub records: Records,
    /// Rows on their way to `records` (`stage.rs`).
    stage: RowStage,
    /// Latency (ns, arrival to completion) of every read and write.
    pub all: Histogram,
    /// Latency of reads, ns.
    pub read: Histogram,
    /// Latency of writes, ns.
    pub write: Histogram,
    /// Per completion second, for the seconds in which something completed.
    pub seconds: SparseBins<Second>,
    /// Per-second p99 latencies of the rows taken away (`swap_records`).
    pub tail: TailLatency,
    /// Bytes of completed reads.
    pub bytes_read: u64,
    /// Bytes of completed writes.
    pub bytes_written: u64,
    /// Completed TRIMs.
    pub trims: u64,
    /// Time of the latest completion, ns.
    pub last_completion: Ns,
    /// Bytes records and series may take (`u64::MAX`: no limit).
    budget: u64,
    /// Completions at which the budget is checked next (powers of two:
    /// where the record columns are about to double).
    next_check: u64,
    /// (completions, bytes projected) when the budget was exceeded.
    over_budget: Option<(u64, u64)>,
}

impl Metrics {
    /// Empty metrics; `keep_records` keeps one row per request.
    pub fn new(keep_records: bool) -> Self {
        Metrics {
            keep_records,
            records: Records::default(),
            stage: RowStage::default(),
            all: Histogram::new(),
            read: Histogram::new(),
            write: Histogram::new(),
            seconds: SparseBins::default(),
            tail: TailLatency::default(),
            bytes_read: 0,
            bytes_written: 0,
            trims: 0,
            last_completion: 0,
            budget: u64::MAX,
            next_check: 1024,
            over_budget: None,
        }
    }

    /// Hold per-request records and time series to `bytes`: once they would
    /// need more, records stop and [`over_budget`](Self::over_budget)
    /// reports it (the simulation then stops with an error).
    pub fn set_budget(&mut self, bytes: u64) {
        self.budget = bytes;
    }

    /// (completions, bytes needed) if records and series outgrew the budget.
    pub fn over_budget(&self) -> Option<(u64, u64)> {
        self.over_budget
    }

    /// Bytes records and series would hold after their next growth.
    fn projected_bytes(&self) -> u64 {
        let r = &self.records;
        let rows = r.arrival.capacity() as u64 * 8 * 4 + r.op.capacity() as u64;
        let rows = rows + (r.size.capacity() + r.stream.capacity()) as u64 * 4;
        2 * (rows + (self.seconds.heap_bytes() + self.tail.heap_bytes()) as u64)
    }

    #[cold]
    fn check_budget(&mut self) {
        self.next_check = self.next_check.saturating_mul(2);
        let need = self.projected_bytes();
        if need > self.budget && self.over_budget.is_none() {
            self.over_budget = Some((self.completed(), need));
            self.keep_records = false;
        }
    }

    /// The rows recorded so far; recording goes on into `spare` (emptied
    /// first), whose vectors keep their room where nobody else holds them:
    /// a streamed run's buffers come back once written, so the run does not
    /// fault in fresh memory and regrow its vectors for every row group.
    /// The rows' latencies stay for the per-second p99 until their second
    /// settles: `floor` is the earliest completion any row recorded from
    /// now on can have ([`TailLatency`]).
    pub fn swap_records(&mut self, mut spare: Records, floor: Ns) -> Records {
        self.flush_staged();
        spare.clear();
        let rows = std::mem::replace(&mut self.records, spare);
        self.tail.fold(&rows, self.seconds.bins(), floor);
        rows
    }

    /// Account one completed request (its row, if kept, in `records` at
    /// once).
    #[inline]
    pub fn record(&mut self, c: &Completion) {
        self.record_staged(c);
        self.flush_staged();
    }

    /// Account one completed request, its row (if kept) staged: in
    /// `records` after the next [`flush_staged`](Self::flush_staged),
    /// which the caller runs before anyone reads them.
    #[inline]
    pub fn record_staged(&mut self, c: &Completion) {
        self.account(c);
        if self.keep_records && self.stage.push(c) {
            self.stage.flush_into(&mut self.records);
        }
    }

    /// Put the staged rows in `records`.
    #[inline]
    pub fn flush_staged(&mut self) {
        self.stage.flush_into(&mut self.records);
    }

    /// The histograms, series and budget of one completed request.
    #[inline(always)]
    fn account(&mut self, c: &Completion) {
        let lat = c.complete - c.arrival;
        self.last_completion = self.last_completion.max(c.complete);
        let s = self.seconds.at(c.complete / NS_PER_S);
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
        if self.completed() >= self.next_check {
            self.check_budget();
        }
    }

    /// Requests completed so far (reads + writes + trims).
    pub fn completed(&self) -> u64 {
        self.all.count() + self.trims
    }

    /// p99 latency (ns) of each second in [`seconds`](Self::seconds) (same
    /// order; 0 for a second of TRIMs only), from the per-request records,
    /// those held and those taken away as the run went (`swap_records`);
    /// empty when records are not kept.
    pub fn p99_per_second(&self) -> Vec<f64> {
        debug_assert!(self.stage.is_empty(), "rows staged, not flushed");
        if !self.keep_records {
            return Vec::new();
        }
        self.tail.p99_per_second(&self.records, self.seconds.bins())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_column_contents_never_change() {
        let mut c = Column::default();
        c.owned().push(1u64);
        c.owned().push(2);
        let before = c.share();
        c.owned().push(3); // copies: `before` still sees two rows
        assert_eq!(*before, vec![1, 2]);
        assert_eq!(&*c, &[1, 2, 3]);
        let again = c.share();
        drop(before);
        assert!(Arc::ptr_eq(&again, &c.share()));
        // Nobody else holds the contents: the next append takes the same
        // buffer back instead of copying it.
        let buf = again.as_ptr();
        drop(again);
        c.owned().push(4);
        assert!(matches!(c, Column::Owned(_)));
        assert_eq!(c.as_ptr(), buf, "taken back, not copied");
        assert_eq!(&*c, &[1, 2, 3, 4]);
    }

    #[test]
    fn a_cleared_column_keeps_its_buffer_only_when_nobody_else_holds_it() {
        let mut c = Column::default();
        c.owned().push(1u64);
        let held = c.share();
        assert!(!c.unshared());
        c.clear();
        assert!(c.is_empty() && c.unshared());
        assert_eq!(*held, vec![1], "held contents never change");
        c.owned().push(2);
        let given = c.share();
        let buf = given.as_ptr();
        drop(given);
        assert!(c.unshared());
        c.clear();
        c.owned().push(3);
        assert_eq!(c.as_ptr(), buf, "taken back, not reallocated");
        assert_eq!(&*c, &[3]);
    }

    #[test]
    fn swapped_records_hand_over_the_rows_and_record_on_into_the_spare() {
        let mut m = Metrics::new(true);
        for t in 1..=3 {
            m.record(&done(t, t + 10, Op::Read));
        }
        // A spare from an earlier take: its rows go, its room stays.
        let mut spare = Records::with_capacity(100);
        spare.arrival.owned().push(99);
        spare.op.owned().push(1);
        let room = spare.arrival.as_ptr();
        let first = m.swap_records(spare, 0);
        assert_eq!(
            (&*first.arrival, &*first.complete),
            (&[1, 2, 3][..], &[11, 12, 13][..])
        );
        assert!(m.records.is_empty() && m.records.op.is_empty());
        m.record(&done(4, 20, Op::Write));
        assert_eq!(
            m.records.arrival.as_ptr(),
            room,
            "recorded into the spare's room"
        );
        let second = m.swap_records(Records::default(), 0);
        assert_eq!((&*second.arrival, &*second.op), (&[4][..], &[1][..]));
        assert_eq!(m.completed(), 4);
    }

    /// A completed request of 4 KiB.
    pub(super) fn done(arrival: Ns, complete: Ns, op: Op) -> Completion {
        Completion {
            arrival,
            dispatch: arrival,
            complete,
            op,
            offset: 0,
            size: 4096,
            stream: 0,
        }
    }

    /// p99 per second is the nearest-rank p99 of that second's reads and
    /// writes, whether or not rows arrive in time order.
    #[test]
    fn p99_per_second_by_completion_second() {
        let s = NS_PER_S;
        // Second 0: latencies 1..=100 (p99 = 99); second 1: none (trim
        // only); second 2: one write of 7; seconds 3..10^9 idle.
        let mut rows: Vec<Completion> = (1..=100).map(|l| done(0, l, Op::Read)).collect();
        rows.push(done(s, s + 5, Op::Trim));
        rows.push(done(2 * s, 2 * s + 7, Op::Write));
        rows.push(done(1_000_000_000 * s, 1_000_000_000 * s + 3, Op::Read));
        let mut m = Metrics::new(true);
        rows.iter().for_each(|c| m.record(c));
        assert_eq!(m.seconds.bins(), &[0, 1, 2, 1_000_000_000]);
        assert_eq!(m.p99_per_second(), vec![99.0, 0.0, 7.0, 3.0]);
        let mut shuffled = Metrics::new(true);
        rows.iter().rev().for_each(|c| shuffled.record(c));
        assert_eq!(shuffled.seconds, m.seconds);
        assert_eq!(shuffled.p99_per_second(), vec![99.0, 0.0, 7.0, 3.0]);
        assert!(Metrics::new(false).p99_per_second().is_empty());
    }
}
