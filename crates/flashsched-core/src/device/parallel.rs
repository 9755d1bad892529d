//! Parallelism accounting (AOS §IV-B.3): time integrals of busy dies, chips
//! and channels, updated whenever a die is taken or freed (O(1)).
//!
//! - flash-level parallelism (FLP) = mean busy dies per busy chip (dies of a
//!   chip working at once: die interleaving; planes are not modelled apart);
//! - system-level parallelism (SLP) = mean busy chips (and channels with a
//!   busy chip) while at least one chip is busy.

use crate::engine::Ns;
use crate::flash::Geometry;

/// Busy-unit integrals kept as integer nanosecond sums: each die, chip,
/// channel and "any chip busy" period adds its length when it ends, so a
/// take/free is a few counter updates (no floating point per operation).
/// The result equals integrating the busy counts over time.
#[derive(Debug, Clone, Default)]
pub struct Parallelism {
    die_since: Vec<Ns>,
    dies_busy_in_chip: Vec<u32>,
    chip_since: Vec<Ns>,
    chips_busy_in_channel: Vec<u32>,
    channel_since: Vec<Ns>,
    busy_chips: u64,
    any_since: Ns,
    die_ns: u64,
    chip_ns: u64,
    channel_ns: u64,
    any_ns: u64,
}

impl Parallelism {
    /// Nothing busy yet, for a device of geometry `g`.
    pub fn new(g: &Geometry) -> Self {
        Parallelism {
            die_since: vec![0; g.dies() as usize],
            dies_busy_in_chip: vec![0; g.chips() as usize],
            chip_since: vec![0; g.chips() as usize],
            chips_busy_in_channel: vec![0; g.channels as usize],
            channel_since: vec![0; g.channels as usize],
            ..Default::default()
        }
    }

    /// Die `die` became busy.
    #[inline]
    pub fn take(&mut self, g: &Geometry, die: u32, now: Ns) {
        self.die_since[die as usize] = now;
        let chip = g.chip_of_die(die);
        let c = &mut self.dies_busy_in_chip[chip as usize];
        *c += 1;
        if *c == 1 {
            self.chip_since[chip as usize] = now;
            if self.busy_chips == 0 {
                self.any_since = now;
            }
            self.busy_chips += 1;
            let chan = g.channel_of_chip(chip) as usize;
            let ch = &mut self.chips_busy_in_channel[chan];
            *ch += 1;
            if *ch == 1 {
                self.channel_since[chan] = now;
            }
        }
    }

    /// Die `die` became idle.
    #[inline]
    pub fn free(&mut self, g: &Geometry, die: u32, now: Ns) {
        self.die_ns += now - self.die_since[die as usize];
        let chip = g.chip_of_die(die);
        let c = &mut self.dies_busy_in_chip[chip as usize];
        *c -= 1;
        if *c == 0 {
            self.chip_ns += now - self.chip_since[chip as usize];
            self.busy_chips -= 1;
            if self.busy_chips == 0 {
                self.any_ns += now - self.any_since;
            }
            let chan = g.channel_of_chip(chip) as usize;
            let ch = &mut self.chips_busy_in_channel[chan];
            *ch -= 1;
            if *ch == 0 {
                self.channel_ns += now - self.channel_since[chan];
            }
        }
    }

    /// (FLP, SLP in chips, SLP in channels), over completed busy periods.
    pub fn means(&self) -> (f64, f64, f64) {
        if self.any_ns == 0 {
            return (0.0, 0.0, 0.0);
        }
        (
            self.die_ns as f64 / self.chip_ns as f64,
            self.chip_ns as f64 / self.any_ns as f64,
            self.channel_ns as f64 / self.any_ns as f64,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrates_busy_units() {
        let g = Geometry::with_dims(2, 2, 2, 1, 2, 2, 4096);
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
