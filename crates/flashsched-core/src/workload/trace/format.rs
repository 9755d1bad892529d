//! The format registry: every supported trace format, its name and
//! description (`flashsched formats`), and the per-format parser the reader
//! drives (full parser behind its fast path).

use std::fmt;

use super::fields::{Parsed, RawRecord};
use super::{ascii, blkparse, fast, fiu, heimdall, msr, spc, ssdsim};
use crate::error::{SimError, SimResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
}

const ALL_FORMATS: [TraceFormat; 9] = [
    TraceFormat::Msr,
    TraceFormat::Spc,
    TraceFormat::AsciiNs,
    TraceFormat::AsciiMs,
    TraceFormat::Ssdsim,
    TraceFormat::Blkparse,
    TraceFormat::BlkparseQ,
    TraceFormat::Fiu,
    TraceFormat::Heimdall,
];

impl TraceFormat {
    /// Parse a format name. `"auto"` means "detect from the file" and gives
    /// `Ok(None)`. Names are matched case-insensitively.
    pub fn from_name(name: &str) -> SimResult<Option<TraceFormat>> {
        let wanted = name.trim();
        if wanted.eq_ignore_ascii_case("auto") {
            return Ok(None);
        }
        if let Some(f) = ALL_FORMATS
            .iter()
            .find(|f| f.name().eq_ignore_ascii_case(wanted))
        {
            return Ok(Some(*f));
        }
        let mut known: Vec<&str> = vec!["auto"];
        known.extend(ALL_FORMATS.iter().map(|f| f.name()));
        Err(SimError::unknown("trace format", name, &known))
    }

    /// The name accepted by [`TraceFormat::from_name`].
    pub fn name(self) -> &'static str {
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
        }
    }

    /// Every format, in a stable order.
    pub fn all() -> &'static [TraceFormat] {
        &ALL_FORMATS
    }

    /// One-line description of the fields, for `flashsched formats`.
    pub fn describe(self) -> &'static str {
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
        }
    }
}

impl fmt::Display for TraceFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
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
}

impl Parser {
    pub(super) fn new(format: TraceFormat) -> Parser {
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
        }
    }

    /// Parse one cleaned (trimmed, non-blank) line; `Err` is the message
    /// without the `file:line` prefix.
    pub(super) fn parse(&mut self, line: &[u8]) -> Result<Parsed, String> {
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
        for &f in TraceFormat::all() {
            assert_eq!(TraceFormat::from_name(f.name()).unwrap(), Some(f));
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
