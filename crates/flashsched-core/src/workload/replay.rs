//! Open-loop replay of a record stream: arrival times divided by the
//! intensity (the papers replay HDD-era traces ×10 faster), kept monotonic,
//! addresses folded onto the device's logical space, optional request limit.
//!
//! A scaled time beyond [`MAX_ARRIVAL`] (548 years; e.g. a one-second gap
//! at intensity 1e-18) is an error naming the record and the intensity; it
//! never saturates or wraps.

use super::trace::{ReadAhead, TraceReader, TraceStats};
use super::{IoRecord, IoSource, Poll, Workload};
use crate::engine::{Ns, MAX_ARRIVAL};
use crate::error::{SimError, SimResult};

/// `intensity` is a finite number > 0 (else a config error on `intensity`).
pub fn check_intensity(intensity: f64) -> SimResult<()> {
    if intensity.is_finite() && intensity > 0.0 {
        Ok(())
    } else {
        Err(SimError::config(
            "intensity",
            format!("{intensity} is not a finite number > 0 (an arrival-rate multiplier)"),
        ))
    }
}

/// `t` (ns) divided by `intensity`, rounded; `None` beyond [`MAX_ARRIVAL`].
pub fn scale_time(t: Ns, intensity: f64) -> Option<Ns> {
    if intensity == 1.0 {
        // Exact: f64 has 53 bits, trace times up to 64.
        return (t <= MAX_ARRIVAL).then_some(t);
    }
    let x = (t as f64 / intensity).round();
    // MAX_ARRIVAL = 15 · 2^60 is exact in f64; NaN and ∞ fail the test.
    (x <= MAX_ARRIVAL as f64).then_some(x as Ns)
}

/// Where the records come from: a trace reader (on its own thread; its line
/// statistics go to the run summary) or any other record source.
enum Source {
    Trace(Box<ReadAhead>),
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
    /// `capacity` is the device's logical size in bytes; `intensity` must
    /// be finite and > 0 ([`check_intensity`]; otherwise the first poll
    /// returns that error).
    pub fn new(
        source: Box<dyn IoSource>,
        intensity: f64,
        capacity: u64,
        limit: Option<u64>,
        desc: String,
    ) -> Replay {
        Replay {
            source: Source::Other(source),
            intensity,
            capacity,
            limit,
            emitted: 0,
            last_t: 0,
            pending: None,
            exhausted: false,
            desc,
        }
    }

    /// Replay a trace, read on its own thread ([`ReadAhead`]; in place if
    /// no thread can be started); its [`TraceStats`] appear in the run
    /// summary.
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
        r.source = Source::Trace(Box::new(ReadAhead::new(Box::new(reader), limit)));
        r
    }

    /// Fold `r` onto `[0, capacity)`, 512-byte aligned, without splitting it.
    pub fn fold(r: &mut IoRecord, capacity: u64) {
        let size = (r.size as u64).min(capacity) as u32;
        // (Most offsets are in range: no division for them.)
        let wrapped = if r.offset < capacity {
            r.offset
        } else {
            r.offset % capacity
        };
        let mut off = wrapped & !511;
        if off + size as u64 > capacity {
            off = (capacity - size as u64) & !511;
        }
        r.offset = off;
        r.size = size;
    }

    /// The error for record `r` (the next to be emitted), whose time
    /// scales beyond [`MAX_ARRIVAL`].
    #[cold]
    fn out_of_range(&self, r: &IoRecord) -> Box<SimError> {
        let which = match &self.source {
            Source::Trace(t) => format!("record #{} of {}", self.emitted + 1, t.path().display()),
            Source::Other(_) => format!("record #{}", self.emitted + 1),
        };
        let i = self.intensity;
        SimError::config(
            "intensity",
            format!(
                "{which} arrives at {} ns; divided by intensity {i:e} that is {:e} ns, beyond \
                 the simulated time range ({MAX_ARRIVAL} ns, about 548 years): use a larger \
                 intensity (or a trace without such a gap)",
                r.time_ns,
                r.time_ns as f64 / i
            ),
        )
    }

    fn fetch(&mut self) -> SimResult<Option<IoRecord>> {
        if self.pending.is_some() {
            return Ok(self.pending);
        }
        check_intensity(self.intensity)?;
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
                let Some(t) = scale_time(r.time_ns, self.intensity) else {
                    return Err(self.out_of_range(&r));
                };
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

    fn times(intensity: f64, ts: &[u64]) -> SimResult<Vec<u64>> {
        let src: Vec<_> = ts.iter().map(|&t| rec(t, 0, 4096)).collect();
        let mut r = Replay::new(
            Box::new(src.into_iter()),
            intensity,
            1 << 30,
            None,
            "t".into(),
        );
        let mut out = Vec::new();
        let mut now = 0;
        loop {
            match r.poll(now, &mut out)? {
                Poll::Done => return Ok(out.iter().map(|r| r.time_ns).collect()),
                Poll::At(t) => now = t,
                Poll::Blocked | Poll::Wait(_) => unreachable!(),
            }
        }
    }

    /// Records at 0 and 1 s: scaled exactly, or an error naming the record
    /// and the intensity; never a saturated or wrapped time.
    #[test]
    fn intensity_extremes() {
        let s = 1_000_000_000;
        assert_eq!(
            times(1e-9, &[0, s]).unwrap(),
            vec![0, 1_000_000_000_000_000_000]
        );
        assert_eq!(times(1e-10, &[0, s]).unwrap(), vec![0, 10u64.pow(19)]);
        assert_eq!(times(1e12, &[0, s, 3 * s]).unwrap(), vec![0, 0, 0]);
        assert_eq!(times(1.0, &[0, MAX_ARRIVAL]).unwrap(), vec![0, MAX_ARRIVAL]);
        for (i, shown) in [
            (1e-18, "1e-18"),
            (1e-11, "1e-11"),
            (5e-324, "5e-324"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
        ] {
            let e = times(i, &[0, s]).unwrap_err().to_string();
            assert!(e.contains("intensity") && e.contains("record #2"), "{e}");
            assert!(e.contains(shown) && e.contains("548 years"), "{e}");
        }
        let e = times(1.0, &[0, MAX_ARRIVAL + 1]).unwrap_err().to_string();
        assert!(e.contains("record #2"), "{e}");
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, -2.0] {
            let e = times(bad, &[0]).unwrap_err().to_string();
            assert!(e.contains("config key `intensity`"), "{bad}: {e}");
            assert!(check_intensity(bad).is_err());
        }
    }
}
