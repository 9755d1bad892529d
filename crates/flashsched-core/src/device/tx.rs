//! Flash transactions: the per-page unit the device schedules on dies.

use crate::engine::Ns;
use crate::ftl::NONE;

/// Index of a transaction in its arena.
pub type TxId = u32;

/// What a transaction does on its die.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxKind {
    /// Sense a page (then move it out over the channel, unless copyback).
    Read,
    /// Program a page (its data moved in over the channel first, unless
    /// copyback).
    Program,
    /// Erase a block.
    Erase,
}

/// Who asked for the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A host request's page.
    User,
    /// Garbage collection: a valid page's move, or a victim's erase.
    Gc,
    /// The erase of a block TRIM emptied, outside any GC job (a serial
    /// array erases a whole old front-end this way).
    Reclaim,
    /// A read or write-back of a translation page for the cached mapping
    /// table (`[mapping]`); `owner` is the translation page.
    Mapping,
    /// The read of the sectors a partial page program does not carry
    /// (`ftl.update_reads`); `owner` is the program's device request, `seq`
    /// its write version. The program waits for it.
    Update,
}

impl Origin {
    /// Work the host's requests wait on (their own pages and the mapping
    /// entries they need), as opposed to GC and reclaim.
    #[inline]
    pub fn foreground(self) -> bool {
        matches!(self, Origin::User | Origin::Mapping | Origin::Update)
    }
}

/// Oracle id of a user read that only times a flash access: its data was
/// already answered from DRAM for the version oracle (an SSDsim buffer hit
/// on some sectors of a page, the rest read from flash).
pub const UNCHECKED_READ: u64 = u64::MAX;

/// One page read/program or block erase on one die.
#[derive(Debug, Clone, Copy)]
pub struct Tx {
    /// Read, program or erase.
    pub kind: TxKind,
    /// Who asked for it.
    pub origin: Origin,
    /// On-die copy (read + program without a bus transfer), GC only.
    pub copyback: bool,
    /// Global die it runs on.
    pub die: u32,
    /// Global plane it runs on.
    pub plane: u32,
    /// Logical page it carries (a hidden page for the mapping table; `NONE`
    /// for erases).
    pub lpn: u32,
    /// Read: page to read. GC program: page being relocated. Erase: block.
    /// User program: the page allocated at issue (NONE before).
    pub ppn: u32,
    /// Device request (user), GC job slot (GC: the plane with one job per
    /// plane) or plane (reclaim) this belongs to.
    pub owner: u32,
    /// Read: erase count of `ppn`'s block when the read was translated (a
    /// change means the block was erased since, so the data must be looked
    /// up again). Program under `controller.multiplane = "onfi-queued"`:
    /// the page offset it was given when queued ([`Tx::queued_offset`]).
    pub epoch: u32,
    /// Write order of user programs (later writes of an LPN win).
    pub seq: u64,
    /// When it entered the scheduler's queue.
    pub enqueued: Ns,
    /// 512-byte sectors its data transfer moves (`timing.sector_transfers`:
    /// what the host asked for); 0 = the whole page.
    pub sectors: u16,
}

impl Tx {
    /// A program's page offset given when it was queued
    /// (`onfi-queued`; the field a read uses for its erase count).
    #[inline]
    pub fn queued_offset(&self) -> u32 {
        self.epoch
    }

    /// A host page read of `lpn`, translated now to `ppn` on `plane` (of
    /// `die`); `epoch` is the erase count of `ppn`'s block now, `id` the
    /// read's oracle id, `req` its device request.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub fn user_read(
        req: u32,
        lpn: u32,
        ppn: u32,
        plane: u32,
        die: u32,
        epoch: u32,
        id: u64,
        now: Ns,
    ) -> Tx {
        Tx {
            kind: TxKind::Read,
            origin: Origin::User,
            copyback: false,
            die,
            plane,
            lpn,
            ppn,
            owner: req,
            epoch,
            seq: id,
            enqueued: now,
            sectors: 0,
        }
    }

    /// Version `seq` of `lpn` written by device request `req` to `plane`
    /// (its page is taken when it starts).
    #[inline]
    pub fn user_program(req: u32, lpn: u32, plane: u32, die: u32, seq: u64, now: Ns) -> Tx {
        Tx {
            kind: TxKind::Program,
            origin: Origin::User,
            copyback: false,
            die,
            plane,
            lpn,
            ppn: NONE,
            owner: req,
            epoch: 0,
            seq,
            enqueued: now,
            sectors: 0,
        }
    }

    /// A read of translation page `tp`, stored as hidden `lpn` at `ppn`.
    #[inline]
    pub fn map_read(tp: u32, lpn: u32, ppn: u32, plane: u32, die: u32, epoch: u32, now: Ns) -> Tx {
        Tx {
            origin: Origin::Mapping,
            owner: tp,
            seq: 0,
            ..Tx::user_read(tp, lpn, ppn, plane, die, epoch, 0, now)
        }
    }

    /// Version `seq` of translation page `tp` (hidden `lpn`) written back.
    #[inline]
    pub fn map_program(tp: u32, lpn: u32, plane: u32, die: u32, seq: u64, now: Ns) -> Tx {
        Tx {
            origin: Origin::Mapping,
            ..Tx::user_program(tp, lpn, plane, die, seq, now)
        }
    }

    /// A GC move of `lpn` from `ppn` within `plane`: a read, then a program
    /// queued when it completes (or one on-die copyback).
    #[inline]
    pub fn gc_move(lpn: u32, ppn: u32, plane: u32, die: u32, copyback: bool, now: Ns) -> Tx {
        Tx {
            kind: TxKind::Read,
            origin: Origin::Gc,
            copyback,
            die,
            plane,
            lpn,
            ppn,
            owner: plane,
            epoch: 0,
            seq: 0,
            enqueued: now,
            sectors: 0,
        }
    }

    /// The erase of `block` in `plane` (a GC victim or a block TRIM emptied).
    #[inline]
    pub fn erase(origin: Origin, block: u32, plane: u32, die: u32, now: Ns) -> Tx {
        Tx {
            kind: TxKind::Erase,
            origin,
            copyback: false,
            die,
            plane,
            lpn: NONE,
            ppn: block,
            owner: plane,
            epoch: 0,
            seq: 0,
            enqueued: now,
            sectors: 0,
        }
    }

    /// A host request's page read (or the read a partial write of the
    /// host's waits for).
    #[inline]
    pub fn is_user_read(&self) -> bool {
        self.kind == TxKind::Read && matches!(self.origin, Origin::User | Origin::Update)
    }

    /// A read whose data leaves the chip (not the read half of a copyback
    /// move): what `controller.advanced_reads = false` keeps alone.
    #[inline]
    pub fn is_plain_read(&self) -> bool {
        self.kind == TxKind::Read && !self.copyback
    }
}

/// Slab of transactions with slot reuse (no event names a transaction:
/// events name the die or channel, which tell what ended).
#[derive(Debug, Default)]
pub struct TxArena {
    slots: Vec<Tx>,
    free: Vec<TxId>,
    live: usize,
}

impl TxArena {
    /// Store `tx` in a free slot; its id.
    #[inline]
    pub fn insert(&mut self, tx: Tx) -> TxId {
        self.live += 1;
        match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = tx;
                id
            }
            None => {
                self.slots.push(tx);
                (self.slots.len() - 1) as TxId
            }
        }
    }

    /// Free slot `id`; the transaction it held.
    #[inline]
    pub fn remove(&mut self, id: TxId) -> Tx {
        self.live -= 1;
        self.free.push(id);
        self.slots[id as usize]
    }

    /// Transaction `id`.
    #[inline]
    pub fn get(&self, id: TxId) -> &Tx {
        &self.slots[id as usize]
    }

    /// Transaction `id`, to change.
    #[inline]
    pub fn get_mut(&mut self, id: TxId) -> &mut Tx {
        &mut self.slots[id as usize]
    }

    /// Transactions currently alive.
    pub fn len(&self) -> usize {
        self.live
    }

    /// No transaction alive.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }
}
