//! The checker's own model of what each flash page holds, rebuilt from the
//! op records alone (independent of the FTL's tables): which logical page
//! and version a page was programmed with, each block's write pointer, and
//! which blocks are being erased. It enforces the physical rules of NAND:
//! a page is programmed at most once between erases, pages of a block are
//! programmed in order, and nothing is read from an erased (or erasing) page.

use crate::flash::Geometry;
use crate::ftl::{Ftl, NONE};

/// `lpn` of a page written before checking began whose data was already
/// stale then (its logical page is unknown, and nothing may read it).
pub const STALE: u32 = NONE - 1;

/// Contents of every physical page: 8 bytes per page, 3 per block.
pub struct FlashModel {
    pub geo: Geometry,
    /// Logical page held by each physical page (`NONE` = erased).
    lpn: Vec<u32>,
    /// Version held by each physical page (0 = written before the trace).
    ver: Vec<u32>,
    /// Next page to program per block.
    wp: Vec<u16>,
    /// Blocks whose erase has begun but not finished.
    erasing: Vec<bool>,
}

impl FlashModel {
    /// All pages erased (for hand-built record sequences).
    pub fn erased(geo: Geometry) -> FlashModel {
        let pages = geo.pages() as usize;
        let blocks = geo.blocks() as usize;
        FlashModel {
            geo,
            lpn: vec![NONE; pages],
            ver: vec![0; pages],
            wp: vec![0; blocks],
            erasing: vec![false; blocks],
        }
    }

    /// The device as the FTL leaves it (after preconditioning): valid pages
    /// hold version 0 of their logical page, other written pages stale data.
    pub fn snapshot(ftl: &Ftl) -> FlashModel {
        let mut m = FlashModel::erased(ftl.geo);
        for b in 0..ftl.geo.blocks() {
            let wp = ftl.write_pointer(b);
            m.wp[b as usize] = wp as u16;
            let first = ftl.geo.first_ppn(b);
            for p in first..first + wp {
                m.lpn[p as usize] = ftl.owner(p).unwrap_or(STALE);
            }
        }
        m
    }

    /// (lpn, version) held by `ppn`, `None` if erased or being erased.
    #[inline]
    pub fn content(&self, ppn: u32) -> Option<(u32, u32)> {
        let l = *self.lpn.get(ppn as usize)?;
        let b = self.geo.block_of(ppn) as usize;
        (l != NONE && !self.erasing[b]).then(|| (l, self.ver[ppn as usize]))
    }

    /// Version `ver` of `lpn` is programmed into `ppn`.
    pub fn program(&mut self, ppn: u32, lpn: u32, ver: u32) -> Result<(), String> {
        if ppn as u64 >= self.geo.pages() {
            return Err(format!("program of page {ppn} beyond the device"));
        }
        let b = self.geo.block_of(ppn);
        let page = self.geo.page_in_block(ppn);
        if self.lpn[ppn as usize] != NONE {
            return Err(format!(
                "page {ppn} (block {b} page {page}) programmed twice without an erase \
                 (holds lpn {} v{}, now lpn {lpn} v{ver})",
                show_lpn(self.lpn[ppn as usize]),
                self.ver[ppn as usize]
            ));
        }
        if self.erasing[b as usize] {
            return Err(format!(
                "page {ppn} programmed while its block {b} is being erased"
            ));
        }
        let wp = self.wp[b as usize] as u32;
        if page != wp {
            return Err(format!(
                "block {b} programmed out of order: page {page} while the next page is {wp}"
            ));
        }
        self.wp[b as usize] += 1;
        self.lpn[ppn as usize] = lpn;
        self.ver[ppn as usize] = ver;
        Ok(())
    }

    /// GC copies `from` into `to` (internal read + program).
    pub fn copy(&mut self, from: u32, to: u32) -> Result<(), String> {
        let Some((lpn, ver)) = self.content(from) else {
            return Err(format!("GC copied erased page {from} into page {to}"));
        };
        self.program(to, lpn, ver)
    }

    /// The erase of `block` began: its contents are gone.
    pub fn erase_start(&mut self, block: u32) -> Result<(), String> {
        let b = block as usize;
        if b >= self.erasing.len() {
            return Err(format!("erase of block {block} beyond the device"));
        }
        self.erasing[b] = true;
        Ok(())
    }

    /// `block` is erased and may be programmed again from page 0.
    pub fn erase_done(&mut self, block: u32) -> Result<(), String> {
        let b = block as usize;
        if b >= self.erasing.len() || !self.erasing[b] {
            return Err(format!("block {block} finished an erase that never began"));
        }
        self.erasing[b] = false;
        self.wp[b] = 0;
        let first = self.geo.first_ppn(block) as usize;
        self.lpn[first..first + self.geo.pages_per_block as usize].fill(NONE);
        Ok(())
    }

    /// Write pointer of `block`.
    pub fn write_pointer(&self, block: u32) -> u32 {
        self.wp[block as usize] as u32
    }

    /// Raw (lpn, version) of `ppn` ignoring erases in progress.
    pub fn raw(&self, ppn: u32) -> (u32, u32) {
        (self.lpn[ppn as usize], self.ver[ppn as usize])
    }

    pub fn is_erasing(&self, block: u32) -> bool {
        self.erasing[block as usize]
    }

    /// Bytes held by the model.
    pub fn bytes(&self) -> u64 {
        (self.lpn.len() * 8 + self.wp.len() * 3) as u64
    }
}

/// An lpn for messages (`STALE` and `NONE` spelled out).
pub fn show_lpn(l: u32) -> String {
    match l {
        NONE => "none (erased)".into(),
        STALE => "unknown (stale before checking began)".into(),
        l => l.to_string(),
    }
}
