//! How GC work shares the flash with user I/O (`ftl.gc_mode`), as a rule on
//! which transactions may start, applied to every scheduler through
//! `PickCtx::can_issue`:
//!
//! - `interleaved`: no rule; GC moves are transactions in the scheduler's
//!   order like any other.
//! - `blocking`: while a plane runs a GC job, user transactions to its
//!   plane, die or chip (`ftl.gc_block_unit`) wait until the victim is
//!   erased. This is the uninterruptible GC that SSDsim models and the
//!   Amphibian paper assumes (§2.2: a chip in GC cannot serve requests).
//! - `preemptive`: a die (a chip, for schedulers with chip queues) is first
//!   offered user work only; GC work is offered when the scheduler has no
//!   user work for it, or when its chip is urgent: a plane below
//!   `ftl.gc_hard_threshold` free blocks, or down to the last free block,
//!   which user writes may not take (MQSim's preemptible GC,
//!   `GC_is_in_urgent_mode`). The scheduler's own policy (batches,
//!   re-ordering sets) decides which user work it can serve; GC never waits
//!   on user work the scheduler is holding back.

use super::tx::{Origin, Tx};
use crate::divisor::Divisor;
use crate::flash::Geometry;
use crate::ftl::{Ftl, GcMode, GcUnit};

/// The GC-mode rule and the counts it needs.
#[derive(Debug, Clone)]
pub struct GcGate {
    mode: GcMode,
    geo: Geometry,
    /// Planes per blocking unit (1, planes per die, or planes per chip).
    unit_planes: Divisor,
    /// GC jobs running per blocking unit (`blocking`).
    held: Vec<u32>,
}

impl GcGate {
    pub(super) fn new(mode: GcMode, unit: GcUnit, geo: &Geometry) -> GcGate {
        let unit_planes = match unit {
            GcUnit::Plane => 1,
            GcUnit::Die => geo.planes_per_die,
            GcUnit::Chip => geo.planes_per_die * geo.dies_per_chip,
        };
        GcGate {
            mode,
            geo: *geo,
            unit_planes: Divisor::new(unit_planes),
            held: vec![0; (geo.planes() / unit_planes) as usize],
        }
    }

    /// Whether the rule lets `tx` start now; `user_only` while the device
    /// offers a die user work first (`preemptive`).
    #[inline]
    pub fn allows(&self, tx: &Tx, ftl: &Ftl, user_only: bool) -> bool {
        match (self.mode, tx.origin) {
            (GcMode::Interleaved, _) => true,
            (GcMode::Blocking, Origin::User | Origin::Mapping | Origin::Update) => {
                !self.holds_user(tx.plane)
            }
            (GcMode::Preemptive, Origin::Gc) => {
                !user_only || self.chip_urgent(self.geo.chip_of_die(tx.die), ftl)
            }
            _ => true,
        }
    }

    /// Whether the device offers user work first (`preemptive`).
    #[inline]
    pub fn user_first(&self) -> bool {
        self.mode == GcMode::Preemptive
    }

    /// Whether blocking GC holds user work to `plane` back now.
    #[inline]
    pub fn holds_user(&self, plane: u32) -> bool {
        self.mode == GcMode::Blocking && self.held[self.unit_planes.quotient(plane) as usize] > 0
    }

    /// Whether any plane of `chip` needs GC before user I/O.
    pub fn chip_urgent(&self, chip: u32, ftl: &Ftl) -> bool {
        let ppc = self.geo.planes_per_die * self.geo.dies_per_chip;
        (chip * ppc..(chip + 1) * ppc).any(|p| ftl.gc_urgent(p))
    }

    /// A GC job began in `plane`.
    pub(super) fn gc_began(&mut self, plane: u32) {
        self.held[self.unit_planes.quotient(plane) as usize] += 1;
    }

    /// A GC job in `plane` ended. Under `blocking`, returns the dies whose
    /// user work it was holding back (to be offered work again).
    pub(super) fn gc_ended(&mut self, plane: u32) -> Option<std::ops::Range<u32>> {
        let unit = self.unit_planes.quotient(plane) as usize;
        self.held[unit] -= 1;
        if self.mode != GcMode::Blocking || self.held[unit] != 0 {
            return None;
        }
        let first_plane = unit as u32 * self.unit_planes.get();
        let first = self.geo.die_of_plane(first_plane);
        let last = self
            .geo
            .die_of_plane(first_plane + self.unit_planes.get() - 1);
        Some(first..last + 1)
    }

    /// Whether any rule applies (`interleaved` has none).
    pub fn active(&self) -> bool {
        self.mode != GcMode::Interleaved
    }
}
