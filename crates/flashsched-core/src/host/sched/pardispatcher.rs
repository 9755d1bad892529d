//! ParDispatcher (Wang et al., MSST 2013), as modelled in baselines.md §2
//! (the paper itself is unavailable; every rule below except "sub-regions
//! served round-robin, one direction per turn, sorted queues" is our
//! assumption): the logical space is split into `regions` equal contiguous
//! ranges (0 = number of chips), a request belongs to the region of its
//! start offset; each region keeps read and write queues sorted by offset.
//! Regions with pending requests take turns round-robin; a turn dispatches
//! up to `batch` requests of one direction in ascending offset order (an
//! elevator sweep from the region's last position, wrapping once). Reads go
//! first unless writes were passed over `writes_starved` times in that
//! region or the oldest write expired (`write_expire_ms`; reads likewise
//! with `read_expire_ms`, the oldest expired request starting the batch).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::merge::Merger;
use super::{check_range, ms, HostCtx, HostEnv, HostScheduler, HostSchedulerType, Pick};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::host::HostRequest;
use crate::io::Op;
use crate::registry::Params;

/// `[host.pardispatcher]` parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ParDispatcherParams {
    /// Sub-regions (0 = number of chips).
    pub regions: u32,
    /// Requests per region turn.
    pub batch: u32,
    /// Read turns that may pass over a region's waiting writes.
    pub writes_starved: u32,
    /// Age at which a read starts its region's turn.
    pub read_expire_ms: f64,
    /// Age at which a write starts its region's turn.
    pub write_expire_ms: f64,
}

impl Default for ParDispatcherParams {
    fn default() -> Self {
        ParDispatcherParams {
            regions: 0,
            batch: 16,
            writes_starved: 2,
            read_expire_ms: 500.0,
            write_expire_ms: 5000.0,
        }
    }
}

impl Params for ParDispatcherParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        check_range(key, "regions", self.regions as f64, 0.0, 1e6)?;
        check_range(key, "batch", self.batch as f64, 1.0, 1e6)?;
        check_range(key, "writes_starved", self.writes_starved as f64, 0.0, 1e6)?;
        check_range(key, "read_expire_ms", self.read_expire_ms, 0.0, 1e7)?;
        check_range(key, "write_expire_ms", self.write_expire_ms, 0.0, 1e7)
    }
}

#[derive(Default)]
struct Region {
    /// Per direction: (offset, seq) → id, and seq → (id, offset, deadline).
    sorted: [BTreeMap<(u64, u64), u32>; 2],
    fifo: [BTreeMap<u64, (u32, u64, Ns)>; 2],
    pos: u64,
    starved: u32,
}

impl Region {
    fn pending(&self) -> bool {
        !self.fifo[0].is_empty() || !self.fifo[1].is_empty()
    }
}

/// ParDispatcher.
pub struct ParDispatcher {
    p: ParDispatcherParams,
    expire: [Ns; 2],
    regions: Vec<Region>,
    region_bytes: u64,
    cur: usize,
    /// Direction and requests left in the current turn.
    turn: Option<(usize, u32)>,
    held: usize,
    merger: Merger,
}

impl ParDispatcher {
    /// Take the next request of direction `d` in region `r` (sweep order).
    fn take(&mut self, r: usize, d: usize, now: Ns) -> Option<u32> {
        let reg = &mut self.regions[r];
        let (&seq0, &(id0, off0, dl)) = reg.fifo[d].iter().next()?;
        let (off, seq, id) = if now >= dl {
            (off0, seq0, id0)
        } else {
            let next = reg.sorted[d]
                .range((reg.pos, 0)..)
                .next()
                .or_else(|| reg.sorted[d].iter().next());
            let (&(o, s), &i) = next?;
            (o, s, i)
        };
        reg.sorted[d].remove(&(off, seq));
        reg.fifo[d].remove(&seq);
        reg.pos = off + 1;
        Some(id)
    }

    fn issue(&mut self, id: u32, merged: &mut Vec<u32>) -> Pick {
        let before = merged.len();
        self.merger.take(id, merged);
        self.held -= 1 + merged.len() - before;
        Pick::Req(id)
    }

    fn choose_dir(&mut self, r: usize, now: Ns) -> usize {
        let reg = &mut self.regions[r];
        let reads = reg.fifo[0].iter().next().map(|(_, v)| v.2);
        let writes = reg.fifo[1].iter().next().map(|(_, v)| v.2);
        match (reads, writes) {
            (Some(_), None) => 0,
            (None, _) => {
                reg.starved = 0;
                1
            }
            (Some(rd), Some(wd)) => {
                let write_due = now >= wd && now < rd;
                if write_due || reg.starved >= self.p.writes_starved {
                    reg.starved = 0;
                    1
                } else {
                    reg.starved += 1;
                    0
                }
            }
        }
    }
}

impl HostSchedulerType for ParDispatcher {
    const NAME: &'static str = "pardispatcher";
    const ABOUT: &'static str =
        "ParDispatcher: requests spread over chip regions in parallel batches";
    type Params = ParDispatcherParams;

    fn new(p: ParDispatcherParams, env: &HostEnv) -> Self {
        let chips = env.chips;
        let n = if p.regions == 0 { chips } else { p.regions }.max(1);
        let cap = env.logical_bytes;
        ParDispatcher {
            expire: [ms(p.read_expire_ms), ms(p.write_expire_ms)],
            p,
            regions: (0..n).map(|_| Region::default()).collect(),
            region_bytes: cap.div_ceil(n as u64).max(1),
            cur: 0,
            turn: None,
            held: 0,
            merger: Merger::new(env.max_merge_bytes),
        }
    }
}

impl HostScheduler for ParDispatcher {
    fn enqueue(&mut self, req: &HostRequest, now: Ns) {
        self.held += 1;
        // Elevator-core back merge (the lead keeps its offset and place).
        if self.merger.try_back(req).is_some() {
            return;
        }
        self.merger.insert(req);
        let n = self.regions.len();
        let r = ((req.offset / self.region_bytes) as usize).min(n - 1);
        let d = usize::from(req.op != Op::Read);
        let reg = &mut self.regions[r];
        reg.sorted[d].insert((req.offset, req.seq), req.id);
        reg.fifo[d].insert(req.seq, (req.id, req.offset, now + self.expire[d]));
    }

    fn dispatch(&mut self, ctx: &HostCtx, merged: &mut Vec<u32>) -> Option<Pick> {
        if self.held == 0 {
            return None;
        }
        if let Some((d, left)) = self.turn {
            if left > 0 {
                if let Some(id) = self.take(self.cur, d, ctx.now) {
                    self.turn = Some((d, left - 1));
                    return Some(self.issue(id, merged));
                }
            }
            self.turn = None;
            self.cur = (self.cur + 1) % self.regions.len();
        }
        // Next region (round-robin) with pending requests.
        let n = self.regions.len();
        let r = (0..n)
            .map(|k| (self.cur + k) % n)
            .find(|&r| self.regions[r].pending())?;
        self.cur = r;
        let d = self.choose_dir(r, ctx.now);
        let id = self.take(r, d, ctx.now)?;
        self.turn = Some((d, self.p.batch - 1));
        Some(self.issue(id, merged))
    }

    fn len(&self) -> usize {
        self.held
    }
}
