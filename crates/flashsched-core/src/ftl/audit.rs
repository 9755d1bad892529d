//! The FTL checks itself: mapping directions agree, valid counts and write
//! pointers match the tables, free lists and block states are consistent
//! (run by check mode and by tests).

use super::{BlockState, Ftl, NONE, STREAMS};

impl Ftl {
    /// Check the accounting invariants: per-block valid counts equal the
    /// mapping table, l2p and p2l are inverse, nothing is mapped above a write
    /// pointer, and each plane's free list holds each of its erased blocks
    /// exactly once.
    pub fn check_invariants(&self) -> Result<(), String> {
        let ppb = self.geo.pages_per_block as usize;
        for (b, &v) in self.valid.iter().enumerate() {
            let n = self
                .p2l
                .range(b * ppb..(b + 1) * ppb)
                .filter(|&l| l != NONE)
                .count();
            if n != v as usize {
                return Err(format!("block {b}: valid count {v} but {n} mapped pages"));
            }
            if self
                .p2l
                .range(b * ppb + self.wp[b] as usize..(b + 1) * ppb)
                .any(|l| l != NONE)
            {
                return Err(format!("block {b}: mapped page above write pointer"));
            }
        }
        for (lpn, ppn) in self.l2p.iter().enumerate() {
            if ppn != NONE && self.p2l.get(ppn) != lpn as u32 {
                return Err(format!(
                    "lpn {lpn} -> ppn {ppn} but p2l says {}",
                    self.p2l.get(ppn)
                ));
            }
        }
        for (p, lpn) in self.p2l.iter().enumerate() {
            if lpn != NONE && self.l2p.get(lpn) != p as u32 {
                return Err(format!("ppn {p} owned by lpn {lpn} which maps elsewhere"));
            }
        }
        // With several GC jobs per plane, the count of pages they still move
        // is the valid pages of the plane's victims.
        if self.gc_jobs_max > 1 {
            let bpp = self.geo.blocks_per_plane;
            for (p, ps) in self.planes.iter().enumerate() {
                let first = p as u32 * bpp;
                let need: u32 = (first..first + bpp)
                    .filter(|&b| self.state[b as usize] == BlockState::Victim)
                    .map(|b| self.valid[b as usize] as u32)
                    .sum();
                if need != ps.gc_need {
                    return Err(format!(
                        "plane {p}: GC jobs count {} pages to move, victims hold {need}",
                        ps.gc_need
                    ));
                }
            }
        }
        // Each plane's free list holds each of its erased blocks exactly once
        // (the model has no bad blocks).
        let bpp = self.geo.blocks_per_plane;
        let mut listed = vec![false; bpp as usize];
        for (p, ps) in self.planes.iter().enumerate() {
            let first = p as u32 * bpp;
            listed.fill(false);
            for &b in &ps.free {
                let i = b.wrapping_sub(first);
                if i >= bpp {
                    return Err(format!(
                        "plane {p}: free list holds block {b} of another plane"
                    ));
                }
                if std::mem::replace(&mut listed[i as usize], true) {
                    return Err(format!("plane {p}: block {b} is on the free list twice"));
                }
                if self.state[b as usize] != BlockState::Free || self.wp[b as usize] != 0 {
                    return Err(format!("free list holds non-erased block {b}"));
                }
            }
            for s in 0..STREAMS {
                let a = ps.active[s];
                let left = if a == NONE {
                    0
                } else {
                    self.geo.pages_per_block - self.wp[a as usize] as u32
                };
                if ps.room[s] as u32 != left {
                    return Err(format!(
                        "plane {p}: stream {s} has {left} pages left in its block, but room says {}",
                        ps.room[s]
                    ));
                }
            }
            let free = (first..first + bpp)
                .filter(|&b| self.state[b as usize] == BlockState::Free)
                .count();
            if free != ps.free.len() {
                return Err(format!(
                    "plane {p}: {free} free blocks, but the free list holds {}",
                    ps.free.len()
                ));
            }
            if let Some(sp) = &self.speed {
                let tree = &sp.free[p];
                if tree.len() != ps.free.len()
                    || ps
                        .free
                        .iter()
                        .any(|&b| !tree.contains(&(sp.key[b as usize], b)))
                {
                    return Err(format!(
                        "plane {p}: speed tree disagrees with the free list"
                    ));
                }
            }
        }
        Ok(())
    }
}
