//! Flash transactions: the per-page unit the device schedules on dies.

use crate::engine::Ns;

/// Index of a transaction in its arena.
pub type TxId = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxKind {
    Read,
    Program,
    Erase,
}

/// Who asked for the transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    User,
    Gc,
}

/// One page read/program or block erase on one die.
#[derive(Debug, Clone, Copy)]
pub struct Tx {
    pub kind: TxKind,
    pub origin: Origin,
    /// On-die copy (read + program without a bus transfer), GC only.
    pub copyback: bool,
    pub die: u32,
    pub plane: u32,
    pub lpn: u32,
    /// Read: page to read. GC program: page being relocated. Erase: block.
    /// User program: the page allocated at issue (NONE before).
    pub ppn: u32,
    /// Device request (user) or plane (GC) this belongs to.
    pub owner: u32,
    /// Erase count of `ppn`'s block when the read was translated: a change
    /// means the block was erased since, so the data must be looked up again.
    pub epoch: u32,
    /// Write order of user programs (later writes of an LPN win).
    pub seq: u64,
    pub enqueued: Ns,
}

impl Tx {
    #[inline]
    pub fn is_user_read(&self) -> bool {
        self.kind == TxKind::Read && self.origin == Origin::User
    }
}

/// Slab of transactions with slot reuse.
#[derive(Debug, Default)]
pub struct TxArena {
    slots: Vec<Tx>,
    free: Vec<TxId>,
    live: usize,
}

impl TxArena {
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

    #[inline]
    pub fn remove(&mut self, id: TxId) -> Tx {
        self.live -= 1;
        self.free.push(id);
        self.slots[id as usize]
    }

    #[inline]
    pub fn get(&self, id: TxId) -> &Tx {
        &self.slots[id as usize]
    }

    #[inline]
    pub fn get_mut(&mut self, id: TxId) -> &mut Tx {
        &mut self.slots[id as usize]
    }

    /// Transactions currently alive.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }
}
