//! A closed-loop Postmark-like generator (Katcher 1997; Amphibian §IV-B,
//! Figs. 8-9), at the block level.
//!
//! Spec: `postmark:files=500,tx=100000,qd=16,min=1k,max=4m,io=128k,read=0.5,create=0.5,trim=0,sync=0,think=0,wb=0,dirty=64m,span=...,seed=...`
//! (every key optional). An initial pool of `files` files with sizes
//! uniform in [`min`, `max`] is laid out without I/O (the device is
//! preconditioned instead). `qd` workers (the queue length; each one is a
//! stream, so per-process schedulers see `qd` processes) each run
//! transactions until `tx` have been started. A transaction is Postmark's
//! pair: read a random file whole (probability `read`) or append to one
//! (size uniform in [`min`, `max`]), then create a file (probability
//! `create`; size uniform in [`min`, `max`], written whole) or delete one.
//! A transaction's I/O is split into requests of at most `io` bytes
//! (512-byte aligned). By default a worker submits all of them at once and
//! starts its next transaction when they have all completed (the page cache
//! writes a file back and reads ahead in parallel), so more requests than
//! the queue depth can be pending and the host scheduler has a queue to
//! order; `sync=1` issues them one at a time instead.
//!
//! Postmark itself is a single process making synchronous system calls:
//! a read returns when its data is in memory, a write when it is in the
//! page cache, and the time between calls is CPU and file-system work.
//! Two keys model that: `think` (µs) is the time a worker spends between
//! the end of one transaction's blocking I/O and the start of the next;
//! `wb=1` (write-behind) makes writes asynchronous: a transaction's
//! operations run in Postmark's order (read or append, then create or
//! delete), a write is handed to the device when the worker reaches it (so
//! a create waits for the read before it) and nobody waits for it, and no
//! worker issues a write while more than `dirty` bytes of writes are in
//! flight over all workers (the kernel's dirty-page throttling). A
//! transaction ends when its reads are done.
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
    /// Time between the end of a transaction's blocking I/O and the next
    /// transaction of the same worker, ns (`think`, given in µs).
    pub think_ns: Ns,
    /// Writes are asynchronous (`wb`): transactions wait for reads only.
    pub write_behind: bool,
    /// Write-behind bytes in flight above which no write is issued (`dirty`).
    pub dirty: u64,
    /// Footprint on the device, bytes (0 = the whole device).
    pub span: u64,
    /// Seed of the generator (the run's seed if `None`).
    pub seed: Option<u64>,
    text: String,
}

fn bad(key: &str, msg: String) -> Box<SimError> {
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
            think_ns: 0,
            write_behind: false,
            dirty: 64 << 20,
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
                "think" => {
                    let us: f64 = num(k, v)?;
                    if !(0.0..=1e9).contains(&us) {
                        return Err(bad(k, format!("{us} µs is outside [0, 1e9]")));
                    }
                    s.think_ns = (us * 1e3).round() as Ns;
                }
                "wb" => s.write_behind = num::<u8>(k, v)? != 0,
                "dirty" => s.dirty = parse_bytes("postmark.dirty", v)?,
                "span" => s.span = parse_bytes("postmark.span", v)?,
                "seed" => s.seed = Some(num(k, v)?),
                other => {
                    return Err(bad(
                        other,
                        "unknown key (known: files, tx, qd, min, max, io, read, create, trim, sync, think, wb, dirty, span, seed)"
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
            dirty: 0,
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
    /// Requests of the current transaction not yet issued, in program
    /// order: (op, offset, bytes, written behind).
    todo: VecDeque<(Op, u64, u32, bool)>,
    /// Requests it waits for (not written behind) in flight.
    busy: u32,
    /// A transaction is running (its blocking I/O not all done).
    active: bool,
    /// Earliest start of this worker's next transaction (think time).
    wake: Ns,
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
    /// Write-behind bytes in flight over all workers.
    dirty: u64,
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

    /// Requests for `op` over `bytes` of the extents, split at `io`;
    /// writes go behind the transaction with `wb=1`.
    fn emit(&self, w: &mut Worker, op: Op, ext: &[(u64, u64)], mut bytes: u64) {
        for &(off, len) in ext {
            let mut pos = 0;
            while pos < len && bytes > 0 {
                let n = (len - pos).min(self.spec.io).min(bytes.div_ceil(512) * 512);
                let behind = op == Op::Write && self.spec.write_behind;
                w.todo.push_back((op, off + pos, n as u32, behind));
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
                        .push_back((Op::Trim, off, len.min(u32::MAX as u64) as u32, false));
                }
            }
        }
        self.started += 1;
        w.active = true;
        self.workers[i] = w;
    }

    /// Issue what worker `i` may issue at `now`. A worker starts a
    /// transaction when it is idle and its think time has passed, and
    /// issues its requests in program order: reads (and writes without
    /// write-behind) all at once, or one at a time with `sync=1`; a write
    /// behind only when the reads before it are done (the process is
    /// blocked in `read()`) and the dirty bytes in flight are at most
    /// `dirty` (it is throttled in `write()`). With write-behind and no
    /// think time several transactions may start and end at one instant.
    fn step(&mut self, i: usize, now: Ns, out: &mut Vec<IoRecord>) {
        loop {
            let w = &self.workers[i];
            if !w.active {
                if self.started >= self.spec.transactions || now < w.wake {
                    return;
                }
                self.transaction(i);
            }
            let (sync, limit) = (self.spec.sync, self.spec.dirty);
            let w = &mut self.workers[i];
            while let Some(&(op, offset, size, behind)) = w.todo.front() {
                let ready = if behind {
                    w.busy == 0 && self.dirty <= limit
                } else {
                    !(sync && w.busy > 0)
                };
                if !ready {
                    break;
                }
                w.todo.pop_front();
                if behind {
                    self.dirty += size as u64;
                } else {
                    w.busy += 1;
                }
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
            if w.busy > 0 || !w.todo.is_empty() {
                return;
            }
            // Its blocking I/O is done: the transaction ends here.
            w.active = false;
            w.wake = now + self.spec.think_ns;
        }
    }
}

impl Workload for Postmark {
    fn poll(&mut self, now: Ns, out: &mut Vec<IoRecord>) -> SimResult<Poll> {
        let mut inflight = false;
        let mut wake: Option<Ns> = None;
        for i in 0..self.workers.len() {
            self.step(i, now, out);
            let w = &self.workers[i];
            inflight |= w.active;
            if !w.active && self.started < self.spec.transactions && w.wake > now {
                wake = Some(wake.map_or(w.wake, |t| t.min(w.wake)));
            }
        }
        // Writes behind still in flight: the run is not over.
        inflight |= self.dirty > 0;
        Ok(match wake {
            Some(t) => Poll::Wait(t),
            None if inflight => Poll::Blocked,
            None => Poll::Done,
        })
    }

    fn on_complete(&mut self, c: &Completion, now: Ns) {
        let think = self.spec.think_ns;
        let Some(w) = self.workers.get_mut(c.stream as usize) else {
            return;
        };
        if c.op == Op::Write && self.spec.write_behind {
            self.dirty = self.dirty.saturating_sub(c.size as u64);
            return;
        }
        w.busy = w.busy.saturating_sub(1);
        // The rest of the transaction (writes after a read) is issued at
        // the poll that follows.
        if w.active && w.busy == 0 && w.todo.is_empty() {
            w.active = false;
            w.wake = now + think;
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

    fn done(r: &IoRecord, t: Ns) -> Completion {
        Completion {
            arrival: r.time_ns,
            dispatch: r.time_ns,
            complete: t,
            op: r.op,
            offset: r.offset,
            size: r.size,
            stream: r.stream,
        }
    }

    fn ops(out: &[IoRecord]) -> Vec<(Op, u64, u32)> {
        out.iter().map(|r| (r.op, r.offset, r.size)).collect()
    }

    const US: Ns = 1000;

    /// One worker, 8 KiB files, 4 KiB requests, always read then create,
    /// 100 µs think time, write-behind: worked by hand.
    #[test]
    fn think_time_and_write_behind_by_hand() {
        let s = PostmarkSpec::parse(
            "files=1,tx=2,qd=1,min=8k,max=8k,io=4k,read=1,create=1,think=100,wb=1",
        )
        .unwrap();
        assert_eq!((s.think_ns, s.write_behind), (100 * US, true));
        let mut w = s.build(1 << 30, 7).unwrap();
        let mut out = Vec::new();
        // t = 0: transaction 1 reads file 0 (bytes 0-8k) whole; the create
        // waits for it (the process is blocked in read()).
        assert_eq!(w.poll(0, &mut out).unwrap(), Poll::Blocked);
        assert_eq!(ops(&out), vec![(Op::Read, 0, 4096), (Op::Read, 4096, 4096)]);
        let reads = std::mem::take(&mut out);
        w.on_complete(&done(&reads[0], 50 * US), 50 * US);
        assert_eq!(w.poll(50 * US, &mut out).unwrap(), Poll::Blocked);
        assert!(out.is_empty(), "the second read is still in flight");
        // t = 100 µs: the reads are done; the new file (placed at 8k) is
        // written behind and the transaction ends: next start at 200 µs.
        w.on_complete(&done(&reads[1], 100 * US), 100 * US);
        assert_eq!(w.poll(100 * US, &mut out).unwrap(), Poll::Wait(200 * US));
        assert_eq!(
            ops(&out),
            vec![(Op::Write, 8192, 4096), (Op::Write, 12288, 4096)]
        );
        assert!(out.iter().all(|r| r.time_ns == 100 * US));
        let writes = std::mem::take(&mut out);
        // Thinking: a write completing at 150 µs starts nothing.
        w.on_complete(&done(&writes[0], 150 * US), 150 * US);
        assert_eq!(w.poll(150 * US, &mut out).unwrap(), Poll::Wait(200 * US));
        assert!(out.is_empty());
        // t = 200 µs: transaction 2 reads one of the two files (the second
        // write of transaction 1 still in flight does not hold it up).
        assert_eq!(w.poll(200 * US, &mut out).unwrap(), Poll::Blocked);
        let r2 = std::mem::take(&mut out);
        assert_eq!(r2.len(), 2);
        assert!(r2.iter().all(|r| r.op == Op::Read && r.time_ns == 200 * US));
        assert!(r2[0].offset == 0 || r2[0].offset == 8192);
        assert_eq!(r2[1].offset, r2[0].offset + 4096);
        for r in &r2 {
            w.on_complete(&done(r, 260 * US), 260 * US);
        }
        // Its create goes behind at 16k; all transactions started, so the
        // workload waits for the writes in flight, then is done.
        assert_eq!(w.poll(260 * US, &mut out).unwrap(), Poll::Blocked);
        assert_eq!(
            ops(&out),
            vec![(Op::Write, 16384, 4096), (Op::Write, 20480, 4096)]
        );
        let last = std::mem::take(&mut out);
        for r in last.iter().chain(&writes[1..]) {
            w.on_complete(&done(r, 300 * US), 300 * US);
        }
        assert_eq!(w.poll(300 * US, &mut out).unwrap(), Poll::Done);
        assert!(out.is_empty());
    }

    /// With `dirty=0` a write is issued only when no other is in flight.
    #[test]
    fn dirty_limit_throttles_writes() {
        let s = PostmarkSpec::parse(
            "files=2,tx=1,qd=1,min=12k,max=12k,io=4k,read=0,create=0,wb=1,dirty=0",
        )
        .unwrap();
        let mut w = s.build(1 << 30, 3).unwrap();
        let mut out = Vec::new();
        // An append of 12 KiB (3 writes after the pool's 24 KiB), then a
        // delete (no I/O).
        let mut t = 0;
        let mut seen = Vec::new();
        loop {
            let p = w.poll(t, &mut out).unwrap();
            if p == Poll::Done {
                break;
            }
            assert_eq!(out.len(), 1, "one write in flight at a time at t={t}");
            let r = out.pop().unwrap();
            seen.push((r.op, r.offset, r.size, r.time_ns));
            t += 10 * US;
            w.on_complete(&done(&r, t), t);
        }
        assert_eq!(
            seen,
            vec![
                (Op::Write, 24576, 4096, 0),
                (Op::Write, 28672, 4096, 10 * US),
                (Op::Write, 32768, 4096, 20 * US),
            ]
        );
    }

    #[test]
    fn rejects_bad_think_time() {
        let e = PostmarkSpec::parse("think=-1").unwrap_err().to_string();
        assert!(e.contains("postmark.think"), "{e}");
        assert!(PostmarkSpec::parse("dirty=lots").is_err());
    }
}
