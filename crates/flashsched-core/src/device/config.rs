//! `[controller]`: the device controller below the FTL — the transaction
//! scheduler, every transaction scheduler's tunables table, and the NAND
//! suspend timing any suspending scheduler uses; `[interface]`, the host
//! link; `[cache]`, the DRAM data cache; `[mapping]`, where the mapping
//! table lives.

use serde::{Deserialize, Serialize};

use super::sched::REGISTRY;
use crate::error::{SimError, SimResult};
use crate::flash::timing::range;
use crate::flash::{GeometryConfig, TimingConfig, VariationConfig};
use crate::ftl::FtlConfig;
use crate::registry::SchedTables;

/// The sections of a device config an SSD is built from.
#[derive(Debug, Clone, Copy)]
pub struct SsdSpec<'a> {
    /// `[geometry]`.
    pub geometry: &'a GeometryConfig,
    /// `[timing]`.
    pub timing: &'a TimingConfig,
    /// `[ftl]`.
    pub ftl: &'a FtlConfig,
    /// `[controller]`.
    pub controller: &'a ControllerConfig,
    /// `[variation]`.
    pub variation: &'a VariationConfig,
    /// `[interface]`.
    pub interface: &'a InterfaceConfig,
    /// `[cache]`.
    pub cache: &'a CacheConfig,
    /// `[mapping]`.
    pub mapping: &'a MappingConfig,
}

impl SsdSpec<'_> {
    /// Every section's checks; each error names its key.
    pub fn validate(&self) -> SimResult<()> {
        self.geometry.validate()?;
        self.timing.validate()?;
        self.ftl.validate_for(self.geometry)?;
        self.controller.validate()?;
        self.interface.validate()?;
        self.cache.validate()?;
        self.mapping.validate()?;
        let sectors = self.geometry.page_size / 512;
        if self.mapping.read_sectors > sectors {
            return Err(SimError::config(
                "mapping.read_sectors",
                format!(
                    "{} sectors is more than a {}-byte page holds ({sectors})",
                    self.mapping.read_sectors, self.geometry.page_size
                ),
            ));
        }
        self.variation.validate()
    }
}

/// The unit a flash command keeps busy: MQSim and SSDsim dispatch to a chip
/// only when all its dies are idle; `die` lets each die take work alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BusyUnit {
    /// Each die is dispatched to on its own.
    Die,
    /// A chip takes a command only when all its dies are idle.
    Chip,
}

/// Multi-plane commands: up to `planes_per_die` operations of one type on
/// distinct planes of one die share one cell time (their transfers still
/// take turns on the channel).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MultiPlane {
    /// One plane per command.
    Off,
    /// ONFI's address rule: reads and programs of the same page offset in
    /// their blocks; erases of any blocks. A program's offset is the one
    /// its plane's open block gives it when it starts.
    Onfi,
    /// ONFI's rule on the offsets MQSim checks: its address mapping unit
    /// gives a program its page when the program is queued, so the k-th
    /// host program waiting on a plane has the page k after the plane's
    /// next one (`Address_Mapping_Unit_Page_Level`,
    /// `TSU_Base::issue_command_to_chip`); a GC program likewise on the
    /// GC frontier, queued when its read ends.
    #[serde(rename = "onfi-queued")]
    OnfiQueued,
    /// Any pages of distinct planes.
    Relaxed,
    /// SSDsim's two-plane program (`make_level_page`): the die's lowest
    /// plane leads; the planes' next blocks have the same index and a
    /// companion's next page is not past the lead's; the companion is
    /// levelled up to the lead's page,
    /// the pages skipped holding no data (`flash.wasted_pages`). Reads as
    /// `onfi` within blocks of the same index; erases of any blocks.
    #[serde(rename = "same-block")]
    SameBlock,
}

/// `controller.write_ack`: when a page written to flash stops holding up
/// what waits for it — the write request it belongs to (without a cache)
/// or the cache room it held (a flushed page).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteAck {
    /// When its program (tPROG) ends.
    Programmed,
    /// When its data has crossed the channel into the chip's page register
    /// (SSDsim: the die stays busy for tPROG after that).
    DataIn,
}

/// `controller.dispatch`: the instants at which an idle chip (or die) is
/// offered new work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Dispatch {
    /// As soon as it frees (or work arrives for it); its transfers then
    /// queue on the channel first come, first served.
    UnitFree,
    /// MQSim's TSU: only at instants its channel is idle with no read
    /// data-out waiting for it (waiting data-outs go first), the channel's
    /// chips being offered work round robin until a transfer takes the bus.
    ChannelIdle,
}

/// Device controller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ControllerConfig {
    /// Flash transaction scheduler name (see [`REGISTRY`]).
    pub scheduler: String,
    /// What a command keeps busy: `die` or `chip`.
    pub busy_unit: BusyUnit,
    /// With `busy_unit = "chip"`: idle dies of an idle chip may start
    /// commands together (die interleaving); the chip is busy until all end.
    pub interleave: bool,
    /// Multi-plane command assembly.
    pub multiplane: MultiPlane,
    /// Command overhead of each plane beyond the first (ONFI tDBSY), µs.
    pub multiplane_us: f64,
    /// Reads may form multi-plane commands and join (or be joined by)
    /// interleaved commands. `false`: every read is a command of its own
    /// that holds its chip alone, as in SSDsim, whose two-plane and
    /// interleave read search never returns a pair (`services_2_r_wait`
    /// passes its result pointers by value), so its reads run one page at
    /// a time.
    pub advanced_reads: bool,
    /// The pages of a program command over several planes all begin their
    /// data-in when the command starts, and the bus is held for the longest
    /// (SSDsim's `compute_serve_time` for its interleaved two-plane
    /// command); an interleaved command joining such a group at the same
    /// instant overlaps it too. `false`: data-ins cross the bus one after
    /// another (one bus, as ONFI and MQSim have it).
    pub overlap_data_in: bool,
    /// A host page read while another read of the same physical page is
    /// queued or running is done 1 µs later without flash (SSDsim's
    /// `creat_sub_request` finds it in its channel's read queue).
    pub shared_reads: bool,
    /// A read's command cycles (`timing.read_command_ns`) wait only for the
    /// transfer under way on the bus, going before data-outs waiting for it
    /// (SSDsim's step loop sends a waiting read's command before any
    /// data-out); `false`: after every data-out that asked first (MQSim).
    pub read_commands_first: bool,
    /// When a written page is acknowledged (see [`WriteAck`]).
    pub write_ack: WriteAck,
    /// When idle chips are offered work (see [`Dispatch`]).
    pub dispatch: Dispatch,
    /// ISPP program loops (suspension points are loop boundaries).
    pub program_loops: u32,
    /// Erase pulses (suspension points are pulse boundaries).
    pub erase_loops: u32,
    /// Time to suspend (added before the suspending operation starts).
    pub suspend_us: f64,
    /// Overhead added to the remaining time when an operation resumes.
    pub resume_us: f64,
    /// Each transaction scheduler's tunables (`[controller.<name>]`), by
    /// name; a resolved config holds every registered scheduler's table.
    #[serde(flatten)]
    pub sched: SchedTables,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        ControllerConfig {
            scheduler: "fifo".into(),
            busy_unit: BusyUnit::Die,
            interleave: false,
            multiplane: MultiPlane::Off,
            multiplane_us: 0.0,
            advanced_reads: true,
            overlap_data_in: false,
            shared_reads: false,
            read_commands_first: false,
            write_ack: WriteAck::Programmed,
            dispatch: Dispatch::UnitFree,
            program_loops: 10,
            erase_loops: 5,
            suspend_us: 5.0,
            resume_us: 10.0,
            sched: SchedTables::new(),
        }
    }
}

impl ControllerConfig {
    /// Range checks, the scheduler name and every tunables table; each
    /// error names its key.
    pub fn validate(&self) -> SimResult<()> {
        range("controller.suspend_us", self.suspend_us, 0.0, 1e4)?;
        range("controller.resume_us", self.resume_us, 0.0, 1e4)?;
        range("controller.multiplane_us", self.multiplane_us, 0.0, 1e4)?;
        if self.interleave && self.busy_unit == BusyUnit::Die {
            return Err(SimError::config(
                "controller.interleave",
                "die interleaving needs busy_unit = \"chip\" (under \"die\" every die already \
                 runs on its own)",
            ));
        }
        for (key, v) in [
            ("controller.program_loops", self.program_loops),
            ("controller.erase_loops", self.erase_loops),
        ] {
            if v == 0 || v > 1_000_000 {
                return Err(SimError::config(
                    key,
                    format!("{v} is outside [1, 1000000]"),
                ));
            }
        }
        REGISTRY.validate(&self.scheduler, &self.sched)
    }
}

/// `[interface]`: the host link requests and their data cross (MQSim's
/// host interface; SSDsim has none). `none` leaves it out (zero time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    /// No host link: requests reach the controller at once.
    None,
    /// NVMe over PCIe: full duplex (each direction at `rate_mb_s`).
    Nvme,
    /// SATA: half duplex (one transfer at a time, either direction).
    Sata,
}

/// The host interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct InterfaceConfig {
    /// Link type (`none`: requests reach the controller instantly).
    pub kind: LinkKind,
    /// Payload rate per direction, MB/s (10^6 B/s); 0 = the kind's usual
    /// rate: NVMe 4000 (PCIe 3 ×4, MQSim's 4 lanes × 1 GB/s), SATA 600.
    pub rate_mb_s: f64,
    /// Fixed cost per request (command fetch, doorbells, completion
    /// message), µs, added before the completion reaches the host.
    pub command_us: f64,
    /// PCIe packets: a message crosses the link cut into TLPs of at most
    /// this many payload bytes, each carrying `tlp_overhead_bytes` more
    /// (MQSim: 128 and 20 + 6 + 2 = 28: header, data-link and physical
    /// layer). 0: messages move their payload only.
    pub tlp_payload_bytes: u32,
    /// Bytes each TLP adds to its payload.
    pub tlp_overhead_bytes: u32,
    /// NVMe's queue messages cross the link too (MQSim's
    /// `Host_Interface_NVMe`): the host's doorbell write, the device's
    /// read of the 64-byte submission entry, a write's request for its
    /// data, and the 16-byte completion entry after a request's data.
    pub nvme_messages: bool,
}

impl Default for InterfaceConfig {
    fn default() -> Self {
        InterfaceConfig {
            kind: LinkKind::None,
            rate_mb_s: 0.0,
            command_us: 0.0,
            tlp_payload_bytes: 0,
            tlp_overhead_bytes: 0,
            nvme_messages: false,
        }
    }
}

impl InterfaceConfig {
    /// The link's rate, MB/s (the kind's default when unset).
    pub fn rate(&self) -> f64 {
        match (self.kind, self.rate_mb_s) {
            (_, r) if r > 0.0 => r,
            (LinkKind::Sata, _) => 600.0,
            _ => 4000.0,
        }
    }

    /// Range checks; each error names its key and the allowed range.
    pub fn validate(&self) -> SimResult<()> {
        range("interface.rate_mb_s", self.rate_mb_s, 0.0, 1e7)?;
        range(
            "interface.tlp_payload_bytes",
            self.tlp_payload_bytes as f64,
            0.0,
            1e6,
        )?;
        range(
            "interface.tlp_overhead_bytes",
            self.tlp_overhead_bytes as f64,
            0.0,
            1e6,
        )?;
        if self.nvme_messages && self.kind != LinkKind::Nvme {
            return Err(SimError::config(
                "interface.nvme_messages",
                "needs interface.kind = \"nvme\"",
            ));
        }
        range("interface.command_us", self.command_us, 0.0, 1e6)
    }
}

/// `cache.policy`: when written pages leave the DRAM data cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CachePolicy {
    /// Every write is flushed to flash at once; the cache only absorbs
    /// bursts (a write buffer).
    Eager,
    /// Written pages stay until the cache is full; then the least recently
    /// written are flushed. A rewrite of a page still held replaces it in
    /// DRAM without a flash program.
    Lru,
    /// SSDsim's buffer: an LRU whose writes never wait for room. A write
    /// that needs room flushes the least recently used pages at once and
    /// completes when they are written (`controller.write_ack`); one that
    /// needs none, after its DRAM write. Reads of held pages refresh them.
    SsdsimLru,
    /// MQSim's destage buffer (`Data_Cache_Manager_Flash_Advanced`): a page
    /// not written since the hot window began is written back at once
    /// (cold); a page written again within it stays in DRAM (hot; the least
    /// recently used is written back when the cache is full). Writes are
    /// admitted page by page while less than `backpressure_kib` of written
    /// data is on its way to flash.
    HotCold,
}

/// `[cache]`: the controller's DRAM data cache for writes. Reads of pages
/// it holds are answered from DRAM.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CacheConfig {
    /// Capacity, MiB (0 = none: writes complete when programmed).
    pub mib: f64,
    /// When written pages leave the cache.
    pub policy: CachePolicy,
    /// DRAM transfer rate, MB/s; 0 = DRAM takes no time. MQSim's default
    /// DRAM (800 MT/s, 16 bit) moves 1600 MB/s.
    pub dram_mb_s: f64,
    /// Latency before each DRAM transfer, ns (MQSim: tRCD + tCL = 26).
    pub dram_latency_ns: f64,
    /// DRAM row, bytes (0 = no rows: every byte at `dram_mb_s`). A longer
    /// transfer is timed as MQSim times it: whole rows in pairs, each pair
    /// at one row's bytes plus `dram_latency_ns` and `dram_precharge_ns`,
    /// then one `dram_latency_ns`, and the bytes past whole rows almost
    /// free (see `front.rs`).
    pub dram_row_bytes: u32,
    /// Row precharge, ns (MQSim's tRP), with `dram_row_bytes`.
    pub dram_precharge_ns: f64,
    /// DRAM requests queue for one another (`true`, a shared resource);
    /// `false`: each takes its own DRAM time from when it asks, as SSDsim
    /// charges every buffer-served request a fixed 1000 ns however many
    /// arrive together (`buffer_management`).
    pub dram_serial: bool,
    /// `hot-cold`: a page written again within this many ms of the window's
    /// start is hot (kept in DRAM). The pages seen are forgotten at the
    /// first write after the window ends, which starts the next one.
    pub hot_window_ms: f64,
    /// `hot-cold`: written data on its way to flash (in 512-byte sectors of
    /// what the host wrote), KiB, beyond which writes wait; 0 = one page
    /// per plane (MQSim's `back_pressure_buffer_max_depth`).
    pub backpressure_kib: f64,
    /// `ssdsim-lru`: count the cache's room in 512-byte sectors and write
    /// back only the sectors a page holds, as SSDsim's buffer does (its
    /// `buffer_sector_count`); `false` = whole pages.
    pub sectors: bool,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            mib: 0.0,
            policy: CachePolicy::Eager,
            dram_mb_s: 0.0,
            dram_latency_ns: 0.0,
            dram_row_bytes: 0,
            dram_precharge_ns: 0.0,
            dram_serial: true,
            hot_window_ms: 1000.0,
            backpressure_kib: 0.0,
            sectors: false,
        }
    }
}

impl CacheConfig {
    /// Range checks; each error names its key and the allowed range.
    pub fn validate(&self) -> SimResult<()> {
        range("cache.mib", self.mib, 0.0, 1e6)?;
        range("cache.dram_mb_s", self.dram_mb_s, 0.0, 1e7)?;
        range("cache.dram_latency_ns", self.dram_latency_ns, 0.0, 1e6)?;
        range("cache.dram_row_bytes", self.dram_row_bytes as f64, 0.0, 1e9)?;
        range("cache.dram_precharge_ns", self.dram_precharge_ns, 0.0, 1e6)?;
        range("cache.hot_window_ms", self.hot_window_ms, 0.0, 1e9)?;
        if self.sectors && self.policy != CachePolicy::SsdsimLru {
            return Err(SimError::config(
                "cache.sectors",
                "sector-counted room is SSDsim's buffer: it needs cache.policy = \"ssdsim-lru\" \
                 (the ssdsim-default preset sets it: set cache.sectors = false with another policy)",
            ));
        }
        range("cache.backpressure_kib", self.backpressure_kib, 0.0, 1e9)
    }
}

/// `[mapping]`: where the page-mapping table lives. By default all of it is
/// in controller DRAM and translation costs nothing. `cmt_kib` > 0 caches
/// only that much of it (MQSim's cached mapping table, as in DFTL): the
/// table lives in translation pages on flash, a miss reads one before the
/// request's page can go, and evicting a changed entry writes its
/// translation page back (read, merge, program).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MappingConfig {
    /// Capacity of the cached mapping table, KiB (0 = the whole table in
    /// DRAM). MQSim's shipped config: 2048.
    pub cmt_kib: f64,
    /// Bytes per cached entry; 0 = MQSim's size: two physical addresses
    /// and a sector bitmap, ⌈(2·log2(pages) + sectors per page) / 8⌉.
    pub entry_bytes: u32,
    /// Bytes per entry in a translation page; 0 = MQSim's size:
    /// ⌈(log2(pages) + sectors per page) / 8⌉.
    pub translation_entry_bytes: u32,
    /// What a write-back does after its merge read.
    pub writeback: Writeback,
    /// 512-byte sectors a translation read moves over the channel (0 = the
    /// whole page). MQSim: 1 (it reads one sector of the translation page).
    pub read_sectors: u32,
}

/// `mapping.writeback`: the fate of a translation page written back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Writeback {
    /// Programmed to flash (a new copy; the old one becomes garbage).
    Program,
    /// As MQSim (7ec40e3) does: its program is queued but the transaction
    /// scheduler never serves that queue, and the page's content stays in
    /// DRAM for good (later misses on it read no flash). For comparing
    /// with MQSim only.
    Unserved,
}

impl Default for MappingConfig {
    fn default() -> Self {
        MappingConfig {
            cmt_kib: 0.0,
            entry_bytes: 0,
            translation_entry_bytes: 0,
            writeback: Writeback::Program,
            read_sectors: 0,
        }
    }
}

impl MappingConfig {
    /// Range checks; each error names its key and the allowed range.
    pub fn validate(&self) -> SimResult<()> {
        range("mapping.cmt_kib", self.cmt_kib, 0.0, 1e8)?;
        range("mapping.entry_bytes", self.entry_bytes as f64, 0.0, 65536.0)?;
        range(
            "mapping.read_sectors",
            self.read_sectors as f64,
            0.0,
            65536.0,
        )?;
        range(
            "mapping.translation_entry_bytes",
            self.translation_entry_bytes as f64,
            0.0,
            65536.0,
        )
    }
}
