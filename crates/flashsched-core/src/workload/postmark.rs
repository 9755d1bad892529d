//! A closed-loop Postmark-like generator (Katcher 1997; Amphibian §IV-B,
//! Figs. 8-9), at the block level.
//!
//! Spec: `postmark:files=500,tx=100000,qd=16,min=1k,max=4m,io=128k,read=0.5,create=0.5,trim=0,span=...,seed=...`
//! (every key optional). An initial pool of `files` files with sizes
//! uniform in [`min`, `max`] is laid out without I/O (the device is
//! preconditioned instead). `qd` workers (the queue length; each one is a
//! stream, so per-process schedulers see `qd` processes) each run
//! transactions back to back until `tx` have been started. A transaction is
//! Postmark's pair: read a random file whole (probability `read`) or append
//! to one (size uniform in [`min`, `max`]), then create a file (probability
//! `create`; size uniform in [`min`, `max`], written whole) or delete one.
//! A transaction's I/O is split into requests of at most `io` bytes
//! (512-byte aligned). By default a worker submits all of them at once and
//! starts its next transaction when they have all completed (the page cache
//! writes a file back and reads ahead in parallel), so more requests than
//! the queue depth can be pending and the host scheduler has a queue to
//! order; `sync=1` issues them one at a time instead.
//! New data is placed by a log-like bump allocator over the footprint
//! (`span`, default the whole device, wrapping), so files become extent
//! lists; a delete frees nothing on the device unless `trim=1` (then its
//! extents are discarded). Throughput: `tx` / simulated time (transactions
//! per second) and bytes moved / simulated time.

use std::collections::VecDeque;

use super::synthetic::parse_bytes;
use super::{IoRecord, Poll, Workload};
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::io::Completion;
use crate::rng::Rng;
use crate::workload::Op;

/// Parsed Postmark parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct PostmarkSpec {
    /// Files in the initial pool (`files`).
    pub files: u32,
    /// Transactions to start (`tx`).
    pub transactions: u64,
    /// Concurrent workers, each a stream (`qd`).
    pub workers: u32,
    /// Smallest file or append, bytes (`min`).
    pub min: u64,
    /// Largest file or append, bytes (`max`).
    pub max: u64,
    /// Largest request a transaction's I/O is split into, bytes (`io`).
    pub io: u64,
    /// Probability that a transaction reads rather than appends (`read`).
    pub read_bias: f64,
    /// Probability that it creates rather than deletes a file (`create`).
    pub create_bias: f64,
    /// A delete TRIMs the file's extents (`trim`).
    pub trim: bool,
    /// Issue a transaction's requests one at a time.
    pub sync: bool,
    /// Footprint on the device, bytes (0 = the whole device).
    pub span: u64,
    /// Seed of the generator (the run's seed if `None`).
    pub seed: Option<u64>,
    text: String,
}

fn bad(key: &str, msg: String) -> SimError {
    SimError::config(format!("postmark.{key}"), msg)
}

fn num<T: std::str::FromStr>(key: &str, v: &str) -> SimResult<T> {
    v.trim()
        .parse()
        .map_err(|_| bad(key, format!("`{v}` is not a number")))
}

impl PostmarkSpec {
    /// Parse the part after `postmark:` (may be empty).
    pub fn parse(text: &str) -> SimResult<PostmarkSpec> {
        let mut s = PostmarkSpec {
            files: 500,
            transactions: 100_000,
            workers: 16,
            min: 1024,
            max: 4 << 20,
            io: 128 << 10,
            read_bias: 0.5,
            create_bias: 0.5,
            trim: false,
            sync: false,
            span: 0,
            seed: None,
            text: text.to_string(),
        };
        for kv in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| bad(kv, "expected key=value".into()))?;
            match k.trim() {
                "files" => s.files = num(k, v)?,
                "tx" => s.transactions = num(k, v)?,
                "qd" => s.workers = num(k, v)?,
                "min" => s.min = parse_bytes("postmark.min", v)?,
                "max" => s.max = parse_bytes("postmark.max", v)?,
                "io" => s.io = parse_bytes("postmark.io", v)?,
                "read" => s.read_bias = num(k, v)?,
                "create" => s.create_bias = num(k, v)?,
                "trim" => s.trim = num::<u8>(k, v)? != 0,
                "sync" => s.sync = num::<u8>(k, v)? != 0,
                "span" => s.span = parse_bytes("postmark.span", v)?,
                "seed" => s.seed = Some(num(k, v)?),
                other => {
                    return Err(bad(
                        other,
                        "unknown key (known: files, tx, qd, min, max, io, read, create, trim, sync, span, seed)"
                            .into(),
                    ))
                }
            }
        }
        if s.files == 0 {
            return Err(bad("files", "must be at least 1".into()));
        }
        if s.workers == 0 || s.workers > 65_536 {
            return Err(bad("qd", format!("{} is outside [1, 65536]", s.workers)));
        }
        if s.min < 512 || s.max < s.min {
            return Err(bad("min", "need 512 <= min <= max".into()));
        }
        if s.io < 512 || s.io > u32::MAX as u64 {
            return Err(bad("io", "must be at least 512 bytes".into()));
        }
        for (k, v) in [("read", s.read_bias), ("create", s.create_bias)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(bad(k, format!("{v} is outside [0, 1]")));
            }
        }
        Ok(s)
    }

    /// Build the generator for a device of `capacity` bytes.
    pub fn build(&self, capacity: u64, seed: u64) -> SimResult<Box<dyn Workload>> {
        let span = if self.span == 0 {
            capacity
        } else {
            self.span.min(capacity)
        };
        if span < self.max * 4 {
            return Err(bad(
                "span",
                format!("{span} bytes is too small for max={}", self.max),
            ));
        }
        let mut g = Postmark {
            spec: self.clone(),
            span: span & !4095,
            rng: Rng::derive(self.seed.unwrap_or(seed), 0x706d),
            files: Vec::new(),
            bump: 0,
            started: 0,
            workers: vec![Worker::default(); self.workers as usize],
            bytes: 0,
        };
        for _ in 0..self.files {
            let size = g.file_size();
            let ext = g.place(size);
            g.files.push(ext);
        }
        Ok(Box::new(g))
    }
}

#[derive(Debug, Clone, Default)]
struct Worker {
    todo: VecDeque<(Op, u64, u32)>,
    /// Requests in flight.
    busy: u32,
}

/// The running generator.
struct Postmark {
    spec: PostmarkSpec,
    span: u64,
    rng: Rng,
    /// Files as extent lists (offset, bytes).
    files: Vec<Vec<(u64, u64)>>,
    bump: u64,
    started: u64,
    workers: Vec<Worker>,
    bytes: u64,
}

impl Postmark {
    fn file_size(&mut self) -> u64 {
        let (lo, hi) = (self.spec.min, self.spec.max);
        lo + self.rng.below(hi - lo + 1)
    }

    /// Allocate `size` bytes (4 KiB granules) at the bump pointer.
    fn place(&mut self, size: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut left = size.div_ceil(4096) * 4096;
        while left > 0 {
            if self.bump >= self.span {
                self.bump = 0;
            }
            let n = left.min(self.span - self.bump);
            out.push((self.bump, n));
            self.bump += n;
            left -= n;
        }
        out
    }

    /// Requests for `op` over `bytes` of the extents, split at `io`.
    fn emit(&self, w: &mut Worker, op: Op, ext: &[(u64, u64)], mut bytes: u64) {
        for &(off, len) in ext {
            let mut pos = 0;
            while pos < len && bytes > 0 {
                let n = (len - pos).min(self.spec.io).min(bytes.div_ceil(512) * 512);
                w.todo.push_back((op, off + pos, n as u32));
                pos += n;
                bytes = bytes.saturating_sub(n);
            }
        }
    }

    /// Queue one Postmark transaction's requests on worker `i`.
    fn transaction(&mut self, i: usize) {
        let mut w = std::mem::take(&mut self.workers[i]);
        let f = self.rng.below(self.files.len() as u64) as usize;
        if self.rng.f64() < self.spec.read_bias {
            let total: u64 = self.files[f].iter().map(|e| e.1).sum();
            let ext = self.files[f].clone();
            self.emit(&mut w, Op::Read, &ext, total);
        } else {
            let size = self.file_size();
            let ext = self.place(size);
            self.emit(&mut w, Op::Write, &ext, size);
            self.files[f].extend(ext);
        }
        if self.rng.f64() < self.spec.create_bias || self.files.len() == 1 {
            let size = self.file_size();
            let ext = self.place(size);
            self.emit(&mut w, Op::Write, &ext, size);
            self.files.push(ext);
        } else {
            let g = self.rng.below(self.files.len() as u64) as usize;
            let ext = self.files.swap_remove(g);
            if self.spec.trim {
                for (off, len) in ext {
                    w.todo
                        .push_back((Op::Trim, off, len.min(u32::MAX as u64) as u32));
                }
            }
        }
        self.started += 1;
        self.workers[i] = w;
    }
}

impl Workload for Postmark {
    fn poll(&mut self, now: Ns, out: &mut Vec<IoRecord>) -> SimResult<Poll> {
        let mut busy = false;
        for i in 0..self.workers.len() {
            if self.workers[i].busy == 0
                && self.workers[i].todo.is_empty()
                && self.started < self.spec.transactions
            {
                self.transaction(i);
            }
            let sync = self.spec.sync;
            let w = &mut self.workers[i];
            while !(sync && w.busy > 0) {
                let Some((op, offset, size)) = w.todo.pop_front() else {
                    break;
                };
                w.busy += 1;
                if op != Op::Trim {
                    self.bytes += size as u64;
                }
                out.push(IoRecord {
                    time_ns: now,
                    offset,
                    size,
                    op,
                    stream: i as u32,
                });
            }
            busy |= w.busy > 0;
        }
        Ok(if busy { Poll::Blocked } else { Poll::Done })
    }

    fn on_complete(&mut self, c: &Completion, _now: Ns) {
        if let Some(w) = self.workers.get_mut(c.stream as usize) {
            w.busy = w.busy.saturating_sub(1);
        }
    }

    fn describe(&self) -> String {
        format!(
            "postmark({}) transactions={}",
            self.spec.text, self.spec.transactions
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_rejects() {
        let s = PostmarkSpec::parse("files=10,tx=5,qd=4,min=1k,max=64k").unwrap();
        assert_eq!(
            (s.files, s.transactions, s.workers, s.max),
            (10, 5, 4, 65536)
        );
        assert!(PostmarkSpec::parse("bogus=1")
            .unwrap_err()
            .to_string()
            .contains("bogus"));
        assert!(PostmarkSpec::parse("read=2").is_err());
    }

    #[test]
    fn closed_loop_keeps_one_request_per_worker() {
        let s = PostmarkSpec::parse("files=20,tx=50,qd=3,min=1k,max=64k,io=16k,sync=1").unwrap();
        let mut w = s.build(1 << 30, 1).unwrap();
        let mut out = Vec::new();
        assert_eq!(w.poll(0, &mut out).unwrap(), Poll::Blocked);
        assert_eq!(out.len(), 3);
        let mut total = out.len();
        // Complete everything as it is issued until done.
        let mut t = 0;
        loop {
            let batch = std::mem::take(&mut out);
            for r in &batch {
                t += 1;
                let c = Completion {
                    arrival: t,
                    dispatch: t,
                    complete: t,
                    op: r.op,
                    offset: r.offset,
                    size: r.size,
                    stream: r.stream,
                };
                w.on_complete(&c, t);
            }
            match w.poll(t, &mut out).unwrap() {
                Poll::Done => break,
                _ => {
                    assert!(out.len() <= 3);
                    total += out.len();
                }
            }
        }
        assert!(total >= 50, "each transaction issues at least one request");
    }
}
