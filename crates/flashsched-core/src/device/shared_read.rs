//! SSDsim's shared reads (`controller.shared_reads`): `creat_sub_request`
//! looks through its channel's read queue for a read of the same physical
//! page, and if one is there the new read is done 1000 ns later without
//! touching flash (whether the one found has read anything yet or not).
//! The device keeps a count of the host page reads queued or running per
//! physical page to answer that.

use rustc_hash::FxHashMap;

use super::front::Job;
use super::tx::{Origin, Tx, TxKind};
use super::Ssd;
use crate::check::record::OpRecord;
use crate::engine::Ns;

/// How long a shared read takes (SSDsim: 1000 ns).
const SHARED_READ_NS: Ns = 1_000;

/// Host page reads queued or running, by physical page.
#[derive(Debug, Default)]
pub(super) struct SharedReads {
    live: FxHashMap<u32, u32>,
}

impl SharedReads {
    fn add(&mut self, ppn: u32) {
        *self.live.entry(ppn).or_default() += 1;
    }

    fn remove(&mut self, ppn: u32) {
        if let Some(n) = self.live.get_mut(&ppn) {
            *n -= 1;
            if *n == 0 {
                self.live.remove(&ppn);
            }
        }
    }
}

/// Whether `tx` is a read the shared-read count follows.
#[inline]
fn counted(tx: &Tx) -> bool {
    tx.kind == TxKind::Read && tx.origin == Origin::User
}

impl Ssd {
    /// A host read of page `ppn` for request `r` is about to be queued:
    /// with shared reads on and another read of `ppn` queued or running,
    /// it is done in 1000 ns instead (the version oracle's read `id`, if
    /// any, sees the page now: it is the page's current copy). Returns
    /// whether it was; otherwise it is counted (the caller queues it).
    pub(super) fn share_read(&mut self, r: u32, ppn: u32, id: Option<u64>, now: Ns) -> bool {
        let Some(s) = &mut self.shared else {
            return false;
        };
        if !s.live.contains_key(&ppn) {
            s.add(ppn);
            return false;
        }
        self.stats.shared_reads += 1;
        if let Some(id) = id {
            self.log(OpRecord::Sense { id, ppn });
        }
        self.reqs[r as usize].remaining += 1;
        self.front.plan(now + SHARED_READ_NS, Job::SharedRead { r });
        true
    }

    /// Read `tx` is finished or moves off `tx.ppn` (re-translated): it no
    /// longer counts there.
    #[inline]
    pub(super) fn unshare_read(&mut self, tx: &Tx) {
        if let Some(s) = &mut self.shared {
            if counted(tx) {
                s.remove(tx.ppn);
            }
        }
    }

    /// Read `tx` now reads `ppn` instead (re-translated after an erase).
    pub(super) fn reshare_read(&mut self, tx: &Tx, ppn: u32) {
        if let Some(s) = &mut self.shared {
            if counted(tx) {
                s.remove(tx.ppn);
                s.add(ppn);
            }
        }
    }
}
