//! `[ftl]`: the FTL's configuration section.

use serde::{Deserialize, Serialize};

use super::{Allocation, GcPolicy};
use crate::error::{SimError, SimResult};
use crate::flash::timing::range;
use crate::flash::GeometryConfig;

/// Flash translation layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// Fraction of physical capacity hidden from the host.
    pub overprovisioning: f64,
    /// `static:XXXX` (a permutation of C, W, D, P; first letter varies
    /// fastest) or `dynamic`.
    pub allocation: Allocation,
    /// GC starts in a plane when its free-block fraction drops below this.
    pub gc_threshold: f64,
    /// How GC picks its victim block.
    pub gc_policy: GcPolicy,
    /// Candidates sampled by d-choice, or blocks sampled by `rga`.
    #[serde(default = "default_d_choice")]
    pub gc_d_choice: u32,
    /// GC jobs (victims being collected) a plane may run at once. 1: one,
    /// started whenever the plane is below its threshold and idle. More
    /// (MQSim: 10, `max_ongoing_gc_reqs_per_plane`): one more victim each
    /// time a write frontier of the plane opens a block or an erase ends
    /// there while it is below its threshold, up to this many.
    #[serde(default = "default_gc_jobs")]
    pub gc_jobs_per_plane: u32,
    /// GC page moves in flight per job: 1 copies page by page so user I/O
    /// interleaves; 0 queues the whole victim at once (a burst).
    #[serde(default = "default_gc_window")]
    pub gc_move_window: u32,
    /// Move GC pages with on-die copyback (no channel transfer).
    #[serde(default)]
    pub copyback: bool,
    /// Logical fill fraction reached by the steady-state preconditioner (0 = fresh).
    #[serde(default)]
    pub precondition_fill: f64,
    /// How GC work shares the flash with user I/O.
    #[serde(default)]
    pub gc_mode: GcMode,
    /// With `gc_mode = "blocking"`: the unit a GC job holds for its whole
    /// duration (user I/O to it waits).
    #[serde(default)]
    pub gc_block_unit: GcUnit,
    /// User writes to a plane wait while it has fewer free blocks than this
    /// (even with room in their open block), and GC starts at this level at
    /// the latest. 0: only a plane's last free block is held back from user
    /// writes. MQSim: 10, its limit of GC operations per plane
    /// (`max_ongoing_gc_reqs_per_plane`), which it uses for both.
    #[serde(default)]
    pub gc_write_floor: u32,
    /// With `gc_mode = "preemptive"`: below this fraction of free blocks in a
    /// plane GC becomes urgent and goes before user I/O (MQSim's hard
    /// threshold); between it and `gc_threshold` user I/O goes first.
    #[serde(default = "default_gc_hard")]
    pub gc_hard_threshold: f64,
    /// Whether a program carrying only part of a page first reads the
    /// page's other valid sectors from the old copy (read-modify-write).
    #[serde(default)]
    pub update_reads: UpdateReads,
    /// When a write frontier takes its next block.
    #[serde(default)]
    pub frontiers: Frontiers,
    /// Translation pages (the cached mapping table's, `mapping.cmt_kib`)
    /// get a write frontier of their own in every plane (MQSim's), instead
    /// of sharing the host's.
    #[serde(default)]
    pub mapping_frontier: bool,
}

/// `ftl.frontiers`: when a plane's write frontier (the open block of a
/// stream: host, GC, translation) takes a free block.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Frontiers {
    /// When the stream's next program needs one.
    #[default]
    Lazy,
    /// As soon as the previous one fills, and one each before the run
    /// (MQSim's block manager: a plane always holds its data, GC and
    /// translation frontiers' blocks, so it has that many fewer free).
    Eager,
}

/// `ftl.update_reads`: partial-page writes (`device/update_read.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UpdateReads {
    /// A partial page is programmed whole, with no read (the old copy's
    /// other sectors are taken as known).
    #[default]
    Off,
    /// MQSim's update read: a program whose sectors do not cover the
    /// page's valid ones (those written so far, or for a page first read
    /// before any write, that read's) waits for a read of the rest.
    Mqsim,
    /// SSDsim's: as `mqsim`, but every read's sectors count as valid (its
    /// trace pre-pass marks them before the run), and under static
    /// allocation the program carries the merged sectors.
    Ssdsim,
}

/// `ftl.gc_mode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GcMode {
    /// GC moves are transactions like any other, in the scheduler's order.
    #[default]
    Interleaved,
    /// A GC job holds its plane, die or chip (`gc_block_unit`) until its
    /// block is erased (SSDsim's uninterruptible GC).
    Blocking,
    /// User I/O goes before GC moves until a plane falls below
    /// `gc_hard_threshold` (MQSim's preemptible GC).
    Preemptive,
}

/// `ftl.gc_block_unit`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GcUnit {
    /// Hold the victim's plane.
    #[default]
    Plane,
    /// Hold the victim's die.
    Die,
    /// Hold the victim's chip.
    Chip,
}

fn default_gc_hard() -> f64 {
    0.005
}

fn default_d_choice() -> u32 {
    4
}

fn default_gc_jobs() -> u32 {
    1
}

fn default_gc_window() -> u32 {
    1
}

impl FtlConfig {
    /// Range checks; each error names its key and the allowed range.
    pub fn validate(&self) -> SimResult<()> {
        let f = self;
        range("ftl.overprovisioning", f.overprovisioning, 0.0, 0.9)?;
        range("ftl.gc_threshold", f.gc_threshold, 0.0, 0.5)?;
        range("ftl.precondition_fill", f.precondition_fill, 0.0, 1.0)?;
        range(
            "ftl.gc_hard_threshold",
            f.gc_hard_threshold,
            0.0,
            f.gc_threshold.max(0.0),
        )?;
        if f.gc_d_choice == 0 || f.gc_d_choice > 1024 {
            return Err(SimError::config(
                "ftl.gc_d_choice",
                format!("{} is outside [1, 1024]", f.gc_d_choice),
            ));
        }
        if f.gc_jobs_per_plane == 0 || f.gc_jobs_per_plane > 64 {
            return Err(SimError::config(
                "ftl.gc_jobs_per_plane",
                format!("{} is outside [1, 64]", f.gc_jobs_per_plane),
            ));
        }
        Ok(())
    }

    /// `validate`, and the checks that need the geometry.
    pub fn validate_for(&self, g: &GeometryConfig) -> SimResult<()> {
        self.validate()?;
        // Need at least a couple of spare blocks per plane for GC to make progress.
        if self.gc_write_floor >= g.blocks_per_plane {
            return Err(SimError::config(
                "ftl.gc_write_floor",
                format!(
                    "{} free blocks must stay below geometry.blocks_per_plane ({})",
                    self.gc_write_floor, g.blocks_per_plane
                ),
            ));
        }
        if self.gc_jobs_per_plane >= g.blocks_per_plane {
            return Err(SimError::config(
                "ftl.gc_jobs_per_plane",
                format!(
                    "{} victims at once must stay below geometry.blocks_per_plane ({})",
                    self.gc_jobs_per_plane, g.blocks_per_plane
                ),
            ));
        }
        let spare = (g.blocks_per_plane as f64 * self.overprovisioning).floor() as u32;
        if spare < 2 {
            return Err(SimError::config(
                "ftl.overprovisioning",
                format!(
                    "{} leaves {spare} spare blocks per plane; GC needs at least 2 \
                     (raise it or blocks_per_plane)",
                    self.overprovisioning
                ),
            ));
        }
        Ok(())
    }
}
