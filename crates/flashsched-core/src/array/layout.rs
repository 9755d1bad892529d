//! What an array is: its layout over the SSDs, its size and queue, and
//! where its requests come from.

use super::network::LinkConfig;
use super::serial::{SerialConfig, Victim};
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::workload::synthetic::parse_bytes;

/// How the volume is laid out over the SSDs.
#[derive(Debug, Clone, PartialEq)]
pub enum Layout {
    /// Striping without parity.
    Raid0 {
        /// Chunk (stripe unit), bytes.
        chunk: u64,
        /// Share of each SSD's logical space the volume uses (0 = all);
        /// the rest is never written (extra over-provisioning), so RAID
        /// and serial layouts can be compared at the same usable capacity.
        volume: f64,
    },
    /// Striping with rotating parity (left-symmetric).
    Raid5 {
        /// Chunk (stripe unit), bytes.
        chunk: u64,
        /// Share of each SSD's logical space the volume uses (0 = all).
        volume: f64,
    },
    /// The serial array: a log over the SSDs with external GC.
    Serial(SerialConfig),
}

impl Layout {
    /// `raid0[,chunk=64k,volume=0.8]`, `raid5[,chunk=64k,volume=0.8]`, or
    /// `serial[,front=1,unit=16k,segment=4m,victim=retired|fifo|greedy,window=128,dests=2,
    /// cache=front|none,volume=0.75,verify=true]`.
    pub fn parse(text: &str) -> SimResult<Layout> {
        let mut parts = text.split(',').map(str::trim).filter(|p| !p.is_empty());
        let name = parts.next().unwrap_or("");
        let mut chunk = 64 << 10;
        let mut raid_volume = 0.0;
        let mut s = SerialConfig::default();
        let is_serial = name == "serial";
        if !matches!(name, "raid0" | "raid5" | "serial") {
            return Err(SimError::unknown(
                "array layout",
                name,
                &["raid0", "raid5", "serial"],
            ));
        }
        for p in parts {
            let (k, v) = p
                .split_once('=')
                .ok_or_else(|| SimError::config(format!("array.{p}"), "expected key=value"))?;
            let key = format!("array.{k}");
            let int = |v: &str| -> SimResult<u32> {
                v.parse()
                    .map_err(|_| SimError::config(&key, format!("`{v}` is not an integer")))
            };
            match (k, is_serial) {
                ("chunk", false) => chunk = parse_bytes(&key, v)?,
                ("front", true) => s.front_ends = int(v)?,
                ("unit", true) => s.unit = parse_bytes(&key, v)?,
                ("segment", true) => s.segment = parse_bytes(&key, v)?,
                ("window", true) => s.window = int(v)?,
                ("dests", true) => s.dests = int(v)?,
                ("cache", true) => {
                    s.front_cache = match v {
                        "front" => true,
                        "none" => false,
                        _ => {
                            return Err(SimError::config(
                                key,
                                format!("`{v}` is not front or none"),
                            ))
                        }
                    }
                }
                ("victim", true) => {
                    s.victim = match v {
                        "retired" => Victim::Retired,
                        "fifo" => Victim::Fifo,
                        "greedy" => Victim::Greedy,
                        _ => {
                            return Err(SimError::config(
                                key,
                                format!("`{v}` is not retired, fifo or greedy"),
                            ))
                        }
                    }
                }
                ("volume", _) => {
                    let f: f64 = v
                        .parse()
                        .map_err(|_| SimError::config(&key, format!("`{v}` is not a number")))?;
                    if !(f > 0.0 && f <= 1.0) {
                        return Err(SimError::config(&key, format!("{f} is outside (0, 1]")));
                    }
                    if is_serial {
                        s.volume_fraction = f;
                    } else {
                        raid_volume = f;
                    }
                }
                ("verify", true) => {
                    s.verify = v
                        .parse()
                        .map_err(|_| SimError::config(&key, format!("`{v}` is not true/false")))?
                }
                _ => {
                    let known = if is_serial {
                        "front, unit, segment, victim, window, dests, cache, volume, verify"
                    } else {
                        "chunk, volume"
                    };
                    return Err(SimError::config(
                        key,
                        format!("unknown key for {name} (known: {known})"),
                    ));
                }
            }
        }
        if !is_serial && (chunk == 0 || chunk % 512 != 0) {
            return Err(SimError::config(
                "array.chunk",
                format!("{chunk} is not a positive multiple of 512"),
            ));
        }
        Ok(match name {
            "raid0" => Layout::Raid0 {
                chunk,
                volume: raid_volume,
            },
            "raid5" => Layout::Raid5 {
                chunk,
                volume: raid_volume,
            },
            _ => Layout::Serial(s),
        })
    }

    /// `raid0`, `raid5` or `serial`.
    pub fn name(&self) -> &'static str {
        match self {
            Layout::Raid0 { .. } => "raid0",
            Layout::Raid5 { .. } => "raid5",
            Layout::Serial(_) => "serial",
        }
    }
}

/// Array-level options.
#[derive(Debug, Clone, PartialEq)]
pub struct ArrayConfig {
    /// How the volume maps onto the SSDs.
    pub layout: Layout,
    /// Number of SSDs (copies of one device config).
    pub ssds: u32,
    /// Requests outstanding at the array (its host queue depth).
    pub queue_depth: u32,
    /// Network link in front of the array (`None`: clients attach directly).
    pub link: Option<LinkConfig>,
    /// Width of a time-series bin, ns.
    pub bin_ns: Ns,
    /// Seed of the run (SSD `i` is built with `seed + i`).
    pub seed: u64,
    /// Keep one row per client request.
    pub keep_records: bool,
}

/// Where the array's requests come from.
#[derive(Debug, Clone, PartialEq)]
pub enum ArrayWorkload {
    /// Synthetic specs run one after another (e.g. aging, then measurement).
    Phases(Vec<String>),
    /// `clients` concurrent sequential writers of `file` bytes each.
    Writers {
        /// Concurrent writers.
        clients: u32,
        /// Bytes each writer writes (its own region of the volume).
        file: u64,
        /// Request size, bytes.
        bs: u64,
        /// Requests each writer keeps outstanding.
        qd: u32,
    },
}
