//! Memory estimate before building a run, and the limit it is held to.
//!
//! A config can validate and still need more memory than the machine has
//! (a geometry of 2^32 pages needs tens of GB of tables); allocating it
//! would abort the process (no error, no Python exception). So a run first
//! adds up what it will allocate — each layer reports its own part
//! (`Ftl::footprint`, `Ssd::footprint`, `Checker::footprint`) — and fails
//! with [`SimError::MemoryLimit`] naming the geometry, the estimate and the
//! limit when the sum is above it. Per-request records of a workload of
//! unknown length are checked as they grow (`Metrics::set_budget`).
//!
//! The limit is, by default, the memory available now (`MemAvailable` in
//! `/proc/meminfo`, and the cgroup's room if lower), or a fixed size
//! (`--max-memory 8GiB`, `max_memory="8GiB"`, `FLASHSCHED_MAX_MEMORY`), or
//! off. Allocated bytes are counted whether or not the OS has backed them:
//! the mapping tables are lazily zeroed, but a run may touch all of them.

use crate::check::Checker;
use crate::config::DeviceConfig;
use crate::device::footprint::DeviceFootprint;
use crate::device::Ssd;
use crate::error::{SimError, SimResult};
use crate::flash::Geometry;
use crate::ftl::footprint::grown_vec;
use crate::ftl::kept::KEEP_BYTES;

/// Bytes of one per-request row (arrival, dispatch, complete, op, offset,
/// size, stream).
pub const RECORD_ROW_BYTES: u64 = 8 + 8 + 8 + 1 + 8 + 4 + 4;

/// Process-wide allowance on top of the device: event queue, trace reader
/// buffers and sort window, host queues, transactions in flight.
const BASE_BYTES: u64 = 4 << 20;

/// The environment variable giving the default limit.
pub const ENV_VAR: &str = "FLASHSCHED_MAX_MEMORY";

/// What a run's memory is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemoryLimit {
    /// The memory available when the run is built (no check where that
    /// cannot be read).
    #[default]
    Available,
    /// A fixed number of bytes.
    Bytes(u64),
    /// No check.
    Off,
}

impl MemoryLimit {
    /// `8GiB`, `512MiB`, `1.5G` (binary units: K, M, G, T with optional
    /// `iB`), `2GB` (decimal: KB, MB, GB, TB), a number of bytes,
    /// `available` or `off`. Named `key` in errors.
    pub fn parse(key: &str, text: &str) -> SimResult<MemoryLimit> {
        let t = text.trim();
        match t.to_ascii_lowercase().as_str() {
            "available" | "auto" => return Ok(MemoryLimit::Available),
            "off" | "none" | "unlimited" => return Ok(MemoryLimit::Off),
            _ => {}
        }
        let bad = |why: &str| {
            SimError::config(
                key,
                format!(
                    "`{text}` {why} (give a size such as 8GiB, 512MiB, 2GB or bytes, or \
                     `available` or `off`)"
                ),
            )
        };
        let split = t.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(t.len());
        let (num, unit) = t.split_at(split);
        let x: f64 = num
            .trim()
            .parse()
            .map_err(|_| bad("is not a memory size"))?;
        let scale: f64 = match unit.trim().to_ascii_lowercase().as_str() {
            "" | "b" => 1.0,
            "k" | "kib" => 1024.0,
            "m" | "mib" => 1024f64.powi(2),
            "g" | "gib" => 1024f64.powi(3),
            "t" | "tib" => 1024f64.powi(4),
            "kb" => 1e3,
            "mb" => 1e6,
            "gb" => 1e9,
            "tb" => 1e12,
            _ => return Err(bad("has an unknown unit")),
        };
        let bytes = x * scale;
        if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
            return Err(bad("is not a size between 1 byte and 16 EiB"));
        }
        Ok(MemoryLimit::Bytes(bytes as u64))
    }

    /// [`ENV_VAR`] if set, else [`MemoryLimit::Available`].
    pub fn from_env() -> SimResult<MemoryLimit> {
        match std::env::var(ENV_VAR) {
            Ok(v) if !v.trim().is_empty() => MemoryLimit::parse(ENV_VAR, &v),
            _ => Ok(MemoryLimit::Available),
        }
    }

    /// The limit in bytes and where it comes from; `None`: no check.
    pub fn resolve(self) -> Option<(u64, &'static str)> {
        match self {
            MemoryLimit::Available => available().map(|b| (b, "memory available now")),
            MemoryLimit::Bytes(b) => Some((b, "max_memory")),
            MemoryLimit::Off => None,
        }
    }
}

/// Memory available to this process now: `MemAvailable`, or the room left
/// in its cgroup (v2) if that is less. `None` where neither can be read.
pub fn available() -> Option<u64> {
    let mem = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| {
        t.lines()
            .find_map(|l| l.strip_prefix("MemAvailable:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kb| kb * 1024)
    });
    let read = |f: &str| -> Option<u64> {
        std::fs::read_to_string(format!("/sys/fs/cgroup/{f}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let cgroup =
        read("memory.max").map(|max| max.saturating_sub(read("memory.current").unwrap_or(0)));
    match (mem, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// `bytes` for people: `15.2 GiB`, `310 MiB`, `4.0 KiB`, `512 B`.
pub fn fmt_bytes(bytes: u64) -> String {
    let units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut x = bytes as f64;
    let mut i = 0;
    while x >= 1024.0 && i + 1 < units.len() {
        x /= 1024.0;
        i += 1;
    }
    match i {
        0 => format!("{bytes} B"),
        _ if x >= 100.0 => format!("{x:.0} {}", units[i]),
        _ => format!("{x:.1} {}", units[i]),
    }
}

/// What a run will allocate, by part.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// The device(s), for messages: preset, geometry, page count.
    pub what: String,
    /// (part, bytes) of every device together, records and the base.
    pub parts: Vec<(&'static str, u64)>,
    /// Peak bytes (preconditioning's buffer and the checker never coexist).
    pub peak: u64,
    /// Bytes of per-request records included (0 when their count is unknown).
    pub records: u64,
}

impl Estimate {
    /// `ssds` devices of `cfg`, with check mode's tables if `check`, and
    /// `records` per-request rows if their number is known.
    pub fn new(cfg: &DeviceConfig, ssds: u32, check: bool, records: Option<u64>) -> Estimate {
        let n = ssds.max(1) as u64;
        let dev: DeviceFootprint = Ssd::footprint(&cfg.ssd());
        let geo = Geometry::new(&cfg.geometry);
        let checker = if check {
            Checker::footprint(&geo, cfg.logical_pages() as u64)
        } else {
            0
        };
        let rows = records.map_or(0, |r| grown_vec(r, RECORD_ROW_BYTES));
        let f = &dev.ftl;
        let parts = vec![
            ("mapping tables", n * f.mapping),
            ("per-block state", n * f.blocks),
            ("preconditioning (transient)", n * f.precondition),
            ("process variation", n * f.variation),
            ("controller", n * dev.controller),
            ("DRAM cache", n * dev.cache),
            ("mapping cache", n * dev.mapping_cache),
            ("partial-page sectors", n * dev.sector_state),
            ("check mode", n * checker),
            ("per-request records", rows),
            ("base", BASE_BYTES),
        ];
        // Preconditioning builds one SSD at a time, before any checker.
        let built = n * (dev.peak() + checker);
        let precond = (n - 1) * dev.peak() + f.mapping + f.blocks + dev.controller + f.precondition;
        let g = &cfg.geometry;
        let name = if cfg.preset.is_empty() {
            "custom"
        } else {
            cfg.preset.as_str()
        };
        let many = if n > 1 {
            format!("{n} × ")
        } else {
            String::new()
        };
        Estimate {
            what: format!(
                "{many}device `{name}` (geometry {} channels × {} chips × {} dies × {} planes × \
                 {} blocks × {} pages × {} B = {} pages, {} raw)",
                g.channels,
                g.chips_per_channel,
                g.dies_per_chip,
                g.planes_per_die,
                g.blocks_per_plane,
                g.pages_per_block,
                g.page_size,
                geo.pages(),
                fmt_bytes(geo.bytes())
            ),
            parts,
            peak: built.max(precond) + rows + BASE_BYTES,
            records: rows,
        }
    }

    /// The parts over 1 % of the peak, largest first: `mapping tables 2.0
    /// GiB, per-block state 1.1 GiB`.
    pub fn breakdown(&self) -> String {
        let mut p: Vec<_> = self
            .parts
            .iter()
            .filter(|(_, b)| *b * 100 > self.peak)
            .collect();
        p.sort_by_key(|(_, b)| std::cmp::Reverse(*b));
        p.iter()
            .map(|(name, b)| format!("{name} {}", fmt_bytes(*b)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Check the estimate against `limit`: the bytes left for what grows
    /// during the run (per-request records of unknown count, time series),
    /// `None` without a limit; an error naming the device, the estimate and
    /// the limit when it does not fit.
    pub fn admit(&self, limit: MemoryLimit) -> SimResult<Option<Budget>> {
        let Some((bytes, source)) = limit.resolve() else {
            return Ok(None);
        };
        if self.peak > bytes {
            return Err(SimError::MemoryLimit(format!(
                "{} needs about {} ({}), above the limit of {} ({source}); use a smaller \
                 geometry{}, or raise the limit (--max-memory / max_memory=, `off` to skip \
                 this check)",
                self.what,
                fmt_bytes(self.peak),
                self.breakdown(),
                fmt_bytes(bytes),
                if self.records * 10 > self.peak {
                    ", keep no per-request records (--no-records / keep_records=False)"
                } else {
                    ""
                }
            ))
            .into());
        }
        Ok(Some(Budget {
            bytes: bytes - (self.peak - self.records),
            limit: bytes,
            source,
        }))
    }
}

/// Room for preconditioned states a process keeps beside a run
/// (`ftl/kept.rs`): none under an explicit limit (it bounds the run, and
/// kept states outlive it), else at most a quarter of what the run leaves
/// of the memory available, up to [`KEEP_BYTES`].
pub fn kept_room(limit: MemoryLimit, budget: Option<&Budget>) -> u64 {
    match (limit, budget) {
        (MemoryLimit::Bytes(_), _) => 0,
        (_, Some(b)) => KEEP_BYTES.min(b.bytes / 4),
        (_, None) => KEEP_BYTES,
    }
}

/// What per-request records and time series may take during a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Budget {
    /// Bytes left after the device(s).
    pub bytes: u64,
    /// The whole limit and where it comes from (for messages).
    pub limit: u64,
    /// Where the limit comes from (`--max-memory`, available memory, ...).
    pub source: &'static str,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sizes_and_names_the_key() {
        let b = |t| MemoryLimit::parse("max_memory", t).unwrap();
        assert_eq!(b("8GiB"), MemoryLimit::Bytes(8 << 30));
        assert_eq!(b("8g"), MemoryLimit::Bytes(8 << 30));
        assert_eq!(b(" 1.5 GiB "), MemoryLimit::Bytes(3 << 29));
        assert_eq!(b("2GB"), MemoryLimit::Bytes(2_000_000_000));
        assert_eq!(b("512MiB"), MemoryLimit::Bytes(512 << 20));
        assert_eq!(b("4096"), MemoryLimit::Bytes(4096));
        assert_eq!(b("off"), MemoryLimit::Off);
        assert_eq!(b("Available"), MemoryLimit::Available);
        for bad in ["", "0", "-1G", "8 parsecs", "NaN", "inf", "1e30", "G"] {
            let e = MemoryLimit::parse("max_memory", bad)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains("max_memory") && e.contains(&format!("`{bad}`")),
                "{e}"
            );
        }
    }

    #[test]
    fn formats_bytes() {
        assert_eq!(fmt_bytes(512), "512 B");
        assert_eq!(fmt_bytes(4096), "4.0 KiB");
        assert_eq!(fmt_bytes(310 << 20), "310 MiB");
        assert_eq!(fmt_bytes((152 << 30) / 10), "15.2 GiB");
    }

    #[test]
    fn reads_available_memory_here() {
        // Linux test machines have /proc/meminfo.
        if std::path::Path::new("/proc/meminfo").exists() {
            let a = available().expect("MemAvailable");
            assert!(a > 1 << 20, "{a}");
        }
    }

    /// A geometry the config accepts (2^31 pages in two-page blocks) needs
    /// ~45 GiB: refused by a 1 GiB limit with the geometry, the estimate and
    /// the limit in the message.
    #[test]
    fn refuses_a_huge_geometry() {
        let cfg = DeviceConfig::load(
            "default",
            &[
                "geometry.channels=16",
                "geometry.chips_per_channel=16",
                "geometry.dies_per_chip=8",
                "geometry.planes_per_die=4",
                "geometry.blocks_per_plane=131072",
                "geometry.pages_per_block=2",
            ]
            .map(String::from),
        )
        .unwrap();
        let est = Estimate::new(&cfg, 1, false, None);
        assert!(est.peak > 40 << 30, "{}", est.peak);
        let e = est.admit(MemoryLimit::Bytes(1 << 30)).unwrap_err();
        assert!(matches!(*e, SimError::MemoryLimit(_)));
        let m = e.to_string();
        for w in [
            "16 channels",
            "131072 blocks",
            "2147483648 pages",
            "1.0 GiB (max_memory)",
        ] {
            assert!(m.contains(w), "`{m}` lacks `{w}`");
        }
        assert!(
            m.contains("per-block state") && m.contains("mapping tables"),
            "{m}"
        );
        assert!(est.admit(MemoryLimit::Off).unwrap().is_none());
    }
}
