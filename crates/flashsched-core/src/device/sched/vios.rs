//! VIOS — variation-aware I/O scheduler (J. Cui et al., NPC'16, §3).
//!
//! - Hierarchical-batch structured queue (§3.3): requests grouped into chip
//!   batches (no two requests of a batch share a chip), each split into
//!   channel batches (no two share a channel), sets as bit masks; separate
//!   read and write queues, reads preferred (§4.1: "read requests are always
//!   preferentially scheduled in both PIQ and VIOS"), write starvation
//!   bounded as for PIQ. Channel batches are released one after another
//!   (`channel_barrier`; released at once they would order nothing). The
//!   batch lists are the paper's read preference; in which order a chip
//!   then starts released sub-requests is the controller's (§4 runs on
//!   SSDsim, whose controller serves a chip's reads first): `order`,
//!   `in-order` by default, `reads-first` in the reproduction. See
//!   `batch.rs`.
//! - Global chip-state vector (§3.2, Eq. 2): NR per chip = queued requests
//!   touching it, +1 on arrival, −1 on issue.
//! - Variation-aware block allocation (§3.3, Fig. 4): when a request is
//!   issued, each of its sub-requests (its pages on one chip) gets a block
//!   from the fast end of the chip's speed-ordered tree if NR > 1 (others
//!   wait behind it), otherwise from the slow end (`free_choice`: the
//!   paper's "a slower block" read as the slowest; `median` and `in-order`
//!   are the other readings, reported beside it). The speed-ordered free
//!   blocks live in the FTL (`ftl/speed.rs`) and need `variation.enabled`;
//!   without it every block is equally fast and the preference is moot.

use super::batch::{BatchCore, BatchPolicy, Batched, StartOrder, Unit};
use serde::{Deserialize, Serialize};

use crate::ftl::SpeedPref;

use crate::error::SimResult;
use crate::flash::Geometry;
use crate::registry::{check_range, Params};

/// VIOS as a transaction scheduler.
pub type Vios = Batched<ViosPolicy>;

/// `[controller.vios]` tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ViosParams {
    /// Read batches issued in a row while writes wait (as PIQ's).
    pub max_read_batches: u32,
    /// Block for a write whose chip has no other queued request (NR ≤ 1).
    pub free_choice: FreeChoice,
    /// Channel batches released one after another (`true`, the
    /// hierarchical batches acting) or all at once (`false`: then VIOS
    /// orders work as PIQ does and differs only in block choice).
    pub channel_barrier: bool,
    /// Order a die (chip, under chip-level busy) starts released work in:
    /// `in-order` (default) or `reads-first` (as PIQ's).
    pub order: StartOrder,
}

/// `free_choice`: which block a non-conflicting write gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FreeChoice {
    /// The slowest free block (§3.3 "a slower block", taken to the end).
    Slowest,
    /// The ordinary frontier, as any scheduler's writes.
    InOrder,
    /// The free block of median speed.
    Median,
}

impl FreeChoice {
    pub(crate) fn pref(self) -> SpeedPref {
        match self {
            FreeChoice::Slowest => SpeedPref::Slow,
            FreeChoice::InOrder => SpeedPref::InOrder,
            FreeChoice::Median => SpeedPref::Median,
        }
    }
}

impl Default for ViosParams {
    fn default() -> Self {
        ViosParams {
            max_read_batches: 4,
            free_choice: FreeChoice::Slowest,
            channel_barrier: true,
            order: StartOrder::InOrder,
        }
    }
}

impl Params for ViosParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        check_range(
            key,
            "max_read_batches",
            self.max_read_batches as f64,
            1.0,
            1e6,
        )
    }
}

/// How VIOS sets up the batching core.
pub struct ViosPolicy;

impl BatchPolicy for ViosPolicy {
    const NAME: &'static str = "vios";
    const ABOUT: &'static str =
        "VIOS: hierarchical chip/channel batches, variation-aware block choice";
    type Params = ViosParams;

    fn core(p: ViosParams, g: &Geometry) -> BatchCore {
        BatchCore::new(g, Unit::Chip, true, true, p.max_read_batches)
            .with_free_choice(p.free_choice.pref())
            .with_channel_barrier(p.channel_barrier)
            .with_order(p.order)
    }
}
