//! Geometry and physical addressing. Units are numbered globally so hot paths
//! index flat arrays: plane `p` belongs to die `p / planes_per_die`, die `d` to
//! chip `d / dies_per_chip`, chip `c` to channel `c / chips_per_channel`.

use serde::{Deserialize, Serialize};

use crate::divisor::Divisor;
use crate::error::{SimError, SimResult};

/// Flash array shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeometryConfig {
    /// Channels (independent buses).
    pub channels: u32,
    /// Chips sharing each channel.
    pub chips_per_channel: u32,
    /// Dies per chip (each runs one operation at a time).
    pub dies_per_chip: u32,
    /// Planes per die (multi-plane commands work on several at once).
    pub planes_per_die: u32,
    /// Erase blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Page size in bytes.
    pub page_size: u32,
}

impl GeometryConfig {
    /// Range checks; each error names its key and the allowed range.
    pub fn validate(&self) -> SimResult<()> {
        let g = self;
        let int_ranges: [(&str, u32, u32, u32); 7] = [
            ("geometry.channels", g.channels, 1, 1024),
            ("geometry.chips_per_channel", g.chips_per_channel, 1, 1024),
            ("geometry.dies_per_chip", g.dies_per_chip, 1, 64),
            ("geometry.planes_per_die", g.planes_per_die, 1, 64),
            ("geometry.blocks_per_plane", g.blocks_per_plane, 2, 1 << 20),
            ("geometry.pages_per_block", g.pages_per_block, 1, 65_535),
            ("geometry.page_size", g.page_size, 512, 1 << 20),
        ];
        for (key, v, lo, hi) in int_ranges {
            if v < lo || v > hi {
                return Err(SimError::config(
                    key,
                    format!("{v} is outside [{lo}, {hi}]"),
                ));
            }
        }
        // Flash pages are 2^k bytes (2, 4, 8, 16 KiB ...); sector and page
        // arithmetic relies on a whole number of 512-byte sectors per page.
        if !g.page_size.is_power_of_two() {
            return Err(SimError::config(
                "geometry.page_size",
                format!(
                    "{} is not a power of two (512, 1024, 2048, 4096, ... bytes)",
                    g.page_size
                ),
            ));
        }
        // Saturating: the ranges above allow products beyond u64.
        let pages = [
            g.chips_per_channel,
            g.dies_per_chip,
            g.planes_per_die,
            g.blocks_per_plane,
            g.pages_per_block,
        ]
        .iter()
        .fold(u64::from(g.channels), |acc, &v| {
            acc.saturating_mul(u64::from(v))
        });
        if pages >= u32::MAX as u64 {
            return Err(SimError::config(
                "geometry",
                format!(
                    "{pages} physical pages; at most {} are supported (u32 mapping)",
                    u32::MAX - 1
                ),
            ));
        }
        Ok(())
    }
}

/// Physical page number: `(plane * blocks_per_plane + block) * pages_per_block + page`.
pub type Ppn = u32;

/// Derived geometry with flat unit numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Channels.
    pub channels: u32,
    /// Chips per channel.
    pub chips_per_channel: u32,
    /// Dies per chip.
    pub dies_per_chip: u32,
    /// Planes per die.
    pub planes_per_die: u32,
    /// Blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per block.
    pub pages_per_block: u32,
    /// Page size in bytes.
    pub page_size: u32,
    /// Each divisor used on hot paths: address arithmetic becomes shifts
    /// and masks for the usual (power-of-two) geometries, division for the
    /// others.
    div: Divisors,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Divisors {
    planes_per_die: Divisor,
    dies_per_chip: Divisor,
    chips_per_channel: Divisor,
    blocks_per_plane: Divisor,
    pages_per_block: Divisor,
    page_size: Divisor,
    dies_per_channel: Divisor,
}

impl Geometry {
    /// The geometry of a (validated) config.
    pub fn new(c: &GeometryConfig) -> Self {
        Self::with_dims(
            c.channels,
            c.chips_per_channel,
            c.dies_per_chip,
            c.planes_per_die,
            c.blocks_per_plane,
            c.pages_per_block,
            c.page_size,
        )
    }

    /// A geometry from its dimensions (channels outermost, pages innermost).
    pub fn with_dims(
        channels: u32,
        chips_per_channel: u32,
        dies_per_chip: u32,
        planes_per_die: u32,
        blocks_per_plane: u32,
        pages_per_block: u32,
        page_size: u32,
    ) -> Self {
        Geometry {
            channels,
            chips_per_channel,
            dies_per_chip,
            planes_per_die,
            blocks_per_plane,
            pages_per_block,
            page_size,
            div: Divisors {
                planes_per_die: Divisor::new(planes_per_die),
                dies_per_chip: Divisor::new(dies_per_chip),
                chips_per_channel: Divisor::new(chips_per_channel),
                blocks_per_plane: Divisor::new(blocks_per_plane),
                pages_per_block: Divisor::new(pages_per_block),
                page_size: Divisor::new(page_size),
                dies_per_channel: Divisor::new(dies_per_chip.saturating_mul(chips_per_channel)),
            },
        }
    }

    /// Chips in the device.
    pub fn chips(&self) -> u32 {
        self.channels * self.chips_per_channel
    }
    /// Dies in the device.
    pub fn dies(&self) -> u32 {
        self.chips() * self.dies_per_chip
    }
    /// Planes in the device.
    pub fn planes(&self) -> u32 {
        self.dies() * self.planes_per_die
    }
    /// Blocks in the device.
    pub fn blocks(&self) -> u32 {
        self.planes() * self.blocks_per_plane
    }
    /// Physical pages in the device.
    pub fn pages(&self) -> u64 {
        self.blocks() as u64 * self.pages_per_block as u64
    }
    /// Pages in one plane.
    pub fn pages_per_plane(&self) -> u32 {
        self.blocks_per_plane * self.pages_per_block
    }
    /// Raw capacity in bytes (overprovisioning included).
    pub fn bytes(&self) -> u64 {
        self.pages() * self.page_size as u64
    }

    /// Die holding global plane `plane`.
    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 {
        self.div.planes_per_die.quotient(plane)
    }
    /// Chip holding global die `die`.
    #[inline]
    pub fn chip_of_die(&self, die: u32) -> u32 {
        self.div.dies_per_chip.quotient(die)
    }
    /// Index of global die `die` within its chip.
    #[inline]
    pub fn die_in_chip(&self, die: u32) -> u32 {
        self.div.dies_per_chip.remainder(die)
    }
    /// Index of global plane `plane` within its die.
    #[inline]
    pub fn plane_in_die(&self, plane: u32) -> u32 {
        self.div.planes_per_die.remainder(plane)
    }
    /// `x mod pages_per_block`.
    #[inline]
    pub fn rem_pages_per_block(&self, x: u32) -> u32 {
        self.div.pages_per_block.remainder(x)
    }
    /// Channel of global chip `chip`.
    #[inline]
    pub fn channel_of_chip(&self, chip: u32) -> u32 {
        self.div.chips_per_channel.quotient(chip)
    }
    /// Channel of global chip `chip`, and the chip's index within it.
    #[inline]
    pub fn channel_way(&self, chip: u32) -> (u32, u32) {
        let ch = self.channel_of_chip(chip);
        (ch, chip - ch * self.chips_per_channel)
    }
    /// Channel of global die `die`.
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 {
        self.channel_of_chip(self.chip_of_die(die))
    }
    /// The first die of global die `die`'s channel.
    #[inline]
    pub fn channel_first_die(&self, die: u32) -> u32 {
        let per = self.div.dies_per_channel;
        per.quotient(die) * per.get()
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
        self.div.pages_per_block.quotient(ppn)
    }
    /// Page offset inside its block.
    #[inline]
    pub fn page_in_block(&self, ppn: Ppn) -> u32 {
        self.rem_pages_per_block(ppn)
    }
    /// Plane holding global block `block`.
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 {
        self.div.blocks_per_plane.quotient(block)
    }
    /// Plane holding `ppn`.
    #[inline]
    pub fn plane_of(&self, ppn: Ppn) -> u32 {
        self.plane_of_block(self.block_of(ppn))
    }
    /// Logical page holding byte `offset`.
    #[inline]
    pub fn page_of_byte(&self, offset: u64) -> u64 {
        match self.div.page_size.shift() {
            Some(sh) => offset >> sh,
            None => offset / self.page_size as u64,
        }
    }
    /// First page of global block `block`.
    #[inline]
    pub fn first_ppn(&self, block: u32) -> Ppn {
        block * self.pages_per_block
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g() -> Geometry {
        Geometry::with_dims(2, 3, 2, 2, 10, 8, 4096)
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

    #[test]
    fn shifts_agree_with_division() {
        for dims in [
            (8, 4, 2, 2, 2048, 256),
            (2, 3, 2, 2, 10, 8),
            (3, 5, 3, 1, 7, 96),
        ] {
            let (ch, chips, dies, planes, blocks, pages) = dims;
            let g = Geometry::with_dims(ch, chips, dies, planes, blocks, pages, 4096);
            for ppn in (0..g.pages() as u32).step_by(997) {
                assert_eq!(g.block_of(ppn), ppn / pages);
                assert_eq!(g.page_in_block(ppn), ppn % pages);
                assert_eq!(g.plane_of(ppn), ppn / pages / blocks);
            }
            for plane in 0..g.planes() {
                let die = g.die_of_plane(plane);
                assert_eq!(die, plane / planes);
                assert_eq!(g.chip_of_die(die), die / dies);
                assert_eq!(g.channel_of_die(die), die / dies / chips);
                assert_eq!(g.channel_first_die(die), die / dies / chips * chips * dies);
                assert_eq!(g.plane_in_die(plane), plane % planes);
                assert_eq!(g.die_in_chip(die), die % dies);
            }
            for x in (0..3 * pages + 5).chain([u32::MAX - 1, u32::MAX]) {
                assert_eq!(g.rem_pages_per_block(x), x % pages);
            }
        }
    }
}
