//! The DRAM write buffer: a write completes once its pages fit; space
//! returns as pages are programmed.

use super::Ssd;
use crate::engine::Ns;

/// DRAM write buffer: a write completes once its pages fit; space returns as
/// pages are programmed.
#[derive(Debug, Default)]
pub(super) struct WriteBuffer {
    pub(super) capacity: u32,
    pub(super) used: u32,
    /// Writes waiting for space: (device request, offset, size, pages).
    pub(super) waiting: std::collections::VecDeque<(u32, u64, u32, u32)>,
}

/// Writes of one LPN in flight (`Ssd::inflight`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Inflight {
    /// User writes of this LPN translated but not yet programmed.
    pub(super) pending: u32,
    /// Highest write sequence already programmed.
    pub(super) issued_seq: u64,
    /// Newest write of this LPN, and whether its program has finished: once
    /// it has, DRAM only holds older versions (a reordering scheduler may
    /// still be programming them) and reads must go to flash.
    pub(super) newest: u64,
    pub(super) newest_done: bool,
}

impl Ssd {
    /// A buffered page reached flash: admit waiting writes that now fit.
    pub(super) fn release_buffer(&mut self, now: Ns) {
        let Some(buf) = &mut self.buffer else { return };
        buf.used -= 1;
        // Admit waiting writes in order while they fit (issuing one does not
        // touch the buffer, so admitting and issuing can interleave).
        loop {
            let Some(buf) = &mut self.buffer else { return };
            let Some(&(r, offset, size, pages)) = buf.waiting.front() else {
                return;
            };
            if buf.used + pages > buf.capacity && buf.used > 0 {
                return;
            }
            buf.used += pages;
            buf.waiting.pop_front();
            self.submit_write(r, offset, size, now);
            self.finish_req(r);
        }
    }
}
