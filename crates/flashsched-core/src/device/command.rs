//! Flash commands: what a die (and, under chip-level busy, its chip) runs at
//! once. A command is one operation, or a multi-plane one (several
//! operations of one type on distinct planes of one die sharing one cell
//! time); under `busy_unit = "chip"` a chip takes a new command only when
//! all its dies are idle, unless die interleaving lets several dies start
//! together.

use super::config::{BusyUnit, ControllerConfig, MultiPlane};
use super::tx::TxId;
use crate::engine::Ns;
use crate::flash::Geometry;

/// Command bookkeeping of one device.
#[derive(Debug)]
pub(super) struct Commands {
    pub(super) unit: BusyUnit,
    pub(super) interleave: bool,
    pub(super) multiplane: MultiPlane,
    /// Command overhead of each plane beyond the first.
    pub(super) plane_ns: Ns,
    /// Each die's running command, lead first.
    pub(super) members: Vec<Vec<TxId>>,
    /// Members of each die's running command not finished yet.
    pub(super) left: Vec<u32>,
    /// A suspended command's members and `left`, per die.
    pub(super) suspended: Vec<(Vec<TxId>, u32)>,
    /// Dies running a command, per chip (`busy_unit = "chip"`).
    pub(super) chip_active: Vec<u32>,
    /// When each chip's running group of commands started (interleaved
    /// commands join it at that instant).
    pub(super) chip_since: Vec<Ns>,
    /// The die after the last one that started, per chip: where offering
    /// the chip's dies starts when it frees (round-robin, so no die is
    /// always offered first).
    pub(super) chip_next: Vec<u32>,
    /// Scratch for the members being assembled.
    pub(super) scratch: Vec<TxId>,
    /// `controller.advanced_reads = false`: a read is a one-page command
    /// holding its chip alone.
    pub(super) lone_reads: bool,
    /// Per chip: its running command is such a lone read (nothing joins).
    pub(super) solo: Vec<bool>,
    /// `controller.overlap_data_in`.
    pub(super) overlap: bool,
    /// `controller.read_commands_first`.
    pub(super) read_first: bool,
    /// Per chip, the overlapped data-in of the group started at `.0`: its
    /// start and the bus end it reserved (see `Ssd::overlapped_data_in`).
    pub(super) overlap_group: Vec<(Ns, Ns, Ns)>,
}

impl Commands {
    pub(super) fn new(c: &ControllerConfig, geo: &Geometry) -> Self {
        let dies = geo.dies() as usize;
        let chips = geo.chips() as usize;
        Commands {
            unit: c.busy_unit,
            interleave: c.interleave,
            multiplane: c.multiplane,
            plane_ns: (c.multiplane_us * 1000.0).round() as Ns,
            members: vec![Vec::new(); dies],
            left: vec![0; dies],
            suspended: vec![(Vec::new(), 0); dies],
            chip_active: vec![0; chips],
            chip_since: vec![0; chips],
            chip_next: vec![0; chips],
            scratch: Vec::new(),
            lone_reads: !c.advanced_reads,
            solo: vec![false; chips],
            overlap: c.overlap_data_in,
            read_first: c.read_commands_first,
            overlap_group: vec![(Ns::MAX, 0, 0); chips],
        }
    }

    /// Whether chip `chip` may not take a new command at `now`: under
    /// chip-level busy one of its dies is running one, and interleaving
    /// does not let this one join the group started now.
    #[inline]
    pub(super) fn chip_blocked(&self, chip: u32, now: Ns) -> bool {
        let c = chip as usize;
        self.unit == BusyUnit::Chip
            && self.chip_active[c] > 0
            && !(self.interleave && self.chip_since[c] == now && !self.solo[c])
    }

    /// Extra command overhead of an `n`-plane command.
    #[inline]
    pub(super) fn overhead(&self, n: usize) -> Ns {
        self.plane_ns * (n as Ns).saturating_sub(1)
    }
}
