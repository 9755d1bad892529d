//! Memory one SSD allocates, computed from its config before building it
//! (the run's memory estimate, module `memory`): the FTL's tables and
//! per-block state, the controller's per-die/plane/chip/channel state, the
//! DRAM cache's bookkeeping and the cached mapping table.

use std::mem::size_of;

use super::config::SsdSpec;
use super::gc_job::GcJob;
use super::mapping::MappingCache;
use super::update_read::SectorState;
use crate::flash::channel::Channel;
use crate::flash::die::Die;
use crate::flash::Geometry;
use crate::ftl::footprint::FtlFootprint;
use crate::ftl::Ftl;

/// Bytes of one SSD's parts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DeviceFootprint {
    /// The FTL's tables.
    pub ftl: FtlFootprint,
    /// Dies, channels, GC jobs, scheduler queues and counters.
    pub controller: u64,
    /// DRAM cache bookkeeping (per cached page: map entry and LRU order).
    pub cache: u64,
    /// Cached mapping table (`[mapping]`): its entries and the mapping of
    /// the translation pages (built after preconditioning).
    pub mapping_cache: u64,
    /// Valid sectors of partly written pages (`ftl.update_reads`), at most.
    pub sector_state: u64,
}

impl DeviceFootprint {
    /// Peak bytes: preconditioning's buffer is freed before the run.
    pub fn peak(&self) -> u64 {
        let f = &self.ftl;
        f.mapping
            + f.blocks
            + self.controller
            + self.cache
            + self.mapping_cache
            + self.sector_state
            + f.variation.max(f.precondition)
    }
}

/// Scheduler queues and bookkeeping per die and per chip (a generous
/// allowance: their entries are transactions, bounded by the queue depth).
const SCHED_PER_UNIT: u64 = 128;

impl super::Ssd {
    /// What an SSD built from `spec` allocates (before any request).
    pub fn footprint(spec: &SsdSpec) -> DeviceFootprint {
        let geo = Geometry::new(spec.geometry);
        let per_die = size_of::<Die>() as u64 + 3 * 8 + SCHED_PER_UNIT;
        let per_chip = 4 * 8 + SCHED_PER_UNIT;
        let per_plane = size_of::<GcJob>() as u64 * spec.ftl.gc_jobs_per_plane as u64 + 16;
        let per_channel = size_of::<Channel>() as u64 + 2 * 8;
        let controller = per_die * geo.dies() as u64
            + per_chip * geo.chips() as u64
            + per_plane * geo.planes() as u64
            + per_channel * geo.channels as u64;
        let cache_pages = (spec.cache.mib * 1024.0 * 1024.0 / geo.page_size as f64) as u64;
        let logical = Ftl::logical_pages_for(&geo, spec.ftl);
        DeviceFootprint {
            ftl: Ftl::footprint(&geo, spec.ftl, spec.variation.enabled),
            controller,
            cache: cache_pages * 64,
            mapping_cache: MappingCache::footprint(spec.mapping, &geo, logical),
            sector_state: SectorState::footprint(spec.ftl.update_reads, geo.page_size, logical),
        }
    }
}
