//! Free blocks ordered by program speed (VIOS §3.1): per plane, a balanced
//! ordered tree keyed by (program latency, block), plus a fast and a slow
//! user write frontier so variation-aware allocation can take the fastest or
//! the slowest free block. The paper keeps one red-black tree per chip; the
//! plane of a write is fixed by the allocation scheme before the scheduler
//! sees it (as in SSDsim's static allocation), so the chip's tree restricted
//! to that plane is what a write can choose from.
//!
//! A partially written block stays the frontier until it is full (pages of a
//! block are programmed in order); the paper's tree would switch to a faster
//! block erased meanwhile, we finish the open block first.

use std::collections::BTreeSet;

use super::NONE;

/// Which block a user program should land in (VIOS §3.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpeedPref {
    /// The ordinary frontier (free blocks in FIFO order).
    InOrder,
    /// The fastest block available.
    Fast,
    /// The slowest block available.
    Slow,
    /// The free block of median speed (on the frontier `Slow` uses: a
    /// scheduler asks for one or the other for its non-conflicting writes).
    Median,
}

/// Speed-ordered free sets and fast/slow frontiers.
#[derive(Debug, Clone)]
pub(crate) struct SpeedIndex {
    /// Tree key (program latency in ns) per block.
    pub(crate) key: Vec<u32>,
    /// Free blocks per plane by (key, block).
    pub(crate) free: Vec<BTreeSet<(u32, u32)>>,
    /// Open user blocks per plane: [fast, slow] (NONE when closed).
    pub(crate) frontier: Vec<[u32; 2]>,
}

impl SpeedIndex {
    pub(crate) fn new(key: Vec<u32>, planes: usize) -> Self {
        SpeedIndex {
            key,
            free: vec![BTreeSet::new(); planes],
            frontier: vec![[NONE; 2]; planes],
        }
    }

    #[inline]
    pub(crate) fn insert_free(&mut self, plane: u32, block: u32) {
        self.free[plane as usize].insert((self.key[block as usize], block));
    }

    #[inline]
    pub(crate) fn remove_free(&mut self, plane: u32, block: u32) {
        self.free[plane as usize].remove(&(self.key[block as usize], block));
    }

    /// Fastest, slowest or median free block of `plane` (`InOrder` is
    /// not a speed choice: the fastest).
    #[inline]
    pub(crate) fn pick(&self, plane: u32, pref: SpeedPref) -> Option<u32> {
        let set = &self.free[plane as usize];
        let e = match pref {
            SpeedPref::Slow => set.last(),
            // Lower median: with two free blocks, the faster one.
            SpeedPref::Median => set.iter().nth(set.len().saturating_sub(1) / 2),
            SpeedPref::Fast | SpeedPref::InOrder => set.first(),
        };
        e.map(|&(_, b)| b)
    }

    /// New tree key for `block` (a free block is re-inserted).
    pub(crate) fn rekey(&mut self, plane: u32, block: u32, key: u32) {
        let was = self.free[plane as usize].remove(&(self.key[block as usize], block));
        self.key[block as usize] = key;
        if was {
            self.insert_free(plane, block);
        }
    }
}
