//! One scan's answers of [`PickCtx::can_issue`], by what the answer reads
//! of a transaction: its plane (and so its die and chip), origin, kind and
//! whether it is a copyback move. Within one pick or dispatch nothing else
//! it reads changes, so the first transaction of each such class a scan
//! meets decides for the others. A scheduler's queue of thousands of
//! programs waiting for GC on a few planes was otherwise asked about
//! entry by entry on every dispatch (AOS on a Postmark run at queue depth
//! 64: BENCHMARKS.md, session 51).
//!
//! [`PickCtx::can_issue`]: super::PickCtx::can_issue

use super::PickCtx;
use crate::device::tx::Tx;

/// Answers stamped with the scan they belong to (no clearing between
/// scans).
#[derive(Debug, Default)]
pub(super) struct IssueMemo {
    stamp: Vec<u32>,
    ok: Vec<bool>,
    scan: u32,
}

impl IssueMemo {
    /// Start a scan: earlier answers no longer hold.
    pub(super) fn begin(&mut self) {
        self.scan = self.scan.wrapping_add(1);
        if self.scan == 0 {
            self.stamp.fill(0);
            self.scan = 1;
        }
    }

    /// [`PickCtx::can_issue`] for `t`, asked once per class in this scan.
    #[inline]
    pub(super) fn can_issue(&mut self, ctx: &PickCtx, t: &Tx) -> bool {
        let key = (t.plane as usize) << 6
            | (t.origin as usize) << 3
            | (t.kind as usize) << 1
            | t.copyback as usize;
        if key >= self.stamp.len() {
            self.stamp.resize(key + 1, 0);
            self.ok.resize(key + 1, false);
        }
        if self.stamp[key] == self.scan {
            debug_assert_eq!(
                self.ok[key],
                ctx.can_issue(t),
                "can_issue varies within a class"
            );
            return self.ok[key];
        }
        let ok = ctx.can_issue(t);
        self.stamp[key] = self.scan;
        self.ok[key] = ok;
        ok
    }
}
