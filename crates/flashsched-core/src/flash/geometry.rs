//! Geometry and physical addressing. Units are numbered globally so hot paths
//! index flat arrays: plane `p` belongs to die `p / planes_per_die`, die `d` to
//! chip `d / dies_per_chip`, chip `c` to channel `c / chips_per_channel`.

use crate::config::GeometryConfig;

/// Physical page number: `(plane * blocks_per_plane + block) * pages_per_block + page`.
pub type Ppn = u32;

/// Derived geometry with flat unit numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size: u32,
}

impl Geometry {
    pub fn new(c: &GeometryConfig) -> Self {
        Geometry {
            channels: c.channels,
            chips_per_channel: c.chips_per_channel,
            dies_per_chip: c.dies_per_chip,
            planes_per_die: c.planes_per_die,
            blocks_per_plane: c.blocks_per_plane,
            pages_per_block: c.pages_per_block,
            page_size: c.page_size,
        }
    }

    pub fn chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }
    pub fn dies(&self) -> u32 {
        self.chips() * self.dies_per_chip
    }
    pub fn planes(&self) -> u32 {
        self.dies() * self.planes_per_die
    }
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    pub fn pages(&self) -> u64 {
        self.blocks() as u64 * self.pages_per_block as u64
    }
    pub fn pages_per_plane(&self) -> u32 {
        self.blocks_per_plane * self.pages_per_block
    }
    pub fn bytes(&self) -> u64 {
        self.pages() * self.page_size as u64
    }

    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        plane / self.planes_per_die
    }
    #[inline]
    pub fn chip_of_die(&self, die: u32) -> u32 {
        die / self.dies_per_chip
    }
    #[inline]
    pub fn channel_of_chip(&self, chip: u32) -> u32 {
        chip / self.chips_per_channel
    }
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        self.channel_of_chip(self.chip_of_die(die))
    }

    /// Global plane index from (channel, chip-in-channel, die-in-chip, plane-in-die).
    #[inline]
    pub fn plane_index(&self, ch: u32, way: u32, die: u32, plane: u32) -> u32 {
        ((ch * self.chips_per_channel + way) * self.dies_per_chip + die) * self.planes_per_die
            + plane
    }

    /// Global block index of a ppn.
    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 {
        ppn / self.pages_per_block
    }
    /// Page offset inside its block.
    #[inline]
    pub fn page_in_block(&self, ppn: Ppn) -> u32 {
        ppn % self.pages_per_block
    }
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        block / self.blocks_per_plane
    }
    #[inline]
    pub fn plane_of(&self, ppn: Ppn) -> u32 {
        self.plane_of_block(self.block_of(ppn))
    }
    #[inline]
    pub fn first_ppn(&self, block: u32) -> Ppn {
        block * self.pages_per_block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g() -> Geometry {
        Geometry {
            channels: 2,
            chips_per_channel: 3,
            dies_per_chip: 2,
            planes_per_die: 2,
            blocks_per_plane: 10,
            pages_per_block: 8,
            page_size: 4096,
        }
    }

    #[test]
    fn flat_numbering_round_trips() {
        let g = g();
        assert_eq!(g.planes(), 24);
        assert_eq!(g.pages(), 24 * 10 * 8);
        let p = g.plane_index(1, 2, 1, 0);
        assert_eq!(p, ((3 + 2) * 2 + 1) * 2);
        let die = g.die_of_plane(p);
        assert_eq!(g.chip_of_die(die), 5);
        assert_eq!(g.channel_of_die(die), 1);
        let ppn = g.first_ppn(p * 10 + 7) + 5;
        assert_eq!(g.plane_of(ppn), p);
        assert_eq!(g.page_in_block(ppn), 5);
        assert_eq!(g.block_of(ppn) % g.blocks_per_plane, 7);
    }
}
