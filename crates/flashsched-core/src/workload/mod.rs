//! Workloads: where host requests come from. Trace readers and synthetic
//! generators all produce the same [`IoRecord`] stream; the replayer turns it
//! into timed host requests (intensity scaling, address folding, limits).

pub mod compose;
mod feed;
mod fio_words;
pub mod postmark;
pub mod profiles;
pub mod replay;
pub mod synthetic;
pub mod trace;

use crate::engine::Ns;
use crate::error::SimResult;
pub use crate::io::{Completion, Op};
pub use feed::Feed;

/// One block request as read from a trace or produced by a generator, before
/// replay adjustments. Offsets and sizes are in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IoRecord {
    /// Arrival time in nanoseconds relative to the first record of the trace.
    pub time_ns: u64,
    /// Byte offset on the traced volume.
    pub offset: u64,
    /// Size in bytes (> 0).
    pub size: u32,
    /// What the request does.
    pub op: Op,
    /// Stream id (trace host/disk/process id, synthetic stream): used by
    /// per-stream schedulers such as CFQ/BFQ.
    pub stream: u32,
}

/// A finite or infinite stream of records. Errors carry file:line context.
pub trait IoSource: Send {
    /// Next record, `None` at end of stream.
    fn next_record(&mut self) -> Option<SimResult<IoRecord>>;
}

impl<I: Iterator<Item = SimResult<IoRecord>> + Send> IoSource for I {
    fn next_record(&mut self) -> Option<SimResult<IoRecord>> {
        self.next()
    }
}

/// What a workload wants next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Poll {
    /// Call again at this time (open loop: the next arrival).
    At(Ns),
    /// Call again after a completion (closed loop: all slots busy).
    Blocked,
    /// Call again at this time or after a completion, whichever comes
    /// first (a closed loop with think time: some clients wait for I/O,
    /// others for their next start).
    Wait(Ns),
    /// No more requests.
    Done,
}

/// A source of host requests driven by the simulation clock.
pub trait Workload: Send {
    /// Emit the requests that arrive at `now` into `out`.
    fn poll(&mut self, now: Ns, out: &mut Vec<IoRecord>) -> SimResult<Poll>;
    /// A request of this workload completed (closed-loop generators refill).
    fn on_complete(&mut self, _c: &Completion, _now: Ns) {}
    /// The next request this workload will issue, if already drawn: a hint
    /// the simulator uses to fetch its mapping into the CPU cache ahead of
    /// time. Must not change what `poll` returns.
    fn peek(&self) -> Option<IoRecord> {
        None
    }
    /// Human-readable description for summaries.
    fn describe(&self) -> String;
    /// Total requests this workload will issue, when known (progress bars).
    fn expected_requests(&self) -> Option<u64> {
        None
    }
    /// Line statistics of a trace-driven workload (bad lines skipped,
    /// records dropped or clamped), for the run summary.
    fn input_stats(&self) -> Option<trace::TraceStats> {
        None
    }
}
