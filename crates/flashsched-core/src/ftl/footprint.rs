//! Memory the FTL of a geometry allocates, computed before building it (the
//! run's memory estimate, module `memory`). Counted as allocated, whether
//! or not the OS has backed it yet: the mapping tables are lazily zeroed,
//! but a run may touch all of them.

use std::mem::size_of;

use super::gc::Candidate;
use super::{BlockState, FtlConfig, PlaneState};
use crate::engine::Ns;
use crate::flash::Geometry;

/// Bytes of the FTL's parts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FtlFootprint {
    /// Logical→physical and physical→logical tables, TRIM bitmap.
    pub mapping: u64,
    /// Per-block state (valid count, write pointer, erase count, state,
    /// times), free lists, per-plane state, GC candidate buffer.
    pub blocks: u64,
    /// Held only while preconditioning: the live set, and a group of
    /// planes' placements.
    pub precondition: u64,
    /// Process variation: per-block speeds and the speed-ordered free sets.
    pub variation: u64,
}

/// Bytes of a `Vec` grown one push at a time to `n` elements of `each`
/// bytes (capacity doubles: the next power of two).
pub fn grown_vec(n: u64, each: u64) -> u64 {
    if n == 0 {
        0
    } else {
        n.max(4).next_power_of_two() * each
    }
}

/// About one B-tree entry of `(u32, u32)` per free block: 8 bytes of key
/// in nodes that are on average about two-thirds full, plus edges.
const BTREE_ENTRY: u64 = 16;

impl super::Ftl {
    /// What an FTL over `geo` configured by `cfg` allocates (`variation`:
    /// process variation enabled).
    pub fn footprint(geo: &Geometry, cfg: &FtlConfig, variation: bool) -> FtlFootprint {
        let logical = Self::logical_pages_for(geo, cfg) as u64;
        let pages = geo.pages();
        let blocks = geo.blocks() as u64;
        let planes = geo.planes() as u64;
        let per_block = (2 * size_of::<u16>()
            + size_of::<u32>()
            + size_of::<BlockState>()
            + size_of::<Ns>()
            + size_of::<u64>()) as u64
            // the free list holds every block of a fresh device
            + size_of::<u32>() as u64;
        let per_plane = (size_of::<PlaneState>() + size_of::<u32>()) as u64;
        let candidates = geo.blocks_per_plane as u64 * size_of::<Candidate>() as u64;
        // Preconditioning (ftl/precondition/). A small table is built
        // plane by plane: one plane's live LPNs, grown one at a time. A
        // larger one in groups: the live bitmap and counts, each plane's
        // start (a slot permutation), one plane's live pages as (LPN, page)
        // pairs and their shuffled order, and a group of planes'
        // placements; a residue's live pages are at most its rows.
        let ppb = geo.pages_per_block as u64;
        let precondition = if cfg.precondition_fill <= 0.0 {
            0
        } else if !super::precondition::grouped(logical as u32) {
            let live_per_plane = (logical as f64 * cfg.precondition_fill.clamp(0.0, 1.0)
                / planes.max(1) as f64)
                .ceil() as u64;
            grown_vec(live_per_plane, 4) + (geo.blocks_per_plane as u64 + ppb) * 4
        } else {
            // ... and each plane's claimed blocks with their valid counts;
            // every thread holds its own pairs, order and placements.
            use super::precondition::{group_width, PlaneStart, THREADS};
            let rows = logical.div_ceil(planes.max(1));
            let width = group_width(geo.planes()) as u64;
            let threads = THREADS as u64;
            logical.div_ceil(64) * 8
                + planes * (8 + 8 + 4)
                + planes * (ppb * 4 + size_of::<PlaneStart>() as u64)
                + blocks * 8
                + threads * ((rows + 1) * 8 + rows * 4 + width * ((rows + 1) * 4 + 16) + ppb * 4)
                + geo.blocks_per_plane as u64 * 4
                + ppb * 4
        };
        FtlFootprint {
            mapping: 4 * logical + 4 * pages + logical.div_ceil(64) * 8,
            blocks: per_block * blocks + per_plane * planes + candidates,
            precondition,
            // growth, step, factor (f32) and the speed key (u32) per block,
            // plus a free-set entry per block.
            variation: if variation {
                16 * blocks + BTREE_ENTRY * blocks
            } else {
                0
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DeviceConfig;
    use crate::flash::GeometryConfig;

    /// The footprint of `default` with these geometry sizes (channels,
    /// chips, dies, planes, blocks, pages), 25 % OP, half full.
    fn footprint_of(g: [u32; 6]) -> FtlFootprint {
        let ov = ["ftl.overprovisioning=0.25", "ftl.precondition_fill=0.5"].map(String::from);
        let mut cfg = DeviceConfig::load("default", &ov).unwrap();
        let [channels, chips, dies, planes, blocks, pages] = g;
        cfg.geometry = GeometryConfig {
            channels,
            chips_per_channel: chips,
            dies_per_chip: dies,
            planes_per_die: planes,
            blocks_per_plane: blocks,
            pages_per_block: pages,
            ..cfg.geometry
        };
        super::super::Ftl::footprint(&Geometry::new(&cfg.geometry), &cfg.ftl, false)
    }

    #[test]
    fn worked_example() {
        // 2 × 1 × 1 × 1 planes × 64 blocks × 32 pages = 4096 pages, 128
        // blocks; 25 % OP → 3072 logical pages.
        let f = footprint_of([2, 1, 1, 1, 64, 32]);
        assert_eq!(f.mapping, 4 * 3072 + 4 * 4096 + 48 * 8);
        // A small table, built plane by plane: 768 live pages per plane →
        // a 1024-entry vector, plus the ramp (64 blocks) and the slot
        // shuffle (32 pages).
        assert_eq!(f.precondition, 1024 * 4 + 96 * 4);
        assert_eq!(f.variation, 0);
        assert!(f.blocks >= 29 * 128, "{}", f.blocks);
        assert_eq!(grown_vec(5, 2), 16);
        assert_eq!(grown_vec(1, 1), 4);
    }

    #[test]
    fn worked_example_built_in_groups() {
        // 8 × 2 × 2 × 2 planes × 2048 blocks × 256 pages, 25 % OP: 24M
        // logical pages, built in groups of 4 planes on two threads (a
        // 3 MiB live bitmap, 393,216 rows a residue, 131,072 blocks).
        let f = footprint_of([8, 2, 2, 2, 2048, 256]);
        let start = std::mem::size_of::<super::super::precondition::PlaneStart>() as u64;
        let rows = 393_216;
        assert_eq!(
            f.precondition,
            (3 << 20)
                + 64 * 20
                + 64 * (1024 + start)
                + 131_072 * 8
                + 2 * ((rows + 1) * 8 + rows * 4 + 4 * ((rows + 1) * 4 + 16) + 1024)
                + 2048 * 4
                + 1024
        );
    }
}
