//! Operation latencies in integer nanoseconds, precomputed from the config.

use serde::{Deserialize, Serialize};

use crate::engine::Ns;
use crate::error::{SimError, SimResult};

/// NAND and bus timing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimingConfig {
    /// Bits per cell, used for per-page-type latencies.
    pub cell: Cell,
    /// Page read (tR), µs.
    pub read_us: f64,
    /// Page program (tPROG), µs.
    pub program_us: f64,
    /// Block erase (tBERS), µs.
    pub erase_us: f64,
    /// Channel bus rate in MB/s (10^6 bytes per second); 0 = infinite (no bus).
    pub channel_mb_s: f64,
    /// Command/address overhead added to every flash operation.
    #[serde(default)]
    pub command_us: f64,
    /// Bus time of a read command's command and address cycles, ns: the
    /// channel carries it before the sense starts (MQSim's ONFI NV-DDR2
    /// timings: 290 ns). 0: commands take no bus time.
    #[serde(default)]
    pub read_command_ns: f64,
    /// What each further plane of a multi-plane read command adds (650).
    #[serde(default)]
    pub read_command_plane_ns: f64,
    /// The same for a program command, carried before its data-in (361).
    #[serde(default)]
    pub program_command_ns: f64,
    /// Each further plane of a multi-plane program (816).
    #[serde(default)]
    pub program_command_plane_ns: f64,
    /// The same for an erase command, carried before tBERS (220).
    #[serde(default)]
    pub erase_command_ns: f64,
    /// Each further plane of a multi-plane erase (700).
    #[serde(default)]
    pub erase_command_plane_ns: f64,
    /// Vary read/program latency by page type (LSB/CSB/MSB) around the nominal.
    #[serde(default)]
    pub per_page_type: bool,
    /// A host read or write moves only the 512-byte sectors it asked for
    /// over the channel (MQSim, SSDsim); false: always the whole page. GC
    /// moves and translation pages move whole pages either way.
    #[serde(default)]
    pub sector_transfers: bool,
}

/// `timing.cell`: bits per cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Cell {
    /// 1 bit per cell.
    Slc,
    /// 2 bits per cell.
    Mlc,
    /// 3 bits per cell.
    Tlc,
    /// 4 bits per cell.
    Qlc,
}

impl TimingConfig {
    /// Range checks; each error names its key and the allowed range.
    pub fn validate(&self) -> SimResult<()> {
        let t = self;
        for (key, v, lo, hi) in [
            ("timing.read_us", t.read_us, 0.001, 1e6),
            ("timing.program_us", t.program_us, 0.001, 1e6),
            ("timing.erase_us", t.erase_us, 0.001, 1e7),
            ("timing.channel_mb_s", t.channel_mb_s, 0.0, 1e6),
            ("timing.command_us", t.command_us, 0.0, 1e4),
            ("timing.read_command_ns", t.read_command_ns, 0.0, 1e7),
            (
                "timing.read_command_plane_ns",
                t.read_command_plane_ns,
                0.0,
                1e7,
            ),
            ("timing.program_command_ns", t.program_command_ns, 0.0, 1e7),
            (
                "timing.program_command_plane_ns",
                t.program_command_plane_ns,
                0.0,
                1e7,
            ),
            ("timing.erase_command_ns", t.erase_command_ns, 0.0, 1e7),
            (
                "timing.erase_command_plane_ns",
                t.erase_command_plane_ns,
                0.0,
                1e7,
            ),
        ] {
            range(key, v, lo, hi)?;
        }
        Ok(())
    }
}

/// `v` lies in `[lo, hi]` (and is a number), else an error naming `key`.
pub(crate) fn range(key: &str, v: f64, lo: f64, hi: f64) -> SimResult<()> {
    if !(v.is_finite() && v >= lo && v <= hi) {
        return Err(SimError::config(
            key,
            format!("{v} is outside [{lo}, {hi}]"),
        ));
    }
    Ok(())
}

/// Latency model for one device.
#[derive(Debug, Clone)]
pub struct Timing {
    /// Nominal page read.
    pub read: Ns,
    /// Nominal page program.
    pub program: Ns,
    /// Block erase.
    pub erase: Ns,
    /// Command/address overhead of every flash operation.
    pub command: Ns,
    /// Bus time of a command's cycles by kind (read, program, erase):
    /// (first plane, each further plane); zeros: none.
    command_bus: [(Ns, Ns); 3],
    /// Bus time to move one page; 0 = infinite bus (no channel contention).
    pub xfer_page: Ns,
    /// Channel rate (MB/s), for transfers of part of a page.
    mb_s: f64,
    /// Whether host transfers move only their sectors.
    pub sector_transfers: bool,
    /// Bus time of a transfer of `n` sectors, `n` up to a page's (index 0
    /// unused): computed once, as [`Timing::xfer_ns`] would each time.
    xfer_sectors: Vec<Ns>,
    /// Per page-type multipliers (index = page % bits_per_cell); empty = uniform.
    read_factor: Vec<f64>,
    program_factor: Vec<f64>,
}

fn us(x: f64) -> Ns {
    (x * 1000.0).round() as Ns
}

fn ns(x: f64) -> Ns {
    x.round() as Ns
}

/// Bus time of `n` 512-byte sectors at `mb_s` MB/s.
fn sector_xfer_ns(n: u16, mb_s: f64) -> Ns {
    (n as f64 * 512.0 * 1000.0 / mb_s).round() as Ns
}

/// What a flash command does, for its bus time ([`Timing::command_bus_ns`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandKind {
    /// A page read (sense).
    Read = 0,
    /// A page program.
    Program = 1,
    /// A block erase.
    Erase = 2,
}

impl Timing {
    /// Latencies of `t` for pages of `page_size` bytes.
    pub fn new(t: &TimingConfig, page_size: u32) -> Self {
        let xfer_page = if t.channel_mb_s > 0.0 {
            // MB/s = 10^6 bytes/s  ->  ns = bytes * 1000 / MB_s
            (page_size as f64 * 1000.0 / t.channel_mb_s).round() as Ns
        } else {
            0
        };
        // Per page-type latencies (assumption, documented in docs/model.md):
        // lower pages are faster; factors average to 1 so the nominal value is
        // the mean over a block.
        let (read_factor, program_factor) = if t.per_page_type {
            match t.cell {
                Cell::Mlc => (vec![0.8, 1.2], vec![0.5, 1.5]),
                Cell::Tlc => (vec![0.75, 1.0, 1.25], vec![0.4, 1.0, 1.6]),
                Cell::Qlc => (vec![0.7, 0.9, 1.1, 1.3], vec![0.3, 0.7, 1.3, 1.7]),
                Cell::Slc => (vec![], vec![]),
            }
        } else {
            (vec![], vec![])
        };
        let page_sectors = (page_size / 512).min(u16::MAX as u32) as usize;
        let xfer_sectors = (0..=page_sectors)
            .map(|n| sector_xfer_ns(n as u16, t.channel_mb_s))
            .collect();
        Timing {
            read: us(t.read_us),
            program: us(t.program_us),
            erase: us(t.erase_us),
            command: us(t.command_us),
            command_bus: [
                (ns(t.read_command_ns), ns(t.read_command_plane_ns)),
                (ns(t.program_command_ns), ns(t.program_command_plane_ns)),
                (ns(t.erase_command_ns), ns(t.erase_command_plane_ns)),
            ],
            xfer_page,
            mb_s: t.channel_mb_s,
            sector_transfers: t.sector_transfers,
            xfer_sectors,
            read_factor,
            program_factor,
        }
    }

    /// Bus time (command included) of a transfer of `sectors` 512-byte
    /// sectors; 0 = a whole page.
    #[inline]
    pub fn xfer_ns(&self, sectors: u16) -> Ns {
        self.command
            + match sectors {
                0 => self.xfer_page,
                n => match self.xfer_sectors.get(n as usize) {
                    Some(&d) => d,
                    None => sector_xfer_ns(n, self.mb_s),
                },
            }
    }

    /// Bus time of the command and address cycles of a `kind` command on
    /// `planes` planes (0 when commands take no bus time).
    #[inline]
    pub fn command_bus_ns(&self, kind: CommandKind, planes: usize) -> Ns {
        let (first, more) = self.command_bus[kind as usize];
        if first == 0 && more == 0 {
            return 0;
        }
        first + more * (planes as Ns).saturating_sub(1)
    }

    /// tR for a page at `page_in_block`.
    #[inline]
    pub fn read_ns(&self, page_in_block: u32) -> Ns {
        scaled(self.read, &self.read_factor, page_in_block)
    }

    /// tPROG for a page at `page_in_block`.
    #[inline]
    pub fn program_ns(&self, page_in_block: u32) -> Ns {
        scaled(self.program, &self.program_factor, page_in_block)
    }
}

#[inline]
fn scaled(base: Ns, factors: &[f64], page: u32) -> Ns {
    if factors.is_empty() {
        base
    } else {
        (base as f64 * factors[page as usize % factors.len()]).round() as Ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> TimingConfig {
        TimingConfig {
            cell: Cell::Mlc,
            read_us: 75.0,
            program_us: 750.0,
            erase_us: 3800.0,
            channel_mb_s: 333.0,
            command_us: 0.0,
            read_command_ns: 0.0,
            read_command_plane_ns: 0.0,
            program_command_ns: 0.0,
            program_command_plane_ns: 0.0,
            erase_command_ns: 0.0,
            erase_command_plane_ns: 0.0,
            per_page_type: false,
            sector_transfers: false,
        }
    }

    /// MQSim's ONFI NV-DDR2 cycles: a read 290 ns and 650 more per plane,
    /// a program 361 + 816, an erase 220 + 700; none by default.
    #[test]
    fn command_cycles_grow_by_plane() {
        let t = Timing::new(
            &TimingConfig {
                read_command_ns: 290.0,
                read_command_plane_ns: 650.0,
                program_command_ns: 361.0,
                program_command_plane_ns: 816.0,
                erase_command_ns: 220.0,
                erase_command_plane_ns: 700.0,
                ..cfg()
            },
            8192,
        );
        assert_eq!(t.command_bus_ns(CommandKind::Read, 1), 290);
        assert_eq!(t.command_bus_ns(CommandKind::Read, 2), 940);
        assert_eq!(t.command_bus_ns(CommandKind::Program, 2), 1177);
        assert_eq!(t.command_bus_ns(CommandKind::Erase, 4), 2320);
        let none = Timing::new(&cfg(), 8192);
        assert_eq!(none.command_bus_ns(CommandKind::Program, 2), 0);
    }

    #[test]
    fn converts_to_ns_and_bus_time() {
        let t = Timing::new(&cfg(), 8192);
        assert_eq!(t.read, 75_000);
        assert_eq!(t.erase, 3_800_000);
        // 8192 B at 333 MB/s = 24.6 us
        assert_eq!(t.xfer_page, 24_601);
        assert_eq!(t.xfer_ns(0), 24_601);
        assert_eq!(t.xfer_ns(16), 24_601);
        // 4 KiB: 12.3 us (MQSim's partial-page read).
        assert_eq!(t.xfer_ns(8), 12_300);
        let inf = Timing::new(
            &TimingConfig {
                channel_mb_s: 0.0,
                ..cfg()
            },
            8192,
        );
        assert_eq!(inf.xfer_page, 0);
    }

    #[test]
    fn page_type_factors_average_to_nominal() {
        let t = Timing::new(
            &TimingConfig {
                per_page_type: true,
                ..cfg()
            },
            8192,
        );
        assert_eq!(t.program_ns(0) + t.program_ns(1), 2 * 750_000);
        assert!(t.program_ns(0) < t.program_ns(1));
    }
}
