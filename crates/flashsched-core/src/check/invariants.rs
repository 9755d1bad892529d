//! Accounting invariants, checked periodically and at the end of a run:
//! the FTL's own tables agree with each other and with the checker's
//! independent flash model, blocks are all accounted for, and (at the host
//! interface) every request completes exactly once, time never goes
//! backwards and the queue depth is respected.

use std::collections::VecDeque;

use super::flash::{show_lpn, FlashModel};
use super::oracle::{is_trim, show_key, Oracle};
use crate::engine::Ns;
use crate::ftl::Ftl;

/// The FTL against the checker's model: write pointers agree, every valid
/// page holds the logical page that maps to it, and every logical page maps
/// to its newest version (once that is off DRAM), or to nothing after a
/// TRIM. Catches mappings that lose or resurrect data even when no read
/// happens to touch it.
pub fn cross_check(
    ftl: &Ftl,
    flash: &FlashModel,
    oracle: &Oracle,
    hidden: &rustc_hash::FxHashMap<u32, u32>,
) -> Result<(), String> {
    for b in 0..ftl.geo.blocks() {
        if flash.is_erasing(b) {
            continue;
        }
        let (f, m) = (ftl.write_pointer(b), flash.write_pointer(b));
        if f != m {
            return Err(format!(
                "block {b}: FTL write pointer {f}, but {m} pages were programmed"
            ));
        }
    }
    // Valid pages in physical order (sequential in both models; one random
    // access per page, into the oracle).
    for ppn in 0..ftl.geo.pages() as u32 {
        let Some(lpn) = ftl.owner(ppn) else {
            continue;
        };
        let (l, v) = flash.raw(ppn);
        if l != lpn {
            return Err(format!(
                "lpn {lpn} maps to page {ppn}, which holds lpn {}",
                show_lpn(l)
            ));
        }
        if lpn >= ftl.logical_pages {
            // A translation page: its newest version must be the mapped one.
            let newest = hidden.get(&lpn).copied().unwrap_or(0);
            if v != newest {
                return Err(format!(
                    "translation page (lpn {lpn}) maps to page {ppn} holding v{v}, \
                     but v{newest} was programmed"
                ));
            }
            continue;
        }
        let (key, in_dram) = oracle.state(lpn);
        if is_trim(key) {
            return Err(format!(
                "lpn {lpn} was trimmed ({}) but still maps to page {ppn} (v{v})",
                show_key(key)
            ));
        }
        if !in_dram && v << 1 != key {
            return Err(format!(
                "lpn {lpn} maps to page {ppn} holding v{v}, but its newest version is {} \
                 (programmed)",
                show_key(key)
            ));
        }
    }
    // Written, never trimmed, off DRAM, yet unmapped.
    for lpn in 0..ftl.logical_pages {
        let (key, in_dram) = oracle.state(lpn);
        if key & 1 == 0 && key != 0 && !in_dram && ftl.lookup(lpn).is_none() {
            return Err(format!(
                "lpn {lpn} lost its mapping: {} was written and never trimmed",
                show_key(key)
            ));
        }
    }
    Ok(())
}

/// Host-interface invariants of one run: each arrived request completes
/// exactly once, simulated time is monotonic, outstanding ≤ queue depth.
/// Completions are kept as a bitmap window starting at the oldest request
/// not yet completed, so memory follows the requests in flight.
#[derive(Debug, Default)]
pub struct RequestLedger {
    arrived: u64,
    /// Request `base + i` completed iff bit `i` is set.
    base: u64,
    done: VecDeque<u64>,
    completed: u64,
    last_time: Ns,
    /// First violation noted where no error can be returned.
    noted: Option<String>,
}

impl RequestLedger {
    /// `n` requests arrived (arrival numbers continue from the last call).
    pub fn arrived(&mut self, n: u64) {
        self.arrived += n;
    }

    /// Request number `seq` (arrival order) completed.
    pub fn completed(&mut self, seq: u64) -> Result<(), String> {
        if seq >= self.arrived {
            return Err(format!(
                "request #{seq} completed but only {} requests arrived",
                self.arrived
            ));
        }
        if seq < self.base {
            return Err(format!("request #{seq} completed twice"));
        }
        let i = seq - self.base;
        let w = (i / 64) as usize;
        if w >= self.done.len() {
            self.done.resize(w + 1, 0);
        }
        let bit = 1u64 << (i % 64);
        if self.done[w] & bit != 0 {
            return Err(format!("request #{seq} completed twice"));
        }
        self.done[w] |= bit;
        self.completed += 1;
        while self.done.front() == Some(&u64::MAX) {
            self.done.pop_front();
            self.base += 64;
        }
        Ok(())
    }

    /// Like [`completed`](Self::completed), keeping the first violation for
    /// the next [`step`](Self::step).
    pub fn note_completed(&mut self, seq: u64) {
        if let Err(m) = self.completed(seq) {
            self.noted.get_or_insert(m);
        }
    }

    /// An event batch at `t` with `outstanding` requests at the device.
    pub fn step(&mut self, t: Ns, outstanding: u32, queue_depth: u32) -> Result<(), String> {
        if let Some(m) = self.noted.take() {
            return Err(m);
        }
        if t < self.last_time {
            return Err(format!(
                "simulated time went backwards: {t} ns after {} ns",
                self.last_time
            ));
        }
        self.last_time = t;
        if outstanding > queue_depth {
            return Err(format!(
                "{outstanding} requests outstanding at the device, queue depth {queue_depth}"
            ));
        }
        Ok(())
    }

    /// End of run: every arrived request completed.
    pub fn finish(&self) -> Result<(), String> {
        if self.completed != self.arrived {
            let missing = (0..self.done.len() as u64 * 64)
                .find(|&i| self.done[(i / 64) as usize] & (1 << (i % 64)) == 0)
                .map_or(self.base + self.done.len() as u64 * 64, |i| self.base + i);
            return Err(format!(
                "{} of {} requests completed (first missing: #{missing})",
                self.completed, self.arrived
            ));
        }
        Ok(())
    }
}
