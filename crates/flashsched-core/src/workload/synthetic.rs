//! fio-like synthetic workloads, from a compact spec string such as
//! `read=0.7,bs=4k-16k,iops=20000,span=16g,n=1000000` (open loop, Poisson
//! arrivals) or `read=0,bs=64k,qd=32,span=8g,time=10s` (closed loop).
//!
//! Keys: `read` (fraction of reads, 0..1), `bs` (`4k`, a range `4k-16k` in
//! `align` steps, or a list `4k/8k/64k`), `pattern` (`random` | `seq`),
//! `iops` (open loop rate) or `qd` (closed loop depth), `arrival`
//! (`poisson` | `uniform`, open loop), `span` (footprint bytes, default the
//! whole device), `offset` (start of the footprint), `n` (request count),
//! `time` (duration, e.g. `10s`, `500ms`), `streams`, `align` (default 4k),
//! `seed` (defaults to the run seed). `span` and `offset` may be a share of
//! the device's logical capacity (`span=50%`). fio's words (`rw=randrw,
//! rwmixread=70,iodepth=32,size=1g`) are accepted too (`fio_words`).

use super::fio_words;
use super::{IoRecord, Poll, Workload};
use crate::engine::{Ns, MAX_ARRIVAL, NS_PER_MS, NS_PER_S, NS_PER_US};
use crate::error::{SimError, SimResult};
use crate::io::Completion;
use crate::rng::Rng;
use crate::workload::Op;

/// Request sizes.
#[derive(Debug, Clone, PartialEq)]
pub enum Sizes {
    /// Every request this many bytes.
    Fixed(u32),
    /// Uniform over `lo, lo+step, …, hi`.
    Range {
        /// Smallest size, bytes.
        lo: u32,
        /// Largest size, bytes.
        hi: u32,
        /// Granularity, bytes.
        step: u32,
    },
    /// Uniform over the listed sizes.
    Choice(Vec<u32>),
}

/// How requests are issued.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// Open loop: arrivals at a fixed mean rate.
    Open {
        /// Requests per second.
        iops: f64,
        /// Poisson arrivals (else evenly spaced).
        poisson: bool,
    },
    /// Closed loop: a new request as soon as one completes.
    Closed {
        /// Requests kept outstanding.
        qd: u32,
    },
}

/// A parsed synthetic workload.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticSpec {
    /// Fraction of requests that are reads (`read`).
    pub read_fraction: f64,
    /// Request sizes (`bs`).
    pub sizes: Sizes,
    /// Random offsets (else sequential; `pattern`).
    pub random: bool,
    /// Open or closed loop.
    pub mode: Mode,
    /// Footprint in bytes (0 = whole device).
    pub span: u64,
    /// Start of the footprint, bytes.
    pub offset: u64,
    /// `span` given as a share of the logical capacity (`50%`), resolved
    /// when the workload is built for a device.
    pub span_share: Option<f64>,
    /// `offset` given as such a share.
    pub offset_share: Option<f64>,
    /// Requests to generate (`n`).
    pub count: Option<u64>,
    /// Simulated time to generate requests for (`time`).
    pub duration: Option<Ns>,
    /// Streams the requests are spread over.
    pub streams: u32,
    /// Offset alignment, bytes.
    pub align: u32,
    /// Seed of the generator (the run's seed if `None`).
    pub seed: Option<u64>,
    text: String,
}

fn bad(key: &str, msg: String) -> Box<SimError> {
    SimError::config(format!("synthetic.{key}"), msg)
}

/// Parse a byte size: `4096`, `4k`, `4KiB`, `16g`, `1.5m`.
pub fn parse_bytes(key: &str, s: &str) -> SimResult<u64> {
    let t = s.trim().to_ascii_lowercase();
    let t = t.trim_end_matches("ib").trim_end_matches('b');
    let (num, mult) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1u64 << 10),
        Some('m') => (&t[..t.len() - 1], 1 << 20),
        Some('g') => (&t[..t.len() - 1], 1 << 30),
        Some('t') => (&t[..t.len() - 1], 1 << 40),
        _ => (t, 1),
    };
    let v: f64 = num
        .parse()
        .map_err(|_| bad(key, format!("`{s}` is not a size (e.g. 4096, 4k, 16GiB)")))?;
    if !(v.is_finite() && v >= 0.0) {
        return Err(bad(key, format!("`{s}` is not a size")));
    }
    Ok((v * mult as f64).round() as u64)
}

/// Parse a duration: `10s`, `500ms`, `20us`, `100ns`, or bare seconds.
pub fn parse_duration(key: &str, s: &str) -> SimResult<Ns> {
    let t = s.trim();
    let (num, mult) = if let Some(n) = t.strip_suffix("ms") {
        (n, NS_PER_MS as f64)
    } else if let Some(n) = t.strip_suffix("us") {
        (n, NS_PER_US as f64)
    } else if let Some(n) = t.strip_suffix("ns") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, NS_PER_S as f64)
    } else {
        (t, NS_PER_S as f64)
    };
    let v: f64 = num
        .parse()
        .map_err(|_| bad(key, format!("`{s}` is not a duration (e.g. 10s, 500ms)")))?;
    if !(v.is_finite() && v >= 0.0) {
        return Err(bad(key, format!("`{s}` is not a duration")));
    }
    Ok((v * mult).round() as Ns)
}

impl SyntheticSpec {
    /// Parse `key=value,...`; every key is checked and unknown keys rejected.
    pub fn parse(text: &str) -> SimResult<SyntheticSpec> {
        let mut spec = SyntheticSpec {
            read_fraction: 0.7,
            sizes: Sizes::Fixed(4096),
            random: true,
            mode: Mode::Open {
                iops: 10_000.0,
                poisson: true,
            },
            span: 0,
            offset: 0,
            span_share: None,
            offset_share: None,
            count: None,
            duration: None,
            streams: 1,
            align: 4096,
            seed: None,
            text: text.to_string(),
        };
        let mut iops = None;
        let mut qd = None;
        let mut poisson = true;
        let mut bs_text = None;
        let mut pairs = Vec::new();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = match part.split_once('=') {
                Some(kv) => kv,
                // fio's flag, written bare as in a job file.
                None if part == "time_based" => (part, ""),
                None => return Err(bad(part, "expected key=value".into())),
            };
            pairs.push((k.trim().to_string(), v.trim().to_string()));
        }
        for (k, v) in fio_words::to_native(pairs)? {
            let (k, v) = (k.as_str(), v.as_str());
            match k {
                "read" => {
                    let f: f64 = v.parse().map_err(|_| bad(k, format!("`{v}` is not a number")))?;
                    if !(0.0..=1.0).contains(&f) {
                        return Err(bad(k, format!("{v} is outside [0, 1]")));
                    }
                    spec.read_fraction = f;
                }
                "bs" => bs_text = Some(v.to_string()),
                "pattern" => {
                    spec.random = match v {
                        "random" | "rand" => true,
                        "seq" | "sequential" => false,
                        _ => return Err(bad(k, format!("`{v}` is not random or seq"))),
                    }
                }
                "iops" => {
                    let f: f64 = v.parse().map_err(|_| bad(k, format!("`{v}` is not a number")))?;
                    if !(f > 0.0 && f.is_finite()) {
                        return Err(bad(k, format!("{v} must be > 0")));
                    }
                    iops = Some(f);
                }
                "qd" => {
                    let q: u32 = v.parse().map_err(|_| bad(k, format!("`{v}` is not an integer")))?;
                    if q == 0 {
                        return Err(bad(k, "must be >= 1".into()));
                    }
                    qd = Some(q);
                }
                "arrival" => {
                    poisson = match v {
                        "poisson" => true,
                        "uniform" => false,
                        _ => return Err(bad(k, format!("`{v}` is not poisson or uniform"))),
                    }
                }
                "span" => match parse_share(k, v)? {
                    Some(f) if f > 0.0 => spec.span_share = Some(f),
                    Some(_) => return Err(bad(k, format!("`{v}` must be more than 0%"))),
                    None => spec.span = parse_bytes(k, v)?,
                },
                "offset" => match parse_share(k, v)? {
                    Some(f) => spec.offset_share = Some(f),
                    None => spec.offset = parse_bytes(k, v)?,
                },
                "n" | "count" => {
                    spec.count = Some(v.parse().map_err(|_| bad(k, format!("`{v}` is not an integer")))?)
                }
                "time" => spec.duration = Some(parse_duration(k, v)?),
                "streams" => {
                    spec.streams = v
                        .parse::<u32>()
                        .ok()
                        .filter(|&s| s > 0)
                        .ok_or_else(|| bad(k, format!("`{v}` is not a positive integer")))?
                }
                "align" => {
                    let a = parse_bytes(k, v)?;
                    if a == 0 || a % 512 != 0 || a > u32::MAX as u64 {
                        return Err(bad(k, format!("`{v}` must be a positive multiple of 512")));
                    }
                    spec.align = a as u32;
                }
                "seed" => spec.seed = Some(v.parse().map_err(|_| bad(k, format!("`{v}` is not an integer")))?),
                _ => {
                    return Err(bad(
                        k,
                        "unknown key (known: read, bs, pattern, iops, qd, arrival, span, offset, n, time, streams, align, seed; \
                         fio's rw, rwmixread, rwmixwrite, iodepth, rate_iops, bsrange, blocksize, blockalign, size, io_size, \
                         number_ios, runtime, time_based, numjobs)"
                            .into(),
                    ))
                }
            }
        }
        if let Some(b) = bs_text {
            spec.sizes = parse_sizes(&b, spec.align)?;
        }
        spec.mode = match (iops, qd) {
            (Some(_), Some(_)) => {
                return Err(bad(
                    "qd",
                    "give either iops (open loop) or qd (closed loop), not both".into(),
                ))
            }
            (_, Some(q)) => Mode::Closed { qd: q },
            (Some(i), None) => Mode::Open { iops: i, poisson },
            (None, None) => Mode::Open {
                iops: 10_000.0,
                poisson,
            },
        };
        if spec.count.is_none() && spec.duration.is_none() {
            return Err(bad(
                "n",
                "give a request count `n=` or a duration `time=`".into(),
            ));
        }
        Ok(spec)
    }

    /// Largest request size.
    fn max_size(&self) -> u32 {
        match &self.sizes {
            Sizes::Fixed(s) => *s,
            Sizes::Range { hi, .. } => *hi,
            Sizes::Choice(v) => v.iter().copied().max().unwrap_or(4096),
        }
    }

    /// Build the workload for a device of `capacity` bytes.
    pub fn build(&self, capacity: u64, run_seed: u64) -> SimResult<Box<dyn Workload>> {
        let mut spec = self.clone();
        // Shares of the capacity, rounded down to whole `align` units.
        let share = |f: f64| (capacity as f64 * f) as u64 / self.align as u64 * self.align as u64;
        if let Some(f) = self.offset_share {
            spec.offset = share(f);
        }
        if let Some(f) = self.span_share {
            spec.span = share(f).max(self.align as u64);
        }
        let span = if spec.span == 0 {
            capacity.saturating_sub(spec.offset)
        } else {
            spec.span
        };
        if spec.offset + span > capacity {
            return Err(bad(
                "span",
                format!(
                    "offset + span = {} exceeds the device's logical capacity {capacity}",
                    spec.offset + span
                ),
            ));
        }
        if span < self.max_size() as u64 {
            return Err(bad(
                "span",
                format!("{span} is smaller than the largest request"),
            ));
        }
        Ok(Box::new(Synthetic {
            spec,
            span,
            rng: Rng::derive(self.seed.unwrap_or(run_seed), 0x7379_6e74),
            next_t: 0,
            issued: 0,
            ahead: None,
            outstanding: 0,
            seq_pos: 0,
            range_steps: match self.sizes {
                Sizes::Range { lo, hi, step } => ((hi - lo) / step) as u64 + 1,
                _ => 1,
            },
            align_shift: self
                .align
                .is_power_of_two()
                .then(|| self.align.trailing_zeros()),
        }))
    }
}

/// `50%` as 0.5 (a share of the device), `None` for anything else.
fn parse_share(key: &str, v: &str) -> SimResult<Option<f64>> {
    let Some(num) = v.strip_suffix('%') else {
        return Ok(None);
    };
    match num.trim().parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(Some(p / 100.0)),
        _ => Err(bad(key, format!("`{v}` is not a percentage in [0%, 100%]"))),
    }
}

fn parse_sizes(s: &str, align: u32) -> SimResult<Sizes> {
    let one = |x: &str| -> SimResult<u32> {
        let v = parse_bytes("bs", x)?;
        if v == 0 || v > (1 << 30) {
            return Err(bad("bs", format!("`{x}` must be in (0, 1 GiB]")));
        }
        Ok(v as u32)
    };
    if s.contains('/') {
        return Ok(Sizes::Choice(
            s.split('/').map(one).collect::<SimResult<_>>()?,
        ));
    }
    if let Some((a, b)) = s.split_once('-') {
        let (lo, hi) = (one(a)?, one(b)?);
        if lo > hi {
            return Err(bad("bs", format!("range `{s}` has lo > hi")));
        }
        return Ok(Sizes::Range {
            lo,
            hi,
            step: align,
        });
    }
    Ok(Sizes::Fixed(one(s)?))
}

/// The running generator.
struct Synthetic {
    spec: SyntheticSpec,
    span: u64,
    rng: Rng,
    next_t: Ns,
    /// Requests emitted by `poll`.
    issued: u64,
    /// The next request, drawn as soon as the previous one was emitted so
    /// `peek` can name it (draws happen in the same order either way). A
    /// draw happens only while this is empty, so the request being drawn is
    /// always number `issued`.
    ahead: Option<IoRecord>,
    outstanding: u32,
    seq_pos: u64,
    /// Sizes in a `Range` (constant; kept to avoid a division per request).
    range_steps: u64,
    /// log2 of the alignment when it is a power of two.
    align_shift: Option<u32>,
}

impl Synthetic {
    fn finished(&self, now: Ns) -> bool {
        self.spec.count.is_some_and(|n| self.issued >= n)
            || self.spec.duration.is_some_and(|d| now >= d)
    }

    /// Emit the next request (the one drawn ahead, else a fresh draw) at `t`.
    fn emit(&mut self, t: Ns) -> IoRecord {
        let mut r = match self.ahead.take() {
            Some(r) => r,
            None => self.make(),
        };
        r.time_ns = t;
        self.issued += 1;
        r
    }

    /// Draw the request after the last one emitted, if there will be one.
    fn draw_ahead(&mut self) {
        if self.ahead.is_none() && self.spec.count.is_none_or(|n| self.issued < n) {
            self.ahead = Some(self.make());
        }
    }

    /// Draw a request (its time is set when it is emitted).
    fn make(&mut self) -> IoRecord {
        let size = match &self.spec.sizes {
            Sizes::Fixed(s) => *s,
            Sizes::Range { lo, step, .. } => lo + step * self.rng.below(self.range_steps) as u32,
            Sizes::Choice(v) => v[self.rng.below(v.len() as u64) as usize],
        };
        let align = self.spec.align as u64;
        let room = self.span - size as u64;
        let rel = if self.spec.random {
            let slots = match self.align_shift {
                Some(sh) => room >> sh,
                None => room / align,
            };
            self.rng.below(slots + 1) * align
        } else {
            if self.seq_pos > room {
                self.seq_pos = 0;
            }
            let p = self.seq_pos;
            self.seq_pos += size as u64;
            p
        };
        let op = if self.rng.f64() < self.spec.read_fraction {
            Op::Read
        } else {
            Op::Write
        };
        let stream = (self.issued % self.spec.streams as u64) as u32;
        IoRecord {
            time_ns: 0,
            offset: self.spec.offset + rel,
            size,
            op,
            stream,
        }
    }
}

impl Workload for Synthetic {
    fn poll(&mut self, now: Ns, out: &mut Vec<IoRecord>) -> SimResult<Poll> {
        match self.spec.mode {
            Mode::Open { iops, poisson } => {
                while self.next_t <= now {
                    if self.finished(self.next_t) {
                        return Ok(Poll::Done);
                    }
                    let r = self.emit(self.next_t);
                    out.push(r);
                    let mean = 1e9 / iops;
                    let gap = if poisson { self.rng.exp(mean) } else { mean };
                    // The cast saturates; the sum must not wrap.
                    self.next_t = self.next_t.saturating_add((gap.round() as Ns).max(1));
                    self.draw_ahead();
                }
                if self.next_t > MAX_ARRIVAL && !self.finished(self.next_t) {
                    return Err(SimError::config(
                        "synthetic.iops",
                        format!(
                            "request #{} would arrive after {MAX_ARRIVAL} ns (about 548 \
                             years), beyond the simulated time range: iops={iops:e} is too low",
                            self.issued + 1
                        ),
                    ));
                }
                if self.finished(self.next_t) {
                    return Ok(Poll::Done);
                }
                Ok(Poll::At(self.next_t))
            }
            Mode::Closed { qd } => {
                while self.outstanding < qd {
                    if self.finished(now) {
                        return Ok(if self.outstanding == 0 {
                            Poll::Done
                        } else {
                            Poll::Blocked
                        });
                    }
                    let r = self.emit(now);
                    out.push(r);
                    self.outstanding += 1;
                    self.draw_ahead();
                }
                Ok(Poll::Blocked)
            }
        }
    }

    fn peek(&self) -> Option<IoRecord> {
        self.ahead
    }

    fn on_complete(&mut self, _c: &Completion, _now: Ns) {
        self.outstanding = self.outstanding.saturating_sub(1);
    }

    fn describe(&self) -> String {
        format!("synthetic({})", self.spec.text)
    }

    fn expected_requests(&self) -> Option<u64> {
        self.spec.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_and_modes() {
        let s = SyntheticSpec::parse("read=0.7,bs=4k-16k,iops=20000,span=16g,n=10").unwrap();
        assert_eq!(
            s.sizes,
            Sizes::Range {
                lo: 4096,
                hi: 16384,
                step: 4096
            }
        );
        assert_eq!(s.span, 16 << 30);
        assert!(matches!(s.mode, Mode::Open { iops, .. } if iops == 20000.0));
        let s = SyntheticSpec::parse("bs=4k/64k,qd=8,time=2s").unwrap();
        assert_eq!(s.sizes, Sizes::Choice(vec![4096, 65536]));
        assert_eq!(s.mode, Mode::Closed { qd: 8 });
        assert_eq!(s.duration, Some(2 * NS_PER_S));
        assert_eq!(parse_bytes("x", "1.5KiB").unwrap(), 1536);
        assert_eq!(parse_duration("x", "500ms").unwrap(), 500 * NS_PER_MS);
    }

    #[test]
    fn rejects_bad_specs_naming_the_key() {
        for (text, key) in [
            ("read=2,n=1", "synthetic.read"),
            ("bogus=1,n=1", "synthetic.bogus"),
            ("iops=10,qd=2,n=1", "synthetic.qd"),
            ("bs=abc,n=1", "synthetic.bs"),
            ("read=0.5", "synthetic.n"),
        ] {
            let e = SyntheticSpec::parse(text).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
    }

    /// `span` and `offset` as shares of the device, and fio's words, build
    /// the same workload as the spec's own keys.
    #[test]
    fn shares_of_the_device_and_fio_words() {
        let gib = 1u64 << 30;
        let s = SyntheticSpec::parse("bs=4k,qd=1,n=2000,span=25%,offset=50%").unwrap();
        let mut w = s.build(gib, 3).unwrap();
        let mut out = Vec::new();
        for t in 0..2000 {
            w.poll(t, &mut out).unwrap();
            let c = Completion {
                arrival: t,
                dispatch: t,
                complete: t,
                op: Op::Read,
                offset: 0,
                size: 4096,
                stream: 0,
            };
            w.on_complete(&c, t);
        }
        assert_eq!(out.len(), 2000);
        assert!(out
            .iter()
            .all(|r| r.offset >= gib / 2 && r.offset + 4096 <= gib / 2 + gib / 4));
        // The footprint is used: some request lands in each quarter of it.
        for q in 0..4 {
            let lo = gib / 2 + q * gib / 16;
            assert!(out
                .iter()
                .any(|r| r.offset >= lo && r.offset < lo + gib / 16));
        }
        for (text, key) in [
            ("span=0%,n=1", "synthetic.span"),
            ("offset=120%,n=1", "synthetic.offset"),
        ] {
            let e = SyntheticSpec::parse(text).unwrap_err().to_string();
            assert!(e.contains(key), "{text}: {e}");
        }
        let fio = SyntheticSpec::parse("rw=randrw,rwmixread=70,iodepth=32,bs=4k,size=64m").unwrap();
        let own =
            SyntheticSpec::parse("read=0.7,pattern=random,qd=32,bs=4k,span=64m,n=16384").unwrap();
        assert_eq!(
            (fio.read_fraction, fio.random, fio.mode),
            (own.read_fraction, own.random, own.mode)
        );
        assert_eq!(
            (fio.span, fio.count, &fio.sizes),
            (own.span, own.count, &own.sizes)
        );
    }

    #[test]
    fn open_loop_rate_and_mix() {
        let s = SyntheticSpec::parse("read=0.7,bs=4k,iops=1000,n=20000,span=1g").unwrap();
        let mut w = s.build(1 << 30, 1).unwrap();
        let mut out = Vec::new();
        let mut t = 0;
        loop {
            match w.poll(t, &mut out).unwrap() {
                Poll::At(n) => t = n,
                Poll::Done => break,
                Poll::Blocked | Poll::Wait(_) => unreachable!(),
            }
        }
        assert_eq!(out.len(), 20000);
        let reads = out.iter().filter(|r| r.op == Op::Read).count() as f64 / 20000.0;
        assert!((reads - 0.7).abs() < 0.02, "{reads}");
        let secs = out.last().unwrap().time_ns as f64 / 1e9;
        assert!((secs - 20.0).abs() < 1.0, "{secs}");
        assert!(out
            .iter()
            .all(|r| r.offset % 4096 == 0 && r.offset + 4096 <= 1 << 30));
    }

    #[test]
    fn closed_loop_keeps_depth() {
        let s = SyntheticSpec::parse("bs=4k,qd=4,n=10,pattern=seq").unwrap();
        let mut w = s.build(1 << 20, 1).unwrap();
        let mut out = Vec::new();
        assert_eq!(w.poll(0, &mut out).unwrap(), Poll::Blocked);
        assert_eq!(out.len(), 4);
        assert_eq!(out[1].offset, 4096);
        let c = Completion {
            arrival: 0,
            dispatch: 0,
            complete: 5,
            op: Op::Read,
            offset: 0,
            size: 4096,
            stream: 0,
        };
        w.on_complete(&c, 5);
        assert_eq!(w.poll(5, &mut out).unwrap(), Poll::Blocked);
        assert_eq!(out.len(), 5);
    }

    /// `peek` names the request `poll` emits next (all but its time), in
    /// both modes, and says nothing once the count is used up.
    #[test]
    fn peek_names_the_next_request() {
        for spec in [
            "read=0.5,bs=4k-16k,iops=1000,n=50,span=1g,streams=3",
            "read=0.5,bs=4k/8k,qd=2,n=50,pattern=seq",
        ] {
            let s = SyntheticSpec::parse(spec).unwrap();
            let mut w = s.build(1 << 30, 7).unwrap();
            let mut out = Vec::new();
            let mut t = 0;
            let mut checked = 0;
            loop {
                let ahead = w.peek();
                let before = out.len();
                let p = w.poll(t, &mut out).unwrap();
                if let (Some(a), Some(r)) = (ahead, out.get(before)) {
                    assert_eq!(
                        (a.offset, a.size, a.op, a.stream),
                        (r.offset, r.size, r.op, r.stream)
                    );
                    checked += 1;
                }
                match p {
                    Poll::At(n) => t = n,
                    Poll::Done => break,
                    Poll::Wait(_) => unreachable!("synthetic workloads have no think time"),
                    Poll::Blocked => {
                        let c = Completion {
                            arrival: 0,
                            dispatch: 0,
                            complete: t,
                            op: Op::Read,
                            offset: 0,
                            size: 4096,
                            stream: 0,
                        };
                        w.on_complete(&c, t);
                        t += 1;
                    }
                }
            }
            assert_eq!(out.len(), 50, "{spec}");
            assert!(checked >= 24, "{spec}: {checked}");
            assert_eq!(w.peek(), None, "{spec}");
        }
    }
}
