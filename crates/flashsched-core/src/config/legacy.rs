//! Overrides that give a preset back the device it was before it carried
//! its peer's controller model, for results established on that device
//! (golden runs, reproductions, the AOS evaluation, bench cases). Python
//! reads them through the bindings (`flashsched.legacy`).

/// `ssdsim-default` as it was before it carried SSDsim's controller model
/// (docs/model.md, Controller): every die on its own with a FIFO, GC moves
/// interleaved with user I/O, an eager write buffer when a size is set,
/// writes acknowledged when programmed, whole pages on the bus and in the
/// buffer, reads paired like writes, one DRAM for all requests, no shared
/// reads, no command cycles on the bus, a host queue of 32 whose waiting
/// time every request counts.
pub const SSDSIM_PLAIN: &[&str] = &[
    "cache.mib=0",
    "cache.policy=eager",
    "cache.dram_mb_s=0",
    "cache.dram_latency_ns=0",
    "controller.scheduler=fifo",
    "controller.busy_unit=die",
    "controller.interleave=false",
    "controller.multiplane=off",
    "controller.write_ack=programmed",
    "ftl.gc_mode=interleaved",
    "ftl.gc_block_unit=plane",
    "cache.sectors=false",
    "cache.dram_serial=true",
    "controller.advanced_reads=true",
    "controller.overlap_data_in=false",
    "timing.sector_transfers=false",
    "ftl.update_reads=off",
    "controller.shared_reads=false",
    "timing.read_command_ns=0",
    "timing.program_command_ns=0",
    "timing.program_command_plane_ns=0",
    "controller.read_commands_first=false",
    "host.queue_depth=32",
    "host.buffered_latency=from-arrival",
];
