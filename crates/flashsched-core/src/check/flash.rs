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

/// What one physical page holds (one cache access per page).
#[derive(Debug, Clone, Copy)]
struct Page {
    /// Logical page (`NONE` = erased).
    lpn: u32,
    /// Version (0 = written before the trace).
    ver: u32,
}

/// Per-block state.
#[derive(Debug, Clone, Copy, Default)]
struct Block {
    /// Next page to program.
    wp: u16,
    /// The erase has begun but not finished.
    erasing: bool,
}

/// Contents of every physical page: 8 bytes per page, 4 per block.
pub struct FlashModel {
    /// The device's geometry (page and block numbering).
    pub geo: Geometry,
    pages: Vec<Page>,
    blocks: Vec<Block>,
}

impl FlashModel {
    /// Bytes a model of `geo` allocates.
    pub fn footprint(geo: &Geometry) -> u64 {
        geo.pages() * std::mem::size_of::<Page>() as u64
            + geo.blocks() as u64 * std::mem::size_of::<Block>() as u64
    }

    /// All pages erased (for hand-built record sequences).
    pub fn erased(geo: Geometry) -> FlashModel {
        let pages = geo.pages() as usize;
        let blocks = geo.blocks() as usize;
        FlashModel {
            geo,
            pages: vec![Page { lpn: NONE, ver: 0 }; pages],
            blocks: vec![Block::default(); blocks],
        }
    }

    /// The device as the FTL leaves it (after preconditioning): valid pages
    /// hold version 0 of their logical page, other written pages stale data.
    pub fn snapshot(ftl: &Ftl) -> FlashModel {
        let mut m = FlashModel::erased(ftl.geo);
        for b in 0..ftl.geo.blocks() {
            let wp = ftl.write_pointer(b);
            m.blocks[b as usize].wp = wp as u16;
            let first = ftl.geo.first_ppn(b);
            for p in first..first + wp {
                m.pages[p as usize].lpn = ftl.owner(p).unwrap_or(STALE);
            }
        }
        m
    }

    /// (lpn, version) held by `ppn`, `None` if erased or being erased.
    #[inline]
    pub fn content(&self, ppn: u32) -> Option<(u32, u32)> {
        let pg = *self.pages.get(ppn as usize)?;
        let b = self.geo.block_of(ppn) as usize;
        (pg.lpn != NONE && !self.blocks[b].erasing).then_some((pg.lpn, pg.ver))
    }

    /// Version `ver` of `lpn` is programmed into `ppn`.
    pub fn program(&mut self, ppn: u32, lpn: u32, ver: u32) -> Result<(), String> {
        if ppn as u64 >= self.geo.pages() {
            return Err(format!("program of page {ppn} beyond the device"));
        }
        let b = self.geo.block_of(ppn);
        let page = self.geo.page_in_block(ppn);
        let old = self.pages[ppn as usize];
        if old.lpn != NONE {
            return Err(format!(
                "page {ppn} (block {b} page {page}) programmed twice without an erase \
                 (holds lpn {} v{}, now lpn {lpn} v{ver})",
                show_lpn(old.lpn),
                old.ver
            ));
        }
        let blk = &mut self.blocks[b as usize];
        if blk.erasing {
            return Err(format!(
                "page {ppn} programmed while its block {b} is being erased"
            ));
        }
        if page != blk.wp as u32 {
            return Err(format!(
                "block {b} programmed out of order: page {page} while the next page is {}",
                blk.wp
            ));
        }
        blk.wp += 1;
        self.pages[ppn as usize] = Page { lpn, ver };
        Ok(())
    }

    /// Page `ppn` is skipped: its block's next page, left without data.
    pub fn skip(&mut self, ppn: u32) -> Result<(), String> {
        if ppn as u64 >= self.geo.pages() {
            return Err(format!("skip of page {ppn} beyond the device"));
        }
        let b = self.geo.block_of(ppn);
        let page = self.geo.page_in_block(ppn);
        let blk = &mut self.blocks[b as usize];
        if blk.erasing || page != blk.wp as u32 {
            return Err(format!(
                "block {b}: page {page} skipped while the next page is {}",
                blk.wp
            ));
        }
        blk.wp += 1;
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
        match self.blocks.get_mut(block as usize) {
            Some(b) => {
                b.erasing = true;
                Ok(())
            }
            None => Err(format!("erase of block {block} beyond the device")),
        }
    }

    /// `block` is erased and may be programmed again from page 0.
    pub fn erase_done(&mut self, block: u32) -> Result<(), String> {
        match self.blocks.get_mut(block as usize) {
            Some(b) if b.erasing => *b = Block::default(),
            _ => return Err(format!("block {block} finished an erase that never began")),
        }
        let first = self.geo.first_ppn(block) as usize;
        self.pages[first..first + self.geo.pages_per_block as usize]
            .fill(Page { lpn: NONE, ver: 0 });
        Ok(())
    }

    /// Write pointer of `block`.
    pub fn write_pointer(&self, block: u32) -> u32 {
        self.blocks[block as usize].wp as u32
    }

    /// Raw (lpn, version) of `ppn` ignoring erases in progress.
    pub fn raw(&self, ppn: u32) -> (u32, u32) {
        let pg = self.pages[ppn as usize];
        (pg.lpn, pg.ver)
    }

    /// Whether an erase of `block` has begun and not finished.
    pub fn is_erasing(&self, block: u32) -> bool {
        self.blocks[block as usize].erasing
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
