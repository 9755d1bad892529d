//! The device's counters, reported at the end of `flash` in the summary.

/// Device-side counters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeviceStats {
    /// Page reads sensed on flash (user and GC).
    pub flash_reads: u64,
    /// Page programs on flash (user, GC and copyback).
    pub flash_programs: u64,
    /// User page reads sensed on flash.
    pub user_reads: u64,
    /// Page reads made by GC to move valid pages.
    pub gc_reads: u64,
    /// User page reads served from controller DRAM (data still in flight or
    /// buffered for a write).
    pub dram_read_hits: u64,
    /// Programs whose data had been superseded by a later write before they
    /// started (written, immediately stale).
    pub superseded_programs: u64,
    /// Reads whose block was erased between translation and start.
    pub reads_relocated: u64,
    /// User programs sent to another plane at start because theirs had no
    /// page and nothing to reclaim (`Ftl::replan`, dynamic allocation).
    pub programs_replanned: u64,
    /// Program/erase suspensions (P/E suspension).
    pub suspensions: u64,
    /// Resumptions of suspended programs/erases.
    pub resumes: u64,
    /// Write-caused interference (AOS §IV-B.2): user page reads that waited
    /// while a program or erase held their die.
    pub interfered_reads: u64,
    /// Their total wait, ns.
    pub interference_wait_ns: u64,
    /// User read requests that reached flash.
    pub read_requests: u64,
    /// User write requests that reached flash.
    pub write_requests: u64,
    /// Read requests that found a chip they need already holding queued or
    /// running work (VIOS Table 1 conflicts).
    pub read_conflicts: u64,
    /// Write requests that found such a chip.
    pub write_conflicts: u64,
    /// Flash commands started (a multi-plane command counts once).
    pub flash_commands: u64,
    /// Operations those commands carried (`command_ops / flash_commands` is
    /// pages per command).
    pub command_ops: u64,
    /// Cached mapping table (`[mapping]`): lookups by host page transactions.
    pub cmt_queries: u64,
    /// Lookups that found their entry in DRAM.
    pub cmt_hits: u64,
    /// Flash reads of translation pages.
    pub mapping_reads: u64,
    /// Write-backs of translation pages that evictions asked for.
    pub cmt_writebacks: u64,
    /// Flash reads of the sectors partial page programs did not carry
    /// (`ftl.update_reads`).
    pub update_reads: u64,
    /// Host page reads done as SSDsim's shared reads, without flash
    /// (`controller.shared_reads`).
    pub shared_reads: u64,
    /// Pages skipped to level two-plane programs (`multiplane =
    /// "same-block"`): no data, reclaimed by GC.
    pub wasted_pages: u64,
}
