//! Open-loop replay of a record stream: arrival times divided by the
//! intensity (the papers replay HDD-era traces ×10 faster), kept monotonic,
//! addresses folded onto the device's logical space, optional request limit.

use super::trace::{TraceReader, TraceStats};
use super::{IoRecord, IoSource, Poll, Workload};
use crate::engine::Ns;
use crate::error::SimResult;

/// Where the records come from: a trace reader (whose line statistics go to
/// the run summary) or any other record source.
enum Source {
    Trace(Box<TraceReader>),
    Other(Box<dyn IoSource>),
}

/// Replays an [`IoSource`] against the simulation clock.
pub struct Replay {
    source: Source,
    intensity: f64,
    capacity: u64,
    limit: Option<u64>,
    emitted: u64,
    last_t: Ns,
    pending: Option<IoRecord>,
    exhausted: bool,
    desc: String,
}

impl Replay {
    /// `capacity` is the device's logical size in bytes; `intensity` > 0.
    pub fn new(
        source: Box<dyn IoSource>,
        intensity: f64,
        capacity: u64,
        limit: Option<u64>,
        desc: String,
    ) -> Replay {
        Replay {
            source: Source::Other(source),
            intensity: if intensity > 0.0 { intensity } else { 1.0 },
            capacity,
            limit,
            emitted: 0,
            last_t: 0,
            pending: None,
            exhausted: false,
            desc,
        }
    }

    /// Replay a trace; its [`TraceStats`] appear in the run summary.
    pub fn from_trace(
        reader: TraceReader,
        intensity: f64,
        capacity: u64,
        limit: Option<u64>,
        desc: String,
    ) -> Replay {
        let mut r = Replay::new(
            Box::new(std::iter::empty()),
            intensity,
            capacity,
            limit,
            desc,
        );
        r.source = Source::Trace(Box::new(reader));
        r
    }

    /// Fold `r` onto `[0, capacity)`, 512-byte aligned, without splitting it.
    pub fn fold(r: &mut IoRecord, capacity: u64) {
        let size = (r.size as u64).min(capacity) as u32;
        let mut off = (r.offset % capacity) & !511;
        if off + size as u64 > capacity {
            off = (capacity - size as u64) & !511;
        }
        r.offset = off;
        r.size = size;
    }

    fn fetch(&mut self) -> SimResult<Option<IoRecord>> {
        if self.pending.is_some() {
            return Ok(self.pending);
        }
        if self.exhausted || self.limit.is_some_and(|l| self.emitted >= l) {
            return Ok(None);
        }
        let next = match &mut self.source {
            Source::Trace(t) => t.next(),
            Source::Other(s) => s.next_record(),
        };
        match next {
            None => {
                self.exhausted = true;
                Ok(None)
            }
            Some(Err(e)) => Err(e),
            Some(Ok(mut r)) => {
                let t = (r.time_ns as f64 / self.intensity).round() as Ns;
                // Traces may step back slightly (per-CPU clocks): never
                // deliver a request before the previous one.
                r.time_ns = t.max(self.last_t);
                self.last_t = r.time_ns;
                Self::fold(&mut r, self.capacity);
                self.pending = Some(r);
                Ok(self.pending)
            }
        }
    }
}

impl Workload for Replay {
    fn poll(&mut self, now: Ns, out: &mut Vec<IoRecord>) -> SimResult<Poll> {
        loop {
            match self.fetch()? {
                None => return Ok(Poll::Done),
                Some(r) if r.time_ns > now => return Ok(Poll::At(r.time_ns)),
                Some(r) => {
                    out.push(r);
                    self.pending = None;
                    self.emitted += 1;
                }
            }
        }
    }

    fn peek(&self) -> Option<IoRecord> {
        self.pending
    }

    fn describe(&self) -> String {
        self.desc.clone()
    }

    fn expected_requests(&self) -> Option<u64> {
        self.limit
    }

    fn input_stats(&self) -> Option<TraceStats> {
        match &self.source {
            Source::Trace(t) => Some(t.stats().clone()),
            Source::Other(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Op;

    fn rec(t: u64, off: u64, size: u32) -> SimResult<IoRecord> {
        Ok(IoRecord {
            time_ns: t,
            offset: off,
            size,
            op: Op::Read,
            stream: 0,
        })
    }

    #[test]
    fn scales_clamps_folds_and_limits() {
        let src = vec![
            rec(0, 0, 4096),
            rec(1000, 10_000, 4096),
            rec(900, 8192, 8192),
            rec(5000, 0, 512),
        ];
        let mut r = Replay::new(Box::new(src.into_iter()), 10.0, 8192, Some(3), "t".into());
        let mut out = Vec::new();
        assert_eq!(r.poll(0, &mut out).unwrap(), Poll::At(100));
        assert_eq!(out.len(), 1);
        out.clear();
        // record 3 went back in time (90 < 100): delivered at 100 with record 2
        assert_eq!(r.poll(100, &mut out).unwrap(), Poll::Done);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].offset, (10_000 % 8192) & !511);
        assert_eq!(
            out[1].offset, 0,
            "an 8 KiB request at 8 KiB is pulled back inside 8 KiB"
        );
        assert_eq!(out[1].time_ns, 100);
    }
}
