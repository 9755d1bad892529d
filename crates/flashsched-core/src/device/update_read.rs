//! Read-modify-write of partial pages (`ftl.update_reads`). A page is
//! programmed whole, so a program carrying only some of a page's sectors
//! must first read the page's other valid sectors from the old copy, and
//! waits for that read: MQSim's update read
//! (`allocate_page_in_plane_for_user_write`, the write's `RelatedRead`) and
//! SSDsim's `update` sub-request (`allocate_location`).
//!
//! Valid sectors are tracked per logical page, one bit per
//! `⌈sectors per page / 64⌉` sectors (as the caches' masks). Only pages
//! holding data in some sectors are stored: a page absent holds all of
//! them if it holds data (whole-page writes, the preconditioner) and none
//! otherwise. Both peers decide at translation, in write order, so the
//! state changes when a program is made (a host write, or a cache's
//! write-back) and its read, if any, is issued once the program's mapping
//! entry is cached.
//!
//! A page first read before any write is placed with the read's sectors
//! valid (MQSim's `online_create_entry_for_reads`). SSDsim reads its whole
//! trace before the run (`pre_process_page`): every read marks its sectors
//! valid, placing its page if it holds no data, so a write finds the
//! sectors of reads that come after it valid too. `ssdsim` does the same
//! for a trace file ([`Ssd::prepass_read`]); for generated requests (and a
//! trace on standard input, which cannot be read twice) each read marks
//! its sectors when it is submitted.

use rustc_hash::FxHashMap;

use super::sector_masks::{span_in_page, unit_bits, SectorMasks};
use super::tx::{Origin, Tx, TxKind};
use super::Ssd;
use crate::engine::Ns;
use crate::ftl::{Allocation, UpdateReads};

/// Valid sectors of partly written pages, and the reads programs owe.
#[derive(Debug)]
pub(super) struct SectorState {
    /// Sectors per mask bit.
    unit: u32,
    /// Sectors per page.
    per_page: u32,
    /// Mask of a whole page.
    full: u64,
    /// Pages holding data in only some sectors: which.
    partial: SectorMasks,
    /// `ssdsim`: every read's sectors count as valid.
    read_union: bool,
    /// The trace's reads were marked before the run (`prepass_read`).
    prepassed: bool,
    /// A program carries the merged sectors (SSDsim, static allocation).
    merged_program: bool,
    /// Programs not yet translated that owe a read: write version → the
    /// sectors to read.
    owed: FxHashMap<u64, u64>,
    /// Programs waiting for their read: write version → program.
    parked: FxHashMap<u64, Tx>,
}

impl SectorState {
    /// The state `mode` asks for on pages of `page_size` bytes (`None`:
    /// partial pages are programmed whole, with no read).
    pub(super) fn new(
        mode: UpdateReads,
        page_size: u32,
        alloc: Allocation,
        logical: u32,
    ) -> Option<Self> {
        let (per_page, unit, bits) = Self::shape(page_size);
        let full = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let ssdsim = mode == UpdateReads::Ssdsim;
        (mode != UpdateReads::Off).then(|| SectorState {
            unit,
            per_page,
            full,
            partial: SectorMasks::new(logical, bits),
            read_union: ssdsim,
            prepassed: false,
            merged_program: ssdsim && matches!(alloc, Allocation::Static { .. }),
            owed: FxHashMap::default(),
            parked: FxHashMap::default(),
        })
    }

    /// (sectors per page, sectors per mask bit, mask bits) of pages of
    /// `page_size` bytes.
    fn shape(page_size: u32) -> (u32, u32, u32) {
        let per_page = (page_size / 512).max(1);
        let unit = per_page.div_ceil(64);
        (per_page, unit, per_page.div_ceil(unit))
    }

    /// Bytes the state of `mode` takes at most over `logical` pages of
    /// `page_size` bytes (the run's memory estimate).
    pub(super) fn footprint(mode: UpdateReads, page_size: u32, logical: u32) -> u64 {
        match mode {
            UpdateReads::Off => 0,
            _ => SectorMasks::footprint(logical, Self::shape(page_size).2),
        }
    }

    /// Whether each read submitted marks its sectors in pages that hold
    /// data (`ssdsim` without the trace pre-pass).
    #[inline]
    pub(super) fn marks_reads(&self) -> bool {
        self.read_union && !self.prepassed
    }

    /// Sectors the bits of `mask` stand for.
    fn sectors(&self, mask: u64) -> u16 {
        (mask.count_ones() * self.unit).min(self.per_page) as u16
    }

    /// The valid sectors of `lpn`, which holds data iff `has_data`.
    fn valid(&self, lpn: u32, has_data: bool) -> u64 {
        match self.partial.get(lpn) {
            Some(m) => m,
            None if has_data => self.full,
            None => 0,
        }
    }

    /// A write of `lpn` will soon look its valid sectors up (a hint only).
    #[inline]
    pub(super) fn prefetch(&self, lpn: u32) {
        self.partial.prefetch(lpn);
    }

    fn set(&mut self, lpn: u32, mask: u64) {
        if mask & self.full == self.full {
            self.partial.remove(lpn);
        } else {
            self.partial.insert(lpn, mask);
        }
    }
}

impl Ssd {
    /// Mask bits of page `raw` (unfolded) a transfer of `size` bytes at
    /// `offset` covers (0 without `ftl.update_reads`).
    pub(super) fn page_mask(&self, offset: u64, size: u32, raw: u64) -> u64 {
        let Some(u) = &self.update else { return 0 };
        let (lo, hi) = span_in_page(self.geo.page_size as u64, offset, size, raw);
        unit_bits(lo, hi, 512 * u.unit as u64) & u.full
    }

    /// A user program of `lpn` carrying the sectors of `mask` is being made
    /// (call before its own write counts as in flight). Updates the page's
    /// valid sectors, and notes the read the program `tx` (version `tx.seq`)
    /// owes if it does not cover them; with merged programs, `tx` then
    /// carries them all. Returns the sectors of such a merged program (0
    /// when the program was not merged).
    pub(super) fn partial_program(&mut self, tx: &mut Tx, mask: u64) -> u16 {
        let lpn = tx.lpn;
        if let Some(u) = &mut self.update {
            // A whole page: nothing to read, the page is whole after it.
            if mask & u.full == u.full {
                u.partial.remove(lpn);
                return 0;
            }
        }
        let has_data = self.ftl.lookup(lpn).is_some()
            || self.inflight.get(&lpn).is_some_and(|e| e.pending > 0);
        let Some(u) = &mut self.update else { return 0 };
        let valid = u.valid(lpn, has_data);
        u.set(lpn, valid | mask);
        let rest = valid & !mask;
        if rest == 0 {
            return 0;
        }
        u.owed.insert(tx.seq, rest);
        if !u.merged_program {
            return 0;
        }
        let merged = u.sectors(valid | mask);
        if tx.sectors > 0 {
            tx.sectors = merged;
        }
        merged
    }

    /// A user read of `lpn` covers the sectors of `mask`; `placed` if it
    /// placed the page (first touched by this read); else only
    /// [`SectorState::marks_reads`] calls it.
    pub(super) fn read_sectors(&mut self, lpn: u32, mask: u64, placed: bool) {
        let Some(u) = &mut self.update else { return };
        if placed {
            u.set(lpn, mask);
        } else if u.read_union {
            if let Some(m) = u.partial.get(lpn) {
                u.set(lpn, m | mask);
            }
        }
    }

    /// Whether the run's trace is to be read once before the run
    /// (`ftl.update_reads = "ssdsim"`: [`Ssd::prepass_read`]).
    pub fn wants_read_prepass(&self) -> bool {
        self.update.as_ref().is_some_and(|u| u.read_union)
    }

    /// SSDsim's trace pre-pass, before the run: a read of `size` bytes at
    /// `offset` marks its sectors valid in every page it touches, placing
    /// (untimed) a page that holds no data. Nothing without
    /// [`Ssd::wants_read_prepass`].
    pub fn prepass_read(&mut self, offset: u64, size: u32) {
        if !self.wants_read_prepass() {
            return;
        }
        if let Some(u) = &mut self.update {
            u.prepassed = true;
        }
        let (a, b) = self.lpn_range(offset, size);
        for raw in a..=b {
            let lpn = self.fold(raw);
            let mask = self.page_mask(offset, size, raw);
            // Before the run only the pre-pass places pages, so a page with
            // no flash copy has no sectors marked yet.
            let placed = self.ftl.lookup(lpn).is_none() && self.place_for_read(lpn).is_some();
            self.read_sectors(lpn, mask, placed);
        }
    }

    /// TRIM of `lpn`: it holds no data.
    pub(super) fn sectors_trimmed(&mut self, lpn: u32) {
        if let Some(u) = &mut self.update {
            u.partial.remove(lpn);
        }
    }

    /// Queue host page transaction `tx`, whose mapping entry is cached: a
    /// program that owes an update read waits for it.
    #[inline]
    pub(super) fn enqueue_translated(&mut self, tx: Tx, now: Ns) {
        if let Some(u) = &mut self.update {
            if !u.owed.is_empty() && tx.kind == TxKind::Program && tx.origin == Origin::User {
                if let Some(rest) = u.owed.remove(&tx.seq) {
                    return self.issue_update_read(tx, rest, now);
                }
            }
        }
        self.enqueue(tx, now);
    }

    /// Read the sectors `rest` of `prog`'s page from its flash copy, then
    /// queue `prog`. A page with no flash copy (its data still in DRAM or
    /// on its way) needs no read.
    fn issue_update_read(&mut self, prog: Tx, rest: u64, now: Ns) {
        let Some(ppn) = self.ftl.lookup(prog.lpn) else {
            return self.enqueue(prog, now);
        };
        let Some(u) = &mut self.update else { return };
        let sectors = match self.timing.sector_transfers {
            true => u.sectors(rest),
            false => 0,
        };
        u.parked.insert(prog.seq, prog);
        let read = Tx {
            origin: Origin::Update,
            sectors,
            ..self.user_read_at(prog.owner, prog.lpn, ppn, prog.seq, now)
        };
        self.enqueue(read, now);
    }

    /// The update read of write version `seq` finished: its program goes.
    pub(super) fn update_read_done(&mut self, seq: u64, now: Ns) {
        let prog = self.update.as_mut().and_then(|u| u.parked.remove(&seq));
        if let Some(prog) = prog {
            self.enqueue(
                Tx {
                    enqueued: now,
                    ..prog
                },
                now,
            );
        }
    }
}
