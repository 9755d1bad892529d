//! Parallelism accounting (AOS §IV-B.3): time integrals of busy dies, chips
//! and channels, updated whenever a die is taken or freed (O(1)).
//!
//! - flash-level parallelism (FLP) = mean busy dies per busy chip (dies of a
//!   chip working at once: die interleaving; planes are not modelled apart);
//! - system-level parallelism (SLP) = mean busy chips (and channels with a
//!   busy chip) while at least one chip is busy.

use crate::engine::Ns;
use crate::flash::Geometry;

#[derive(Debug, Clone, Default)]
pub struct Parallelism {
    dies_busy_in_chip: Vec<u32>,
    chips_busy_in_channel: Vec<u32>,
    busy_dies: u64,
    busy_chips: u64,
    busy_channels: u64,
    last: Ns,
    die_ns: f64,
    chip_ns: f64,
    channel_ns: f64,
    any_ns: f64,
}

impl Parallelism {
    pub fn new(g: &Geometry) -> Self {
        Parallelism {
            dies_busy_in_chip: vec![0; g.chips() as usize],
            chips_busy_in_channel: vec![0; g.channels as usize],
            ..Default::default()
        }
    }

    fn advance(&mut self, now: Ns) {
        let dt = now.saturating_sub(self.last) as f64;
        self.last = self.last.max(now);
        if self.busy_chips > 0 {
            self.die_ns += dt * self.busy_dies as f64;
            self.chip_ns += dt * self.busy_chips as f64;
            self.channel_ns += dt * self.busy_channels as f64;
            self.any_ns += dt;
        }
    }

    /// Die `die` became busy.
    #[inline]
    pub fn take(&mut self, g: &Geometry, die: u32, now: Ns) {
        self.advance(now);
        let chip = g.chip_of_die(die);
        self.busy_dies += 1;
        let c = &mut self.dies_busy_in_chip[chip as usize];
        *c += 1;
        if *c == 1 {
            self.busy_chips += 1;
            let ch = &mut self.chips_busy_in_channel[g.channel_of_chip(chip) as usize];
            *ch += 1;
            if *ch == 1 {
                self.busy_channels += 1;
            }
        }
    }

    /// Die `die` became idle.
    #[inline]
    pub fn free(&mut self, g: &Geometry, die: u32, now: Ns) {
        self.advance(now);
        let chip = g.chip_of_die(die);
        self.busy_dies -= 1;
        let c = &mut self.dies_busy_in_chip[chip as usize];
        *c -= 1;
        if *c == 0 {
            self.busy_chips -= 1;
            let ch = &mut self.chips_busy_in_channel[g.channel_of_chip(chip) as usize];
            *ch -= 1;
            if *ch == 0 {
                self.busy_channels -= 1;
            }
        }
    }

    /// (FLP, SLP in chips, SLP in channels).
    pub fn means(&self) -> (f64, f64, f64) {
        if self.any_ns == 0.0 {
            return (0.0, 0.0, 0.0);
        }
        (
            self.die_ns / self.chip_ns,
            self.chip_ns / self.any_ns,
            self.channel_ns / self.any_ns,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrates_busy_units() {
        let g = Geometry {
            channels: 2,
            chips_per_channel: 2,
            dies_per_chip: 2,
            planes_per_die: 1,
            blocks_per_plane: 2,
            pages_per_block: 2,
            page_size: 4096,
        };
        let mut p = Parallelism::new(&g);
        // dies 0 and 1 (chip 0) busy 0..10; die 2 (chip 1) busy 0..10.
        p.take(&g, 0, 0);
        p.take(&g, 1, 0);
        p.take(&g, 2, 0);
        p.free(&g, 0, 10);
        p.free(&g, 1, 10);
        p.free(&g, 2, 10);
        let (flp, slp_chips, slp_ch) = p.means();
        assert!((flp - 1.5).abs() < 1e-12);
        assert!((slp_chips - 2.0).abs() < 1e-12);
        assert!((slp_ch - 1.0).abs() < 1e-12);
    }
}
