//! The serial SSD array (Kim, Kim & Noh, "Managing Array of SSDs When the
//! Storage Device is No Longer the Performance Bottleneck", HotStorage'17;
//! full version SWAN, ATC'19): the array's log, its mapping and external GC.
//!
//! * Every SSD's logical space is an append-only log of `unit`-sized slots,
//!   grouped in segments. The array maps each logical unit to a slot
//!   (`fwd`) and each slot back to its unit (`inv`), as Gecko/SWAN do (§2.3;
//!   8 bytes per unit: 0.2 % of capacity with 4 KiB units).
//! * One front-end SSD (configurable count) absorbs every user write,
//!   appended at its write pointer (§2.1, Fig. 4/5(a)); back-end SSDs only
//!   serve reads of the data they hold.
//! * When a front-end fills it becomes a back-end; its successor is the
//!   xGC destination (it already holds copied data: "with time, the selected
//!   SSD will contain a mix of valid and invalid data", §2.1) or the SSD
//!   with the most room.
//! * External GC (Fig. 5(b)) starts when at most one clean SSD is left. The
//!   victim is a back-end chosen by [`Victim`]: `retired` (default, the
//!   paper's §2.1: the front-end that retired last), `fifo` (longest out of
//!   the front-end role) or `greedy` (fewest valid units, SWAN's other
//!   policy); its segments are copied in victim order (write order; greedy:
//!   fewest valid first) to up to `dests` destinations at once (clean SSDs
//!   first, else the back-ends with the most room), updating `fwd` and `inv`.
//! * Keep-up ([`keep_up`]): a victim with valid fraction v must be emptied
//!   while the front-end fills its free space, so v / (1 − v) ≤ copy rate /
//!   front-end fill rate. Every xGC job is checked against it when it ends
//!   (`xgc_jobs_behind`), and writes that wait for xGC are counted.
//! * When nothing valid is left and no request to it is outstanding, the
//!   whole victim is TRIMmed (Fig. 5(c)) and becomes clean.
//!
//! Assumptions where the paper is silent (docs/arrays.md): the mapping is
//! updated when a write is issued (reads issued later go to the new slot,
//! which the SSD serves from its in-flight data); a write covering part of
//! a unit rewrites the whole unit (as the SSD model programs whole pages);
//! a victim starts only when its valid data has room elsewhere, and a
//! front-end may not take room a running xGC needs (nor the last clean SSD
//! unless the next victim would still fit): writes then wait for xGC; if no
//! back-end has room, xGC appends to the front-end (`xgc_to_front`).

use std::collections::VecDeque;

use crate::error::{SimError, SimResult};
use crate::ftl::map::PageMap;
use xgc::Job;

mod xgc;

const NONE: u32 = u32::MAX;

mod keep_up;
pub use keep_up::{keeps_up, KeepUp};

/// How xGC picks its victim SSD (and orders the victim's segments).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Victim {
    /// The paper's policy (§2.1, Fig. 5(b)): the front-end that retired
    /// most recently; its segments in write order.
    Retired,
    /// The back-end out of the front-end role longest (oldest back-end
    /// first); its segments in write order.
    Fifo,
    /// The back-end with the fewest valid units; its segments fewest valid
    /// first.
    Greedy,
}

/// Serial-array parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct SerialConfig {
    /// SSDs serving writes at once.
    pub front_ends: u32,
    /// Mapping unit in bytes (0 = the SSD page size; must be a multiple of it).
    pub unit: u64,
    /// Segment (xGC victim unit) in bytes.
    pub segment: u64,
    /// How xGC picks its victim SSD and orders its segments.
    pub victim: Victim,
    /// xGC unit copies in flight.
    pub window: u32,
    /// SSDs xGC copies into at once (round robin over them; 0 = 2, or
    /// ssds − front − 1 if fewer).
    pub dests: u32,
    /// Serve reads of units held by a front-end from a host read cache
    /// (the paper's §2.2: recent writes are absorbed by the client/host
    /// cache) instead of the SSD.
    pub front_cache: bool,
    /// Logical volume as a fraction of the SSDs' total logical space
    /// (0 = (N − front_ends − 1) / N: the front-ends and one SSD being
    /// cleaned hold no long-lived data).
    pub volume_fraction: f64,
    /// Keep per-unit version numbers and check every read against them.
    pub verify: bool,
}

impl Default for SerialConfig {
    fn default() -> Self {
        SerialConfig {
            front_ends: 1,
            unit: 0,
            segment: 4 << 20,
            victim: Victim::Retired,
            window: 128,
            dests: 0,
            front_cache: false,
            volume_fraction: 0.0,
            verify: false,
        }
    }
}

/// Role of an SSD in the serial array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Trimmed, empty.
    Clean,
    /// Absorbing user writes.
    Front,
    /// Holding data; serves reads; may be the xGC destination.
    Back,
    /// Old front-end being emptied by xGC.
    Source,
}

impl Role {
    /// Lowercase name, as in the summary's `per_ssd[].role`.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Clean => "clean",
            Role::Front => "front",
            Role::Back => "back",
            Role::Source => "source",
        }
    }
}

/// Serial-array counters.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct SerialStats {
    /// Front-ends retired to back-end when full (one per SSD retired).
    pub rotations: u64,
    /// Units xGC copied to another SSD.
    pub xgc_units_copied: u64,
    /// Units xGC read but did not write: overwritten or TRIMmed while the
    /// copy read was in flight.
    pub xgc_units_skipped: u64,
    /// xGC copies appended to a front-end because no back-end or clean SSD
    /// had room.
    pub xgc_to_front: u64,
    /// Whole-SSD TRIMs of drained xGC victims.
    pub trims: u64,
    /// Version-oracle checks made (0 unless `verify`).
    pub version_checks: u64,
    /// Checks that found an old version or TRIMmed data (must be 0).
    pub version_mismatches: u64,
    /// Units of client reads served by the front-end read cache.
    pub cache_hit_units: u64,
    /// Units of user writes placed on front-ends.
    pub user_units_written: u64,
    /// The keep-up check of every finished xGC job.
    pub keep_up: KeepUp,
}

/// The serial array's log, mapping and xGC state.
#[derive(Debug, Clone)]
pub struct SerialLog {
    /// SSDs in the array.
    pub(crate) n: u32,
    /// Slots per SSD.
    pub cap: u32,
    /// Mapping unit (slot size), bytes.
    pub unit: u64,
    /// Units per segment.
    pub(crate) seg_units: u32,
    /// Logical units of the volume.
    pub(crate) volume_units: u32,
    /// Front-ends to keep.
    front_target: u32,
    victim: Victim,
    /// xGC copies in flight at most.
    pub(crate) window: u32,
    /// Destinations copied into at once.
    pub(crate) dests: u32,
    /// Reads of front-end units are served by the host cache.
    pub(crate) front_cache: bool,
    /// Current xGC destinations (round robin) and the next to use.
    gc_dests: Vec<u32>,
    gc_rr: usize,
    /// When each SSD last retired from the front-end role (0 = never).
    retired_at: Vec<u64>,
    /// Simulated time, as the array last told the log (ns).
    pub(crate) now: u64,
    /// Total time writes have waited for xGC so far (ns), as the array last
    /// told the log.
    pub(crate) stall_ns: u64,
    fwd: PageMap,
    inv: PageMap,
    wp: Vec<u32>,
    valid: Vec<u32>,
    seg_valid: Vec<u32>,
    /// Role of each SSD.
    pub role: Vec<Role>,
    fronts: Vec<u32>,
    rr: usize,
    sources: VecDeque<u32>,
    job: Option<Job>,
    /// When each SSD last became a back-end (FIFO victim order among back-ends).
    back_since: Vec<u64>,
    role_seq: u64,
    ver: Vec<u32>,
    slot_ver: Vec<u32>,
    /// Role changes not yet seen by the array loop.
    pub(crate) changes: Vec<(u32, Role)>,
    /// Counters.
    pub stats: SerialStats,
}

impl SerialLog {
    /// A log over `n` SSDs of `ssd_bytes` logical bytes each.
    pub(crate) fn new(
        cfg: &SerialConfig,
        n: u32,
        ssd_bytes: u64,
        page: u64,
    ) -> SimResult<SerialLog> {
        let unit = if cfg.unit == 0 { page } else { cfg.unit };
        if unit == 0 || !unit.is_multiple_of(page) {
            return Err(SimError::config(
                "array.unit",
                format!("{unit} is not a positive multiple of the SSD page size {page}"),
            ));
        }
        if cfg.front_ends == 0 || cfg.front_ends >= n {
            return Err(SimError::config(
                "array.front",
                format!("{} front-ends need 1 ≤ front < ssds = {n}", cfg.front_ends),
            ));
        }
        if cfg.segment < unit || !cfg.segment.is_multiple_of(unit) {
            return Err(SimError::config(
                "array.segment",
                format!(
                    "{} is not a positive multiple of the unit {unit}",
                    cfg.segment
                ),
            ));
        }
        if cfg.window == 0 {
            return Err(SimError::config("array.window", "must be ≥ 1"));
        }
        // 0 = the default: 2, or fewer when the SSDs besides the front-ends
        // and the victim are fewer.
        let spare = n - cfg.front_ends - 1;
        let dests = match cfg.dests {
            0 => 2.min(spare).max(1),
            d if d > spare => {
                return Err(SimError::config(
                    "array.dests",
                    format!("{d} xGC destinations need 1 ≤ dests ≤ ssds − front − 1 = {spare}"),
                ))
            }
            d => d,
        };
        let seg_units = (cfg.segment / unit) as u32;
        let cap = ((ssd_bytes / unit) as u32 / seg_units) * seg_units;
        if cap == 0 || n as u64 * cap as u64 >= NONE as u64 {
            return Err(SimError::config(
                "array.unit",
                format!("{n} SSDs × {cap} units does not fit the u32 mapping"),
            ));
        }
        let frac = if cfg.volume_fraction == 0.0 {
            (n - cfg.front_ends - 1).max(1) as f64 / n as f64
        } else {
            cfg.volume_fraction
        };
        if !(frac > 0.0 && frac < 1.0) {
            return Err(SimError::config(
                "array.volume",
                format!("{frac} is outside (0, 1)"),
            ));
        }
        let volume_units = (frac * (n as u64 * cap as u64) as f64) as u32;
        let slots = n as usize * cap as usize;
        let mut role = vec![Role::Clean; n as usize];
        let fronts: Vec<u32> = (0..cfg.front_ends).collect();
        let mut changes = Vec::new();
        for &f in &fronts {
            role[f as usize] = Role::Front;
            changes.push((f, Role::Front));
        }
        Ok(SerialLog {
            n,
            cap,
            unit,
            seg_units,
            volume_units,
            front_target: cfg.front_ends,
            victim: cfg.victim,
            window: cfg.window,
            dests,
            front_cache: cfg.front_cache,
            gc_dests: Vec::new(),
            gc_rr: 0,
            retired_at: vec![0; n as usize],
            now: 0,
            stall_ns: 0,
            fwd: PageMap::new(volume_units as usize),
            inv: PageMap::new(slots),
            wp: vec![0; n as usize],
            valid: vec![0; n as usize],
            seg_valid: vec![0; slots / seg_units as usize],
            role,
            fronts,
            rr: 0,
            sources: VecDeque::new(),
            job: None,
            back_since: vec![0; n as usize],
            role_seq: 0,
            ver: if cfg.verify {
                vec![0; volume_units as usize]
            } else {
                Vec::new()
            },
            slot_ver: if cfg.verify {
                vec![0; slots]
            } else {
                Vec::new()
            },
            changes,
            stats: SerialStats::default(),
        })
    }

    /// Logical volume size in bytes.
    pub fn volume_bytes(&self) -> u64 {
        self.volume_units as u64 * self.unit
    }

    /// Bytes of the mapping and inverse mapping (paper §2.3: ~0.2 %).
    pub fn mapping_bytes(&self) -> u64 {
        (self.fwd.len() * 4 + self.inv.len() * 4 + self.seg_valid.len() * 4) as u64
    }

    #[inline]
    fn split(&self, slot: u32) -> (u32, u32) {
        (slot / self.cap, slot % self.cap)
    }

    /// SSD and slot offset (in units) of logical `unit`.
    #[inline]
    pub fn lookup(&self, unit: u32) -> Option<(u32, u32)> {
        match self.fwd.get(unit) {
            NONE => None,
            s => Some(self.split(s)),
        }
    }

    /// Logical unit stored in `ssd`'s slot `off`, if valid.
    pub fn owner(&self, ssd: u32, off: u32) -> Option<u32> {
        match self.inv.get(ssd * self.cap + off) {
            NONE => None,
            u => Some(u),
        }
    }

    /// Valid units held by `ssd`.
    pub fn valid_units(&self, ssd: u32) -> u32 {
        self.valid[ssd as usize]
    }

    /// Next slot (in units) to be written on `ssd`.
    pub fn write_pointer(&self, ssd: u32) -> u32 {
        self.wp[ssd as usize]
    }

    /// The current front-end SSDs.
    pub fn fronts(&self) -> &[u32] {
        &self.fronts
    }

    /// The SSD being emptied by xGC, if any.
    pub fn source(&self) -> Option<u32> {
        self.job.as_ref().map(|j| j.ssd)
    }

    fn invalidate(&mut self, slot: u32) {
        if self.inv.get(slot) == NONE {
            return;
        }
        self.inv.set(slot, NONE);
        self.valid[(slot / self.cap) as usize] -= 1;
        self.seg_valid[(slot / self.seg_units) as usize] -= 1;
    }

    fn assign(&mut self, unit: u32, slot: u32) {
        if let Some(old) = self.lookup(unit) {
            self.invalidate(old.0 * self.cap + old.1);
        }
        self.fwd.set(unit, slot);
        self.inv.set(slot, unit);
        self.valid[(slot / self.cap) as usize] += 1;
        self.seg_valid[(slot / self.seg_units) as usize] += 1;
    }

    fn append(&mut self, ssd: u32) -> u32 {
        let off = self.wp[ssd as usize];
        self.wp[ssd as usize] += 1;
        ssd * self.cap + off
    }

    fn free(&self, ssd: u32) -> u32 {
        self.cap - self.wp[ssd as usize]
    }

    fn set_role(&mut self, ssd: u32, r: Role) {
        self.role_seq += 1;
        if r == Role::Back {
            self.back_since[ssd as usize] = self.role_seq;
        }
        self.role[ssd as usize] = r;
        self.changes.push((ssd, r));
    }

    /// Bring the front-end set back to its target size. The preferred
    /// successor is the xGC destination (it already holds the copied data
    /// and has room: "with time, the selected SSD will contain a mix of
    /// valid and invalid data", §2.1); otherwise the SSD with the most free
    /// space (a clean one when available).
    fn refill_fronts(&mut self) {
        while (self.fronts.len() as u32) < self.front_target {
            // Of the xGC destinations, the one with the most room.
            let dest = self
                .gc_dests
                .iter()
                .copied()
                .filter(|&d| self.free(d) >= self.cap / 8 && self.role[d as usize] == Role::Back)
                .max_by_key(|&d| (self.free(d), std::cmp::Reverse(d)));
            // The last clean SSD is kept for xGC: without it a victim could
            // have nowhere to go. Writes wait for xGC instead (back-pressure).
            // Nor may a front-end take room that a running xGC still needs.
            let clean = self.role.iter().filter(|&&r| r == Role::Clean).count();
            let need: u64 = self
                .sources
                .iter()
                .map(|&s| self.valid[s as usize] as u64)
                .sum();
            let ok = |s: u32| self.gc_room_without(s) >= need;
            // The last clean SSD may still go if the least-valid back-end
            // could be cleaned into the room left.
            let next_victim = (0..self.n)
                .filter(|&s| self.role[s as usize] == Role::Back)
                .map(|s| self.valid[s as usize] as u64)
                .min()
                .unwrap_or(0);
            let last_ok = |s: u32| self.gc_room_without(s) >= need + next_victim;
            let pick = dest.filter(|&d| ok(d)).or_else(|| {
                (0..self.n)
                    .filter(|&s| match self.role[s as usize] {
                        Role::Back => self.free(s) > 0,
                        Role::Clean => clean >= 2 || last_ok(s),
                        _ => false,
                    })
                    .filter(|&s| ok(s))
                    .max_by_key(|&s| (self.free(s), std::cmp::Reverse(s)))
            });
            let Some(s) = pick else { return };
            self.gc_dests.retain(|&d| d != s);
            self.set_role(s, Role::Front);
            self.fronts.push(s);
        }
    }

    /// Room xGC could copy into if SSD `x` were not available.
    fn gc_room_without(&self, x: u32) -> u64 {
        (0..self.n)
            .filter(|&s| s != x && matches!(self.role[s as usize], Role::Back | Role::Clean))
            .map(|s| self.free(s) as u64)
            .sum()
    }

    /// A front-end with room, rotating full ones out (they become xGC sources).
    fn front_with_room(&mut self) -> Option<u32> {
        for _ in 0..2 {
            for k in 0..self.fronts.len() {
                let i = (self.rr + k) % self.fronts.len();
                let f = self.fronts[i];
                if self.free(f) > 0 {
                    self.rr = i;
                    return Some(f);
                }
            }
            // All front-ends are full: retire them and promote back-ends.
            let full: Vec<u32> = std::mem::take(&mut self.fronts);
            for f in full {
                self.set_role(f, Role::Back);
                self.retired_at[f as usize] = self.role_seq;
                self.stats.rotations += 1;
            }
            self.rr = 0;
            self.refill_fronts();
            if self.fronts.is_empty() {
                return None;
            }
        }
        None
    }

    /// Place a user write of logical `unit`; returns (ssd, slot offset), or
    /// `None` when no front-end has room (the write must wait).
    pub(crate) fn write_unit(&mut self, unit: u32) -> Option<(u32, u32)> {
        let f = self.front_with_room()?;
        let slot = self.append(f);
        self.assign(unit, slot);
        self.stats.user_units_written += 1;
        if !self.ver.is_empty() {
            self.ver[unit as usize] += 1;
            self.slot_ver[slot as usize] = self.ver[unit as usize];
        }
        Some(self.split(slot))
    }

    /// Next write goes to a front-end with room (after rotating): whether
    /// any front-end has room at all.
    pub(crate) fn can_write(&mut self) -> bool {
        self.front_with_room().is_some()
    }

    /// Whether a read of a unit on `ssd` is served by the front-end read
    /// cache (counted as a hit).
    pub(crate) fn cache_hit(&mut self, ssd: u32) -> bool {
        let hit = self.front_cache && self.role[ssd as usize] == Role::Front;
        if hit {
            self.stats.cache_hit_units += 1;
        }
        hit
    }

    /// Rotate to the next front-end after the current one ends on a request
    /// boundary (used when rr should advance between requests).
    pub(crate) fn next_request(&mut self) {
        if !self.fronts.is_empty() {
            self.rr = (self.rr + 1) % self.fronts.len();
        }
    }

    /// Version oracle at read issue: the slot must hold the newest version.
    pub(crate) fn check_read(&mut self, unit: u32, ssd: u32, off: u32) {
        if self.ver.is_empty() {
            return;
        }
        self.stats.version_checks += 1;
        let slot = (ssd * self.cap + off) as usize;
        if self.slot_ver[slot] != self.ver[unit as usize] || self.inv.get(slot as u32) != unit {
            self.stats.version_mismatches += 1;
        }
    }

    /// Version oracle at read completion: the slot still holds data (it was
    /// not TRIMmed under the read).
    pub(crate) fn check_read_done(&mut self, ssd: u32, off: u32) {
        if self.ver.is_empty() {
            return;
        }
        self.stats.version_checks += 1;
        if self.slot_ver[(ssd * self.cap + off) as usize] == 0 {
            self.stats.version_mismatches += 1;
        }
    }

    /// Unmap logical `unit` (array-level TRIM).
    pub(crate) fn trim_unit(&mut self, unit: u32) {
        if let Some((s, o)) = self.lookup(unit) {
            self.invalidate(s * self.cap + o);
            self.fwd.set(unit, NONE);
        }
    }

    /// Check mapping invariants: `fwd`/`inv` inverse, per-SSD and
    /// per-segment valid counts, versions (when kept).
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut valid = vec![0u32; self.n as usize];
        let mut seg = vec![0u32; self.seg_valid.len()];
        for (slot, u) in self.inv.iter().enumerate() {
            if u == NONE {
                continue;
            }
            if self.fwd.get(u) != slot as u32 {
                return Err(format!(
                    "slot {slot} owned by unit {u} which maps elsewhere"
                ));
            }
            valid[slot / self.cap as usize] += 1;
            seg[slot / self.seg_units as usize] += 1;
            if !self.ver.is_empty() && self.slot_ver[slot] != self.ver[u as usize] {
                return Err(format!("unit {u}: slot {slot} holds an old version"));
            }
        }
        for (u, s) in self.fwd.iter().enumerate() {
            if s != NONE && self.inv.get(s) != u as u32 {
                return Err(format!(
                    "unit {u} -> slot {s} but inv says {}",
                    self.inv.get(s)
                ));
            }
        }
        if valid != self.valid {
            return Err(format!(
                "valid counts {:?} vs recount {valid:?}",
                self.valid
            ));
        }
        if seg != self.seg_valid {
            return Err("segment valid counts disagree with the mapping".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
