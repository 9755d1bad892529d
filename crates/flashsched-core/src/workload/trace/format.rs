//! The format registry: every supported trace format, its name and
//! description (`flashsched formats`), and the per-format parser the reader
//! drives (full parser behind its fast path).

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use super::columns::{self, ColumnMap, Sep};
use super::fields::{Parsed, RawRecord};
use super::options::TimeOrder;
use super::{ascii, blkparse, cloud, fast, fiu, heimdall, msr, spc, ssdsim};
use crate::error::{SimError, SimResult};

/// How to read a trace: a named format, or a column mapping (`csv:...`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum TraceFormat {
    /// MSR Cambridge CSV.
    Msr,
    /// UMass / SPC CSV.
    Spc,
    /// DiskSim/MQSim ASCII with arrival times in nanoseconds.
    AsciiNs,
    /// DiskSim/MQSim ASCII with arrival times in milliseconds.
    AsciiMs,
    /// SSDsim ASCII.
    Ssdsim,
    /// blkparse default text output, D (dispatch) events.
    Blkparse,
    /// blkparse default text output, Q (queue) events.
    BlkparseQ,
    /// FIU (SNIA IOTTA) traces.
    Fiu,
    /// Heimdall's whitespace format (ms, bytes).
    Heimdall,
    /// SYSTOR'17 VDI traces (CSV).
    Systor,
    /// Alibaba Cloud block traces (CSV).
    Alibaba,
    /// Tencent Cloud Block Storage traces (CSV).
    Tencent,
    /// VMware vscsiStats command traces as CSV.
    Vscsi,
    /// CloudPhysics traces as CSV (`ts,lba,op,size`).
    CloudPhysics,
    /// A user column mapping (`csv:time=0:ms,op=3:R/W,...`); never detected.
    Columns(Arc<ColumnMap>),
}

const ALL_FORMATS: [TraceFormat; 14] = [
    TraceFormat::Msr,
    TraceFormat::Spc,
    TraceFormat::AsciiNs,
    TraceFormat::AsciiMs,
    TraceFormat::Ssdsim,
    TraceFormat::Blkparse,
    TraceFormat::BlkparseQ,
    TraceFormat::Fiu,
    TraceFormat::Heimdall,
    TraceFormat::Systor,
    TraceFormat::Alibaba,
    TraceFormat::Tencent,
    TraceFormat::Vscsi,
    TraceFormat::CloudPhysics,
];

impl TraceFormat {
    /// Parse a format name. `"auto"` means "detect from the file" and gives
    /// `Ok(None)`. Names are matched case-insensitively. `csv:MAPPING` and
    /// `ws:MAPPING` are column mappings, and so is a `.toml` file holding
    /// one (see `mapping.rs`).
    pub fn from_name(name: &str) -> SimResult<Option<TraceFormat>> {
        let wanted = name.trim();
        if wanted.eq_ignore_ascii_case("auto") {
            return Ok(None);
        }
        for (prefix, sep) in [("csv:", Sep::Char(b',')), ("ws:", Sep::Whitespace)] {
            if let Some(spec) = wanted.strip_prefix(prefix) {
                return Ok(Some(TraceFormat::Columns(Arc::new(ColumnMap::parse(
                    spec, sep,
                )?))));
            }
        }
        if Path::new(wanted)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
        {
            let map = ColumnMap::load(Path::new(wanted))?;
            return Ok(Some(TraceFormat::Columns(Arc::new(map))));
        }
        if let Some(f) = ALL_FORMATS
            .iter()
            .find(|f| f.name().eq_ignore_ascii_case(wanted))
        {
            return Ok(Some(f.clone()));
        }
        let mut known: Vec<&str> = vec!["auto"];
        known.extend(ALL_FORMATS.iter().map(|f| f.name()));
        known.extend(["csv:MAPPING", "ws:MAPPING", "MAPPING.toml"]);
        Err(SimError::unknown("trace format", name, &known))
    }

    /// The time-order policy `auto` stands for: `sort` for blkparse (which
    /// lists per-CPU batches of events one after the other), else `clamp`.
    pub fn default_time_order(&self) -> TimeOrder {
        match self {
            TraceFormat::Blkparse | TraceFormat::BlkparseQ => TimeOrder::Sort,
            _ => TimeOrder::Clamp,
        }
    }

    /// The name accepted by [`TraceFormat::from_name`] (`csv` or `ws` for a
    /// column mapping, whose full text is its `Display`).
    pub fn name(&self) -> &'static str {
        match self {
            TraceFormat::Msr => "msr",
            TraceFormat::Spc => "spc",
            TraceFormat::AsciiNs => "ascii-ns",
            TraceFormat::AsciiMs => "ascii-ms",
            TraceFormat::Ssdsim => "ssdsim",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::BlkparseQ => "blkparse-q",
            TraceFormat::Fiu => "fiu",
            TraceFormat::Heimdall => "heimdall",
            TraceFormat::Systor => "systor",
            TraceFormat::Alibaba => "alibaba",
            TraceFormat::Tencent => "tencent",
            TraceFormat::Vscsi => "vscsi",
            TraceFormat::CloudPhysics => "cloudphysics",
            TraceFormat::Columns(m) if m.sep == Sep::Whitespace => "ws",
            TraceFormat::Columns(_) => "csv",
        }
    }

    /// Every named format, in a stable order.
    pub fn all() -> &'static [TraceFormat] {
        &ALL_FORMATS
    }

    /// One-line description of the fields, for `flashsched formats`.
    pub fn describe(&self) -> &'static str {
        match self {
            TraceFormat::Msr => {
                "MSR Cambridge CSV: filetime(100 ns),host,disk,Read|Write,offset(B),size(B),response; stream = disk"
            }
            TraceFormat::Spc => {
                "UMass/SPC CSV: ASU,LBA(512 B sectors),size(B),R|W,time(s)[,...]; stream = ASU"
            }
            TraceFormat::AsciiNs => {
                "MQSim/DiskSim ASCII: time(ns) dev sector(512 B) size(sectors) flags(hex, bit0 = read); stream = dev"
            }
            TraceFormat::AsciiMs => {
                "DiskSim ASCII: time(ms) dev sector(512 B) size(sectors) flags(hex, bit0 = read); stream = dev"
            }
            TraceFormat::Ssdsim => {
                "SSDsim ASCII: time(ns) dev lsn(512 B) size(sectors) op(1 = read, 0 = write); stream = dev"
            }
            TraceFormat::Blkparse => {
                "blkparse text, D events: maj,min cpu seq time(s) pid D RWBS sector + n [proc]; stream = pid"
            }
            TraceFormat::BlkparseQ => {
                "blkparse text, Q events: maj,min cpu seq time(s) pid Q RWBS sector + n [proc]; stream = pid"
            }
            TraceFormat::Fiu => {
                "FIU: ts(ns) pid process lba(sectors) size(sectors) R|W major minor md5; stream = pid"
            }
            TraceFormat::Heimdall => {
                "Heimdall: ts(ms) dev offset(B) size(B) op(1 = read, 0 = write); stream = dev"
            }
            TraceFormat::Systor => {
                "SYSTOR'17 CSV: Timestamp(s),Response,IOType(R|W, blank dropped),LUN,Offset(B),Size(B); stream = LUN"
            }
            TraceFormat::Alibaba => {
                "Alibaba block CSV: device_id,opcode(R|W),offset(B),length(B),timestamp(us); stream = device_id"
            }
            TraceFormat::Tencent => {
                "Tencent CBS CSV: Timestamp(s),Offset(sectors),Size(sectors),IOType(0 = read, 1 = write),VolumeID; stream = VolumeID"
            }
            TraceFormat::Vscsi => {
                "vscsi CSV: serial,length(B),SG entries,read|write,LBN(sectors),timestamp(us); stream = 0"
            }
            TraceFormat::CloudPhysics => {
                "CloudPhysics CSV: ts(us),lba(sectors),op(r|w),size(B); stream = 0"
            }
            TraceFormat::Columns(_) => {
                "column mapping: csv:time=COL:s|ms|us|100ns|ns,op=COL:READ/WRITE[/TRIM],offset=COL:B|sector|KiB|MiB|N,size=COL:UNIT[,stream=COL,skip=N,sep=comma|semicolon|tab|pipe|ws,fields=N]; ws:... splits on whitespace; or a FILE.toml with the same keys"
            }
        }
    }
}

impl fmt::Display for TraceFormat {
    /// The name, or a column mapping's full text.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TraceFormat::Columns(m) => write!(f, "{m}"),
            other => f.write_str(other.name()),
        }
    }
}

/// Per-format parser, with state where the format needs it.
pub(super) enum Parser {
    Msr,
    Spc,
    Ascii { scale: u32 },
    Ssdsim,
    Blkparse(blkparse::State),
    Fiu,
    Heimdall,
    Columns(Box<ColumnMap>),
}

impl Parser {
    pub(super) fn new(format: &TraceFormat) -> Parser {
        let columns = |map: ColumnMap| Parser::Columns(Box::new(map));
        match format {
            TraceFormat::Msr => Parser::Msr,
            TraceFormat::Spc => Parser::Spc,
            TraceFormat::AsciiNs => Parser::Ascii { scale: 0 },
            TraceFormat::AsciiMs => Parser::Ascii { scale: 6 },
            TraceFormat::Ssdsim => Parser::Ssdsim,
            TraceFormat::Blkparse => Parser::Blkparse(blkparse::State::new(b'D')),
            TraceFormat::BlkparseQ => Parser::Blkparse(blkparse::State::new(b'Q')),
            TraceFormat::Fiu => Parser::Fiu,
            TraceFormat::Heimdall => Parser::Heimdall,
            TraceFormat::Systor => columns(cloud::systor()),
            TraceFormat::Alibaba => columns(cloud::alibaba()),
            TraceFormat::Tencent => columns(cloud::tencent()),
            TraceFormat::Vscsi => columns(cloud::vscsi()),
            TraceFormat::CloudPhysics => columns(cloud::cloudphysics()),
            TraceFormat::Columns(map) => columns((**map).clone()),
        }
    }

    /// Parse one cleaned (trimmed, non-blank) line, physical line `line_no`;
    /// `Err` is the message without the `file:line` prefix.
    pub(super) fn parse(&mut self, line: &[u8], line_no: u64) -> Result<Parsed, String> {
        match self {
            Parser::Msr => fast_or(fast::msr(line), || msr::parse(line)),
            Parser::Spc => fast_or(fast::spc(line), || spc::parse(line)),
            Parser::Ascii { scale } => {
                let scale = *scale;
                fast_or(fast::ascii(line, scale), || ascii::parse(line, scale))
            }
            Parser::Ssdsim => fast_or(fast::ssdsim(line), || ssdsim::parse(line)),
            Parser::Blkparse(state) => state.parse(line),
            Parser::Fiu => fast_or(fast::fiu(line), || fiu::parse(line)),
            Parser::Heimdall => fast_or(fast::heimdall(line), || heimdall::parse(line)),
            Parser::Columns(map) => columns::parse(map, line, line_no),
        }
    }
}

/// The fast path's record, else the full parser's verdict.
#[inline]
fn fast_or(
    fast: Option<RawRecord>,
    full: impl FnOnce() -> Result<Parsed, String>,
) -> Result<Parsed, String> {
    match fast {
        Some(r) => Ok(Parsed::Record(r)),
        None => full(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for f in TraceFormat::all() {
            assert_eq!(TraceFormat::from_name(f.name()).unwrap().as_ref(), Some(f));
            assert!(!f.describe().is_empty());
        }
        assert_eq!(TraceFormat::from_name("auto").unwrap(), None);
        assert_eq!(
            TraceFormat::from_name("BLKPARSE-Q").unwrap(),
            Some(TraceFormat::BlkparseQ)
        );
        let e = TraceFormat::from_name("nope").unwrap_err().to_string();
        assert!(e.contains("`nope`") && e.contains("auto") && e.contains("heimdall"));
    }
}
