//! Kyber, the 4.18+ version (baselines.md §1.5): four domains (READ, WRITE,
//! DISCARD, OTHER) each limited to a number of device-wide in-flight tokens
//! (initially 256/128/64/16); dispatch takes up to a batch (16/8/1/1) of
//! oldest requests from the current domain while it has tokens, then moves
//! round-robin to the next domain with a request and a free token. Every
//! completion feeds per-domain histograms (8 buckets of target/4) of total
//! latency (arrival → completion) and I/O latency (dispatch → completion).
//! At least `window_ms` (100 ms) after the last adjustment, with a
//! completion (the kernel's timer is armed by completions), for each domain
//! with ≥ 500 samples or 1 s of samples: if any domain's p90 I/O latency is
//! above target, or a domain's p99 total latency is, its depth becomes
//! `depth × (p99 bucket + 1) / 4` clamped to [1, kyber_depth]. A domain
//! without fresh samples is resized only under congestion, once, with the
//! p99 it last had (as Linux's timer does).
//! Not modelled: the 75 % async tag limit (`nr_requests` is the host queue).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::merge::Merger;
use super::{check_range, ms, Done, HostCtx, HostEnv, HostScheduler, HostSchedulerType, Pick};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::host::HostRequest;
use crate::io::Op;
use crate::registry::Params;

/// `[host.kyber]` tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct KyberParams {
    /// Target read latency.
    pub read_lat_us: f64,
    /// Target write latency.
    pub write_lat_us: f64,
    /// Shortest time between depth adjustments.
    pub window_ms: f64,
}

impl Default for KyberParams {
    fn default() -> Self {
        KyberParams {
            read_lat_us: 2000.0,
            write_lat_us: 10000.0,
            window_ms: 100.0,
        }
    }
}

impl Params for KyberParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        check_range(key, "read_lat_us", self.read_lat_us, 1.0, 1e9)?;
        check_range(key, "write_lat_us", self.write_lat_us, 1.0, 1e9)?;
        check_range(key, "window_ms", self.window_ms, 0.001, 1e7)
    }
}

const DOMAINS: usize = 4;
const DEPTH: [u32; DOMAINS] = [256, 128, 64, 16];
const BATCH: [u32; DOMAINS] = [16, 8, 1, 1];
const BUCKETS: usize = 8;

#[derive(Default, Clone)]
struct Hist {
    b: [u64; BUCKETS],
    n: u64,
    first: Option<Ns>,
}

impl Hist {
    fn add(&mut self, lat: Ns, target: Ns, now: Ns) {
        let w = (target >> 2).max(1);
        let i = ((lat.saturating_sub(1)) / w).min(BUCKETS as u64 - 1) as usize;
        self.b[i] += 1;
        self.n += 1;
        self.first.get_or_insert(now);
    }
    /// Bucket holding percentile `p` if enough samples, resetting the window.
    fn percentile(&mut self, p: u64, now: Ns) -> Option<usize> {
        let ready = self.n >= 500 || self.first.is_some_and(|f| now >= f + ms(1000.0));
        if !ready || self.n == 0 {
            return None;
        }
        let want = (self.n * p).div_ceil(100);
        let mut acc = 0;
        let mut at = BUCKETS - 1;
        for (i, &c) in self.b.iter().enumerate() {
            acc += c;
            if acc >= want {
                at = i;
                break;
            }
        }
        *self = Hist::default();
        Some(at)
    }
}

/// Kyber.
pub struct Kyber {
    target: [Ns; DOMAINS],
    window: Ns,
    queues: [VecDeque<u32>; DOMAINS],
    depth: [u32; DOMAINS],
    in_flight: [u32; DOMAINS],
    cur: usize,
    batching: u32,
    domain_of: Vec<u8>,
    total: [Hist; DOMAINS],
    io: [Hist; DOMAINS],
    /// A p99 bucket kept for the next congested window (used once).
    p99: [Option<usize>; DOMAINS],
    last_adjust: Ns,
    held: usize,
    merger: Merger,
}

fn domain(op: Op) -> usize {
    match op {
        Op::Read => 0,
        Op::Write => 1,
        Op::Trim => 2,
    }
}

impl Kyber {
    fn take(&mut self, d: usize) -> Option<u32> {
        if self.in_flight[d] >= self.depth[d] {
            return None;
        }
        let id = self.queues[d].pop_front()?;
        self.in_flight[d] += 1;
        Some(id)
    }

    fn issue(&mut self, id: u32, merged: &mut Vec<u32>) -> Pick {
        let before = merged.len();
        self.merger.take(id, merged);
        self.held -= 1 + merged.len() - before;
        Pick::Req(id)
    }

    fn adjust(&mut self, now: Ns) {
        let mut bad = false;
        for d in 0..3 {
            if self.io[d].percentile(90, now).is_some_and(|b| b >= 4) {
                bad = true;
            }
        }
        #[allow(clippy::needless_range_loop)] // d indexes five parallel arrays
        for d in 0..3 {
            // As Linux's timer: domains rarely have enough samples in the
            // same window, so a fresh p99 is remembered for the next window
            // that sees congestion, which uses it once and forgets it.
            // Without congestion only a fresh p99 counts: a domain with no
            // new samples is left alone (re-applying a stale p99 every
            // window would keep shrinking its depth to 1).
            let fresh = self.total[d].percentile(99, now);
            let p99 = if bad {
                fresh.or(self.p99[d].take())
            } else {
                if fresh.is_some() {
                    self.p99[d] = fresh;
                }
                fresh
            };
            if let Some(b) = p99 {
                if bad || b >= 4 {
                    let nd = (self.depth[d] as usize * (b + 1)) >> 2;
                    self.depth[d] = (nd as u32).clamp(1, DEPTH[d]);
                }
            }
        }
    }
}

impl HostSchedulerType for Kyber {
    const NAME: &'static str = "kyber";
    const ABOUT: &'static str =
        "Kyber: per-domain dispatch depths tuned to latency targets (Linux 4.18+)";
    type Params = KyberParams;

    fn new(p: KyberParams, env: &HostEnv) -> Self {
        let us = |v: f64| (v * 1000.0) as Ns;
        Kyber {
            target: [us(p.read_lat_us), us(p.write_lat_us), ms(5000.0), 0],
            window: ms(p.window_ms),
            queues: Default::default(),
            depth: DEPTH,
            in_flight: [0; DOMAINS],
            cur: 0,
            batching: 0,
            domain_of: Vec::new(),
            total: Default::default(),
            io: Default::default(),
            p99: [None; DOMAINS],
            last_adjust: 0,
            held: 0,
            merger: Merger::new(env.max_merge_bytes),
        }
    }
}

impl HostScheduler for Kyber {
    fn enqueue(&mut self, req: &HostRequest, _now: Ns) {
        self.held += 1;
        // blk-mq software-queue back merge.
        if self.merger.try_back(req).is_some() {
            return;
        }
        self.merger.insert(req);
        let d = domain(req.op);
        self.queues[d].push_back(req.id);
        let i = req.id as usize;
        if i >= self.domain_of.len() {
            self.domain_of.resize(i + 1, 0);
        }
        self.domain_of[i] = d as u8;
    }

    fn dispatch(&mut self, _ctx: &HostCtx, merged: &mut Vec<u32>) -> Option<Pick> {
        if self.batching < BATCH[self.cur] {
            if let Some(id) = self.take(self.cur) {
                self.batching += 1;
                return Some(self.issue(id, merged));
            }
        }
        self.batching = 0;
        for k in 1..=DOMAINS {
            let d = (self.cur + k) % DOMAINS;
            if let Some(id) = self.take(d) {
                self.cur = d;
                self.batching = 1;
                return Some(self.issue(id, merged));
            }
        }
        None
    }

    fn on_complete(&mut self, done: &Done, ctx: &HostCtx) {
        if done.probe {
            return;
        }
        let d = self.domain_of[done.req.id as usize] as usize;
        self.in_flight[d] = self.in_flight[d].saturating_sub(1);
        if d < 3 {
            let now = ctx.now;
            let t = self.target[d];
            self.total[d].add(now.saturating_sub(done.req.arrival), t, now);
            self.io[d].add(now.saturating_sub(done.dispatched), t, now);
        }
        if ctx.now >= self.last_adjust + self.window {
            self.last_adjust = ctx.now;
            self.adjust(ctx.now);
        }
    }

    fn len(&self) -> usize {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kyber() -> Kyber {
        let env = HostEnv {
            max_merge_bytes: 0,
            chips: 1,
            logical_bytes: 1 << 30,
        };
        Kyber::new(KyberParams::default(), &env)
    }

    /// 500 samples in bucket `b` of domain `d`'s total-latency histogram.
    fn fill_total(k: &mut Kyber, d: usize, b: u64, now: Ns) {
        let w = k.target[d] >> 2;
        for _ in 0..500 {
            k.total[d].add(b * w + 1, k.target[d], now);
        }
    }

    /// A read p99 in bucket 1 (within target) without congestion leaves
    /// reads alone and is remembered; a window with no fresh samples and no
    /// congestion changes nothing; the first congested window uses the
    /// remembered p99 once (256 * (1 + 1) / 4 = 128) and forgets it, so a
    /// second congested window without fresh read samples does not shrink
    /// reads again (the old behaviour gave 64, then 32, ... down to 1).
    #[test]
    fn a_remembered_p99_is_used_once_under_congestion() {
        let mut k = kyber();
        fill_total(&mut k, 0, 1, 0);
        k.adjust(ms(100.0));
        assert_eq!(k.depth[0], 256, "no congestion, p99 within target");
        assert_eq!(k.p99[0], Some(1));
        // No fresh samples, no congestion: untouched, still remembered.
        k.adjust(ms(200.0));
        assert_eq!(k.depth[0], 256);
        assert_eq!(k.p99[0], Some(1));
        // Congestion: the write domain's p90 I/O latency is above target.
        let t = k.target[1];
        for _ in 0..500 {
            k.io[1].add(t * 2, t, ms(250.0));
        }
        k.adjust(ms(300.0));
        assert_eq!(k.depth[0], 128, "256 * (1 + 1) / 4");
        assert_eq!(k.p99[0], None, "used once");
        // Congested again, nothing fresh for reads: no further shrinking.
        for _ in 0..500 {
            k.io[1].add(t * 2, t, ms(350.0));
        }
        k.adjust(ms(400.0));
        assert_eq!(k.depth[0], 128);
    }
}
