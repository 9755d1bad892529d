//! The version oracle: what each read may return.
//!
//! Every host page write carries a version (the device's write sequence
//! number); every TRIM is ordered after the writes submitted before it. A
//! page read issued when version `v` (or a TRIM) was the newest operation on
//! its logical page must return `v` or something newer: a newer version, or
//! zeros if a TRIM came later. The order is the order in which requests
//! reach the device (the host scheduler may reorder requests that are in
//! flight together, as Linux I/O schedulers do; a request that completed
//! before another arrived was necessarily submitted first). An older version
//! is a stale read (the PAR hazard of out-of-order dispatch), data from an
//! erased page is the EAR hazard, and a trimmed page must read as zeros.
//!
//! Never-written pages have version 0; reading one returns its version-0
//! data (it is placed as if written before the trace), zeros, or — when its
//! plane is full — undefined data; all three are accepted.
//!
//! State is compact: 4 bytes per logical page (the newest operation as an
//! ordering key, and whether that write is still only in DRAM), 1 bit per
//! logical page (held data when checking began), and one entry per page
//! read in flight.

use rustc_hash::FxHashMap;

use super::flash::show_lpn;

/// Ordering key of version `seq`: writes are even, a TRIM after write `s`
/// is `2s + 1` (after `s`, before `s + 1`).
#[inline]
fn write_key(seq: u32) -> u32 {
    seq << 1
}

/// Whether ordering key `k` is a TRIM.
#[inline]
pub fn is_trim(k: u32) -> bool {
    k & 1 == 1
}

/// A page read between issue and answer.
#[derive(Debug, Clone, Copy)]
struct PendingRead {
    lpn: u32,
    /// Key of the newest operation on `lpn` when the read was issued.
    key: u32,
    /// Host request (slot id) the read belongs to.
    req: u32,
    unplaced: bool,
}

/// Flag in `Oracle::key`: the newest write of the page is not programmed
/// yet (it is served from DRAM).
const DRAM: u32 = 1 << 31;

/// Per-logical-page versions and the reads in flight.
pub struct Oracle {
    /// Newest operation's key, with the `DRAM` flag.
    key: Vec<u32>,
    /// Pages holding data when checking began (read as zeros = data lost).
    prewritten: Vec<u64>,
    last_seq: u32,
    reads: FxHashMap<u64, PendingRead>,
    /// Page reads answered and checked.
    pub reads_checked: u64,
}

/// Largest version the oracle can order (keys are 31 bits).
pub const MAX_SEQ: u64 = (1 << 30) - 2;

impl Oracle {
    /// Bytes an oracle for `logical_pages` allocates (reads in flight aside).
    pub fn footprint(logical_pages: u64) -> u64 {
        4 * logical_pages + logical_pages.div_ceil(64) * 8
    }

    /// An oracle for `logical_pages`, of which `prewritten` hold data.
    pub fn new(logical_pages: u32, prewritten: impl Iterator<Item = u32>) -> Oracle {
        let words = (logical_pages as usize).div_ceil(64);
        let mut pre = vec![0u64; words];
        for l in prewritten {
            pre[(l >> 6) as usize] |= 1 << (l & 63);
        }
        Oracle {
            key: vec![0; logical_pages as usize],
            prewritten: pre,
            last_seq: 0,
            reads: FxHashMap::default(),
            reads_checked: 0,
        }
    }

    /// Key of the newest operation on `lpn`.
    #[inline]
    fn key(&self, lpn: u32) -> u32 {
        self.key[lpn as usize] & !DRAM
    }

    #[inline]
    fn in_dram(&self, lpn: u32) -> bool {
        self.key[lpn as usize] & DRAM != 0
    }

    /// `lpn` has never held data (never written, not preconditioned).
    #[inline]
    fn never_written(&self, lpn: u32, key: u32) -> bool {
        key == 0 && self.prewritten[(lpn >> 6) as usize] & (1 << (lpn & 63)) == 0
    }

    /// Host logical pages the oracle tracks.
    pub fn logical_pages(&self) -> u32 {
        self.key.len() as u32
    }

    fn lpn_ok(&self, lpn: u32) -> Result<(), String> {
        if (lpn as usize) < self.key.len() {
            Ok(())
        } else {
            Err(format!(
                "lpn {lpn} beyond the logical space ({} pages)",
                self.key.len()
            ))
        }
    }

    /// The host wrote version `seq` of `lpn`.
    pub fn write(&mut self, lpn: u32, seq: u64) -> Result<(), String> {
        self.lpn_ok(lpn)?;
        if seq > MAX_SEQ {
            return Err(format!(
                "more than {MAX_SEQ} page writes: the version oracle cannot order them"
            ));
        }
        if seq as u32 <= self.last_seq {
            return Err(format!(
                "write of lpn {lpn} has version {seq}, not after the previous write v{}",
                self.last_seq
            ));
        }
        self.last_seq = seq as u32;
        self.key[lpn as usize] = write_key(seq as u32) | DRAM;
        Ok(())
    }

    /// The host TRIMmed `lpn`.
    pub fn trim(&mut self, lpn: u32) -> Result<(), String> {
        self.lpn_ok(lpn)?;
        self.key[lpn as usize] = write_key(self.last_seq) | 1;
        Ok(())
    }

    /// The program of version `seq` of `lpn` finished.
    pub fn program_done(&mut self, lpn: u32, seq: u64) -> Result<(), String> {
        self.lpn_ok(lpn)?;
        if seq <= MAX_SEQ && self.key[lpn as usize] == write_key(seq as u32) | DRAM {
            self.key[lpn as usize] &= !DRAM;
        }
        Ok(())
    }

    /// Read `id` of `lpn` for request `req` was issued.
    pub fn read(&mut self, id: u64, lpn: u32, req: u32) -> Result<(), String> {
        self.lpn_ok(lpn)?;
        let r = PendingRead {
            lpn,
            key: self.key(lpn),
            req,
            unplaced: false,
        };
        if self.reads.insert(id, r).is_some() {
            return Err(format!("page read #{id} issued twice"));
        }
        Ok(())
    }

    fn take(&mut self, id: u64, what: &str) -> Result<PendingRead, String> {
        self.reads_checked += 1;
        self.reads.remove(&id).ok_or_else(|| {
            format!("page read #{id} answered ({what}) but it is not in flight (answered twice?)")
        })
    }

    /// Request slot of read `id` (for messages), if in flight.
    pub fn read_req(&self, id: u64) -> Option<u32> {
        self.reads.get(&id).map(|r| r.req)
    }

    /// Read `id` was answered from DRAM with the newest write of `lpn`.
    pub fn dram_hit(&mut self, id: u64, lpn: u32) -> Result<(), String> {
        let r = self.take(id, "DRAM")?;
        if r.lpn != lpn {
            return Err(format!(
                "page read #{id} of lpn {} answered from DRAM with lpn {lpn}",
                r.lpn
            ));
        }
        let k = self.key(lpn);
        if !self.in_dram(lpn) || is_trim(k) {
            return Err(format!(
                "page read #{id} of lpn {lpn} answered from DRAM, but the newest operation on \
                 lpn {lpn} is {}, not a write still in DRAM (at issue: {})",
                show_key(k),
                show_key(r.key)
            ));
        }
        Ok(())
    }

    /// Read `id` returned zeros (its page was unmapped).
    pub fn unmapped(&mut self, id: u64) -> Result<(), String> {
        let r = self.take(id, "unmapped")?;
        let now = self.key(r.lpn);
        let trimmed_since = is_trim(now) && now >= r.key;
        if self.never_written(r.lpn, r.key) || is_trim(r.key) || trimmed_since {
            return Ok(());
        }
        Err(format!(
            "page read #{id} of lpn {} returned zeros (unmapped) but {} was written before \
                 it was issued and not trimmed since",
            r.lpn,
            show_key(r.key)
        ))
    }

    /// Read `id` is of a never-written page that could not be placed.
    pub fn unplaced(&mut self, id: u64) -> Result<(), String> {
        let Some(r) = self.reads.get_mut(&id) else {
            return Err(format!("page read #{id} unplaced but not in flight"));
        };
        r.unplaced = true;
        let r = *r;
        if !self.never_written(r.lpn, r.key) {
            return Err(format!(
                "page read #{id} of lpn {} left unplaced although {} was written",
                r.lpn,
                show_key(r.key)
            ));
        }
        Ok(())
    }

    /// Read `id` sensed physical page `ppn` holding `content`.
    pub fn sense(&mut self, id: u64, ppn: u32, content: Option<(u32, u32)>) -> Result<(), String> {
        let r = self.take(id, "flash")?;
        if r.unplaced {
            return Ok(());
        }
        let Some((lpn, ver)) = content else {
            return Err(format!(
                "page read #{id} of lpn {} sensed page {ppn}, which is erased or being erased \
                 (EAR hazard; expected {} or newer)",
                r.lpn,
                show_key(r.key)
            ));
        };
        if lpn != r.lpn {
            return Err(format!(
                "page read #{id} of lpn {} sensed page {ppn}, which holds lpn {} v{ver}",
                r.lpn,
                show_lpn(lpn)
            ));
        }
        if write_key(ver) < r.key {
            return Err(format!(
                "page read #{id} of lpn {lpn} returned stale v{ver} from page {ppn}: {} came \
                 before the read was issued (newest now: {})",
                show_key(r.key),
                show_key(self.key(lpn))
            ));
        }
        Ok(())
    }

    /// Reads still in flight (must be none at the end of a run).
    pub fn pending(&self) -> usize {
        self.reads.len()
    }

    /// Some read still in flight, for messages.
    pub fn any_pending(&self) -> Option<(u64, u32, u32)> {
        self.reads.iter().map(|(&id, r)| (id, r.lpn, r.req)).min()
    }

    /// Newest key of `lpn` and whether its newest write is only in DRAM.
    pub fn state(&self, lpn: u32) -> (u32, bool) {
        (self.key(lpn), self.in_dram(lpn))
    }
}

/// A key in words: `v12`, `a TRIM (after v12)`, `v0 (data from before the trace)`.
pub fn show_key(k: u32) -> String {
    match (k >> 1, k & 1) {
        (0, 0) => "v0 (data from before the trace)".into(),
        (s, 0) => format!("v{s}"),
        (s, _) => format!("a TRIM (after v{s})"),
    }
}
