//! Streaming block-trace readers. A reader holds one reused buffer (a read
//! chunk plus at most one line, see `lines.rs`), never the whole trace, and
//! allocates nothing per line. Every parse error names `file:line`.
//! Policies for imperfect input: docs/reliability.md ("Bad input and
//! fuzzing"); speed: BENCHMARKS.md ("Trace parsing").
//!
//! Formats (see `flashsched formats`):
//! - `msr`: MSR Cambridge CSV `filetime(100ns),host,disk,Read|Write,offset B,size B,resp`
//! - `spc`: UMass/SPC `ASU,LBA(512 B sectors),size B,R|W,time s`
//! - `ascii-ns` / `ascii-ms`: DiskSim/MQSim ASCII `time dev sector size(sectors) flags(bit0 = read)`
//! - `ssdsim`: SSDsim ASCII `time(ns) dev lsn size(sectors) op(1 = read)`
//! - `blkparse`: blkparse default text output, D (default) or Q events
//! - `fiu`: FIU `ts(ns) pid process lba size(sectors) R|W major minor md5`
//! - `heimdall`: `ts(ms) dev offset(B) size(B) op(1 = read, 0 = write)`
//!
//! Each format has a full parser (its own module, which words every error)
//! and a one-pass fast path (`fast.rs`) for well-formed lines; the fast path
//! only ever accepts a line the full parser accepts as the same record.
//!
//! Common rules for every format:
//! - `time_ns` is relative to the first delivered record (which gets 0). A
//!   record earlier than its predecessor (blkparse merges per-CPU buffers) is
//!   issued at the predecessor's time and counted ([`TimeOrder::Clamp`], the
//!   default) or is a bad line ([`TimeOrder::Reject`]). A time 2^64 ns or
//!   more after the first record is a bad line.
//! - Skipped without comment: blank lines, lines starting with `#`, and lines
//!   made only of NUL bytes and whitespace (tar padding). Before the first
//!   record only, tar/pax header junk is tolerated as well (see
//!   [`TraceReader`]). Format-specific non-record lines (a CSV header, the
//!   blkparse summary, blkparse events of other actions) are skipped by the
//!   format parser.
//! - Records of size 0 (and blkparse events left over from another trace
//!   session) are dropped and counted in [`TraceStats::dropped`].
//! - Anything else that does not parse, a request of 4 GiB or more and an
//!   `offset + size` beyond u64 are bad lines: a [`SimError::Trace`] naming
//!   the file, the line and the field, or with [`TraceOptions::skip_bad`]
//!   skipped and counted in [`TraceStats::bad_lines`].
//! - A trace that yields no record at all is an error at its end.

mod ascii;
mod blkparse;
mod detect;
mod fast;
mod fiu;
mod heimdall;
mod lines;
mod msr;
/// Line mutator for the property tests and fuzz targets (public so that
/// `tests/fuzz_props.rs` can share it; not part of the simulator's API).
#[doc(hidden)]
pub mod mutate;
mod spc;
mod ssdsim;

pub use detect::detect_format;

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use lines::MAX_LINE;
use lines::{LineSource, Next};

use crate::error::{SimError, SimResult};
use crate::workload::{IoRecord, Op};

/// A supported trace format. See the module documentation for the fields.
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

/// How the reader treats a record whose timestamp is earlier than the
/// previous record's (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeOrder {
    /// Issue it at the previous record's time (counted in
    /// [`TraceStats::clamped`]). The default: blkparse merges per-CPU
    /// buffers whose clocks differ by microseconds.
    #[default]
    Clamp,
    /// A [`SimError::Trace`] naming the line (or, with
    /// [`TraceOptions::skip_bad`], a skipped bad line).
    Reject,
    /// Deliver records in time order through a reorder window of
    /// [`SORT_WINDOW`] records (bounded memory); a record later than the
    /// window can repair is clamped as with `Clamp` (and counted). For
    /// blkparse output, which lists per-CPU batches of events one after the
    /// other (the YCSB samples step back by up to ~40 events, a few ms).
    Sort,
}

/// Records held back by [`TimeOrder::Sort`] (about 64 bytes each).
pub const SORT_WINDOW: usize = 4096;

impl TimeOrder {
    /// `clamp`, `reject` or `sort` (case-insensitive).
    pub fn from_name(name: &str) -> SimResult<TimeOrder> {
        match name.trim().to_ascii_lowercase().as_str() {
            "clamp" => Ok(TimeOrder::Clamp),
            "reject" => Ok(TimeOrder::Reject),
            "sort" => Ok(TimeOrder::Sort),
            _ => Err(SimError::unknown(
                "time-order policy",
                name,
                &["clamp", "reject", "sort"],
            )),
        }
    }

    /// The name accepted by [`TimeOrder::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            TimeOrder::Clamp => "clamp",
            TimeOrder::Reject => "reject",
            TimeOrder::Sort => "sort",
        }
    }
}

/// Reader policies for imperfect traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TraceOptions {
    /// Skip malformed lines (counted in [`TraceStats::bad_lines`], the first
    /// message kept in [`TraceStats::first_bad`]) instead of failing.
    pub skip_bad: bool,
    /// Out-of-order timestamps.
    pub time_order: TimeOrder,
}

/// What a reader did with the lines of its trace, for the run summary.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TraceStats {
    /// Physical lines read.
    pub lines: u64,
    /// Records delivered.
    pub records: u64,
    /// Records deliberately dropped: size 0, blkparse events without a
    /// direction or from a stale trace session.
    pub dropped: u64,
    /// Malformed lines skipped (only with `skip_bad`).
    pub bad_lines: u64,
    /// Records issued at the previous record's time (`time_order = clamp`).
    pub clamped: u64,
    /// `file:line: reason` of the first skipped bad line.
    pub first_bad: Option<String>,
}

/// Open `path` as a trace of `format` (`None`: detect with [`detect_format`]).
pub fn open_trace(path: &Path, format: Option<TraceFormat>) -> SimResult<TraceReader> {
    open_trace_with(path, format, TraceOptions::default())
}

/// [`open_trace`] with explicit [`TraceOptions`].
pub fn open_trace_with(
    path: &Path,
    format: Option<TraceFormat>,
    options: TraceOptions,
) -> SimResult<TraceReader> {
    let format = match format {
        Some(f) => f,
        None => detect_format(path)?,
    };
    let file = open_file(path)?;
    Ok(TraceReader::from_reader(path, format, Box::new(file)).with_options(options))
}

pub(super) fn open_file(path: &Path) -> SimResult<File> {
    File::open(path).map_err(|source| SimError::Io {
        path: path.to_path_buf(),
        source,
    })
}

/// Streaming reader over one trace file; an iterator of records.
///
/// Each item is one [`IoRecord`] or a [`SimError::Trace`] naming
/// `file:line` and the bad field. After a parse error the iterator can be
/// resumed (it continues with the next line); after an I/O error or an
/// over-long line it ends (unless `skip_bad`, which skips the long line).
/// A trace that ends without a single record is an error ("no records").
///
/// Tar junk: samples cut out of a `.tar` member with `head` start with the tar
/// (pax) headers and end with NUL padding. Before the first record, a line
/// containing NUL bytes is reduced to the text after its last NUL (a tar
/// header block always ends in NULs, so that is where the member data starts)
/// and pax records (`<len> <key>=<value>`) are skipped. Lines made only of NUL
/// bytes and whitespace are skipped anywhere. A NUL byte in any other line
/// after the first record is an error.
pub struct TraceReader {
    path: PathBuf,
    format: TraceFormat,
    src: LineSource,
    options: TraceOptions,
    stats: TraceStats,
    first_ts: Option<u128>,
    last_ts: u128,
    seen_record: bool,
    parser: Parser,
    /// Reorder window of [`TimeOrder::Sort`] (`None` otherwise).
    window: Option<BinaryHeap<Reverse<Pending>>>,
    /// The input is exhausted (the window may still hold records).
    eof: bool,
    done: bool,
}

/// A record waiting in the sort window.
#[derive(Debug, PartialEq, Eq)]
struct Pending {
    raw: RawRecord,
    /// Its line: at most one record per line, so this is the file-order
    /// tie-break.
    line: u64,
}

impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.raw.ts_ns, self.line).cmp(&(other.raw.ts_ns, other.line))
    }
}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl TraceReader {
    /// A reader over any byte source (it does its own buffering); `path` is
    /// only used in messages.
    pub fn from_reader(
        path: &Path,
        format: TraceFormat,
        reader: Box<dyn Read + Send>,
    ) -> TraceReader {
        TraceReader {
            path: path.to_path_buf(),
            format,
            src: LineSource::new(reader),
            options: TraceOptions::default(),
            stats: TraceStats::default(),
            first_ts: None,
            last_ts: 0,
            seen_record: false,
            parser: Parser::new(format),
            window: None,
            eof: false,
            done: false,
        }
    }

    /// Set the reader policies.
    pub fn with_options(mut self, options: TraceOptions) -> TraceReader {
        self.options = options;
        self.window = (options.time_order == TimeOrder::Sort)
            .then(|| BinaryHeap::with_capacity(SORT_WINDOW + 1));
        self
    }

    /// The format being parsed.
    pub fn format(&self) -> TraceFormat {
        self.format
    }

    /// The trace file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of the last line read (1-based; 0 before the first line).
    pub fn line(&self) -> u64 {
        self.stats.lines
    }

    /// Records dropped so far: size 0, blkparse events of the selected action
    /// without a direction, blkparse events from a stale trace session.
    pub fn skipped(&self) -> u64 {
        self.stats.dropped
    }

    /// Everything counted so far.
    pub fn stats(&self) -> &TraceStats {
        &self.stats
    }

    fn trace_error(&self, msg: String) -> SimError {
        SimError::Trace {
            file: self.path.clone(),
            line: self.stats.lines,
            msg,
        }
    }

    /// A malformed line: the error to return, or `None` when it is skipped
    /// (`skip_bad`).
    #[cold]
    fn bad_line(&mut self, msg: String) -> Option<SimError> {
        self.bad_line_at(self.stats.lines, msg)
    }

    /// [`TraceReader::bad_line`] for an earlier line (a record leaving the
    /// sort window).
    #[cold]
    fn bad_line_at(&mut self, line: u64, msg: String) -> Option<SimError> {
        let e = SimError::Trace {
            file: self.path.clone(),
            line,
            msg,
        };
        if !self.options.skip_bad {
            return Some(e);
        }
        self.stats.bad_lines += 1;
        if self.stats.first_bad.is_none() {
            self.stats.first_bad = Some(e.to_string());
        }
        None
    }

    /// End of input: an error when no record was delivered.
    #[cold]
    fn at_end(&mut self) -> Option<SimResult<IoRecord>> {
        if self.done {
            return None;
        }
        self.done = true;
        if self.stats.records > 0 {
            return None;
        }
        let why = match (&self.stats.first_bad, self.stats.dropped) {
            (Some(first), _) => format!(
                "{} bad lines skipped, the first: {first}",
                self.stats.bad_lines
            ),
            (None, 0) if self.stats.lines == 0 => "the file is empty".to_string(),
            (None, 0) => "no line is a record".to_string(),
            (None, n) => format!("all {n} records were dropped (size 0 or stale)"),
        };
        Some(Err(self.trace_error(format!(
            "no records in this {} trace: {why}",
            self.format
        ))))
    }

    /// Size and offset checks of a parsed record; `Ok(None)`: dropped (size
    /// 0). `Err` is a bad-line message.
    #[inline(always)]
    fn check(&mut self, raw: RawRecord) -> Result<Option<RawRecord>, String> {
        self.seen_record = true;
        if raw.size == 0 {
            self.stats.dropped += 1;
            return Ok(None);
        }
        if u32::try_from(raw.size).is_err() {
            return Err(format!(
                "request size {} B exceeds the 4 GiB limit of one request",
                raw.size
            ));
        }
        if raw.offset.checked_add(raw.size).is_none() {
            return Err(format!(
                "request end (offset {} + size {}) overflows 64 bits",
                raw.offset, raw.size
            ));
        }
        Ok(Some(raw))
    }

    /// The delivered record: time base and time-order policy. `Err` is a
    /// bad-line message.
    #[inline(always)]
    fn deliver(&mut self, raw: RawRecord) -> Result<IoRecord, String> {
        let first = *self.first_ts.get_or_insert(raw.ts_ns);
        let mut ts = raw.ts_ns;
        if ts < self.last_ts {
            if self.options.time_order == TimeOrder::Reject {
                return Err(format!(
                    "time {} ns is earlier than the previous record's {} ns (time order \
                     `reject`; `clamp` issues such records at the previous time)",
                    ts.saturating_sub(first),
                    self.last_ts - first
                ));
            }
            self.stats.clamped += 1;
            ts = self.last_ts;
        }
        let Ok(time_ns) = u64::try_from(ts - first) else {
            return Err(format!(
                "time {} ns after the first record exceeds the 584-year range of the clock",
                ts - first
            ));
        };
        self.last_ts = ts;
        self.stats.records += 1;
        Ok(IoRecord {
            time_ns,
            offset: raw.offset,
            // check() made sure it fits.
            size: raw.size as u32,
            op: raw.op,
            stream: raw.stream,
        })
    }

    /// Sort mode: the earliest held record once the window is full, or at
    /// the end of the input.
    #[inline]
    fn pop_window(&mut self) -> Option<Option<SimResult<IoRecord>>> {
        let window = self.window.as_mut()?;
        if window.len() < SORT_WINDOW && !self.eof {
            return None;
        }
        let Reverse(p) = window.pop()?;
        Some(match self.deliver(p.raw) {
            Ok(rec) => Some(Ok(rec)),
            Err(msg) => self.bad_line_at(p.line, msg).map(Err),
        })
    }
}

impl Iterator for TraceReader {
    type Item = SimResult<IoRecord>;

    fn next(&mut self) -> Option<SimResult<IoRecord>> {
        while !self.done {
            match self.pop_window() {
                Some(Some(item)) => return Some(item),
                Some(None) => continue,
                None => {}
            }
            if self.eof {
                return self.at_end();
            }
            let (range, nul) = match self.src.next_line() {
                Ok(Next::Line { range, nul }) => (range, nul),
                Ok(Next::Eof) => {
                    self.eof = true;
                    continue;
                }
                Ok(Next::TooLong) => {
                    self.stats.lines += 1;
                    let msg = format!("line longer than {MAX_LINE} bytes (not a text trace?)");
                    match self.bad_line(msg) {
                        None => continue,
                        Some(e) => {
                            self.done = true;
                            return Some(Err(e));
                        }
                    }
                }
                Err(source) => {
                    self.done = true;
                    return Some(Err(SimError::Io {
                        path: self.path.clone(),
                        source,
                    }));
                }
            };
            self.stats.lines += 1;
            let line = self.src.bytes(range);
            let cleaned = if nul {
                clean_line(line, self.seen_record)
            } else {
                clean_text(line, self.seen_record)
            };
            let text = match cleaned {
                Ok(Some(text)) => text,
                Ok(None) => continue,
                Err(msg) => match self.bad_line(msg) {
                    None => continue,
                    Some(e) => return Some(Err(e)),
                },
            };
            let msg = match self.parser.parse(text) {
                Ok(Parsed::Record(raw)) => match self.check(raw) {
                    Ok(None) => continue,
                    Ok(Some(raw)) => match &mut self.window {
                        Some(window) => {
                            window.push(Reverse(Pending {
                                raw,
                                line: self.stats.lines,
                            }));
                            continue;
                        }
                        None => match self.deliver(raw) {
                            Ok(rec) => return Some(Ok(rec)),
                            Err(msg) => msg,
                        },
                    },
                    Err(msg) => msg,
                },
                Ok(Parsed::NotRecord) => continue,
                Ok(Parsed::Dropped) => {
                    self.seen_record = true;
                    self.stats.dropped += 1;
                    continue;
                }
                Err(msg) if !self.seen_record && nul => format!("{msg} (after tar header junk)"),
                Err(msg) => msg,
            };
            if let Some(e) = self.bad_line(msg) {
                return Some(Err(e));
            }
        }
        None
    }
}

/// [`clean_line`] for a line known to hold no NUL byte.
#[inline]
fn clean_text(line: &[u8], seen_record: bool) -> Result<Option<&[u8]>, String> {
    let text = line.trim_ascii();
    if text.is_empty() || text[0] == b'#' || (!seen_record && is_pax_record(text)) {
        return Ok(None);
    }
    Ok(Some(text))
}

/// Reduce one physical line to the text a format parser sees: `Ok(None)` when
/// the line is skippable in every format (see [`TraceReader`]), `Err` for a
/// NUL byte in a line after the first record.
pub(super) fn clean_line(line: &[u8], seen_record: bool) -> Result<Option<&[u8]>, String> {
    let mut text = line;
    if let Some(last_nul) = line.iter().rposition(|&b| b == 0) {
        if line.iter().all(|&b| b == 0 || b.is_ascii_whitespace()) {
            return Ok(None);
        }
        if seen_record {
            return Err(format!(
                "unexpected NUL byte in a record line: {}",
                quote(line, 80)
            ));
        }
        text = &line[last_nul + 1..];
    }
    clean_text(text, seen_record)
}

/// A pax extended-header record: `<decimal length> <key>=<value>`, e.g.
/// `28 ctime=1410563671.7201132`.
fn is_pax_record(text: &[u8]) -> bool {
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || text.get(digits) != Some(&b' ') {
        return false;
    }
    let rest = &text[digits + 1..];
    let key = rest
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
        .count();
    key > 0 && rest[0].is_ascii_alphabetic() && rest.get(key) == Some(&b'=')
}

// ---------------------------------------------------------------------------
// Shared parsing helpers for the format modules.

/// One parsed record before the time base and size checks of the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RawRecord {
    /// Absolute timestamp in the trace's clock, in nanoseconds.
    pub ts_ns: u128,
    pub offset: u64,
    /// Bytes; 0 is dropped and > u32::MAX is an error (checked by the reader).
    pub size: u64,
    pub op: Op,
    pub stream: u32,
}

/// What a format parser made of one cleaned line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Parsed {
    Record(RawRecord),
    /// A line that is legitimately not a record (header, other event, ...).
    NotRecord,
    /// A record that is deliberately dropped (counted in `skipped`).
    Dropped,
}

/// Per-format parser, with state where the format needs it.
enum Parser {
    Msr,
    Spc,
    Ascii { scale: u32 },
    Ssdsim,
    Blkparse(blkparse::State),
    Fiu,
    Heimdall,
}

impl Parser {
    fn new(format: TraceFormat) -> Parser {
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

/// Fields are numbered from 1 in messages.
pub(super) const MAX_FIELDS: usize = 16;

/// The fields of one line, without allocation. `len()` counts every field,
/// only the first [`MAX_FIELDS`] are stored.
pub(super) struct Fields<'a> {
    stored: [&'a [u8]; MAX_FIELDS],
    count: usize,
}

impl<'a> Fields<'a> {
    /// Split on runs of ASCII whitespace (`u8::is_ascii_whitespace`).
    #[inline]
    pub(super) fn whitespace(line: &'a [u8]) -> Fields<'a> {
        let mut f = Fields {
            stored: [&[]; MAX_FIELDS],
            count: 0,
        };
        let mut i = 0;
        let n = line.len();
        while i < n {
            if is_space(line[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < n && !is_space(line[i]) {
                i += 1;
            }
            f.push(&line[start..i]);
        }
        f
    }

    /// Split on commas; surrounding whitespace of each field is trimmed.
    #[inline]
    pub(super) fn commas(line: &'a [u8]) -> Fields<'a> {
        let mut f = Fields {
            stored: [&[]; MAX_FIELDS],
            count: 0,
        };
        let mut start = 0;
        for (i, &b) in line.iter().enumerate() {
            if b == b',' {
                f.push(line[start..i].trim_ascii());
                start = i + 1;
            }
        }
        f.push(line[start..].trim_ascii());
        f
    }

    #[inline]
    fn push(&mut self, field: &'a [u8]) {
        if self.count < MAX_FIELDS {
            self.stored[self.count] = field;
        }
        self.count += 1;
    }

    pub(super) fn len(&self) -> usize {
        self.count
    }

    /// Field `i` (0-based); empty when absent or beyond [`MAX_FIELDS`].
    pub(super) fn get(&self, i: usize) -> &'a [u8] {
        if i < self.count && i < MAX_FIELDS {
            self.stored[i]
        } else {
            &[]
        }
    }
}

/// `text` for a message: lossy UTF-8, at most `max` characters, quoted and
/// escaped (`"abc"`, `"\0\0…"`).
pub(super) fn quote(text: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(text);
    let mut out: String = s.chars().take(max).collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    format!("{out:?}")
}

/// `field N (name): expected WHAT, got "text"`.
pub(super) fn field_error(index: usize, name: &str, expected: &str, got: &[u8]) -> String {
    format!(
        "field {} ({name}): expected {expected}, got {}",
        index + 1,
        quote(got, 40)
    )
}

/// Wrong number of fields.
pub(super) fn count_error(expected: &str, layout: &str, got: usize, line: &[u8]) -> String {
    format!(
        "expected {expected} fields ({layout}), got {got}: {}",
        quote(line, 80)
    )
}

/// `u8::is_ascii_whitespace` as one shift and mask.
#[inline]
pub(super) fn is_space(b: u8) -> bool {
    const MASK: u64 = 1 << b' ' | 1 << b'\t' | 1 << b'\n' | 1 << 0x0c | 1 << b'\r';
    b < 64 && (MASK >> b) & 1 == 1
}

/// Decimal unsigned integer (digits only, no sign).
#[inline]
pub(super) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    if s.len() < 20 {
        // 19 digits cannot overflow.
        let mut v: u64 = 0;
        for &b in s {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + u64::from(d);
        }
        return Some(v);
    }
    let mut v: u64 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(v)
}

/// Field `i` as a decimal unsigned integer.
pub(super) fn int_field(f: &Fields<'_>, i: usize, name: &str) -> Result<u64, String> {
    let s = f.get(i);
    parse_u64(s).ok_or_else(|| field_error(i, name, "a non-negative integer", s))
}

/// Field `i` as a u32 (stream ids).
pub(super) fn u32_field(f: &Fields<'_>, i: usize, name: &str) -> Result<u32, String> {
    let s = f.get(i);
    parse_u64(s)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| field_error(i, name, "an integer in 0..=4294967295", s))
}

/// Field `i` counted in 512-byte sectors, returned in bytes.
pub(super) fn sectors_field(f: &Fields<'_>, i: usize, name: &str) -> Result<u64, String> {
    let v = int_field(f, i, name)?;
    v.checked_mul(512)
        .ok_or_else(|| field_error(i, name, "a sector count below 2^55", f.get(i)))
}

/// Non-negative decimal number (`12`, `12.5`, `.5`, `1e3`) scaled by
/// `10^scale` and truncated to an integer: with `scale = 6` a time in ms
/// becomes ns. Plain decimals are converted exactly, without floating point.
pub(super) fn parse_scaled(s: &[u8], scale: u32) -> Option<u128> {
    let (int_part, frac_part) = match s.iter().position(|&b| b == b'.') {
        Some(dot) => (&s[..dot], &s[dot + 1..]),
        None => (s, &s[s.len()..]),
    };
    let digits = |p: &[u8]| p.iter().all(u8::is_ascii_digit);
    if digits(int_part) && digits(frac_part) && !(int_part.is_empty() && frac_part.is_empty()) {
        if int_part.len() > 24 {
            return None;
        }
        let mut v: u128 = 0;
        for &b in int_part {
            v = v * 10 + u128::from(b - b'0');
        }
        for k in 0..scale as usize {
            let d = frac_part.get(k).map_or(0, |&b| u128::from(b - b'0'));
            v = v.checked_mul(10)?.checked_add(d)?;
        }
        return Some(v);
    }
    // Exponent notation and the like: go through f64.
    let text = std::str::from_utf8(s).ok()?;
    if !text.bytes().any(|b| b == b'e' || b == b'E') {
        return None;
    }
    let v: f64 = text.parse().ok()?;
    let scaled = v * 10f64.powi(scale as i32);
    if (0.0..1e35).contains(&scaled) {
        Some(scaled as u128)
    } else {
        None
    }
}

/// Field `i` as a non-negative time in `unit`, converted to ns with `scale`
/// (ns per unit = 10^scale).
pub(super) fn time_field(f: &Fields<'_>, i: usize, name: &str, scale: u32) -> Result<u128, String> {
    let s = f.get(i);
    parse_scaled(s, scale).ok_or_else(|| field_error(i, name, "a non-negative number", s))
}

#[cfg(test)]
pub(super) mod testutil {
    //! Run a format over in-memory text, as the reader does over a file.
    use super::*;
    use std::io::Cursor;

    pub const PATH: &str = "/tmp/sample.trace";

    pub fn reader(format: TraceFormat, text: &[u8]) -> TraceReader {
        TraceReader::from_reader(
            Path::new(PATH),
            format,
            Box::new(Cursor::new(text.to_vec())),
        )
    }

    /// All records; panics on the first error.
    pub fn records(format: TraceFormat, text: &[u8]) -> Vec<IoRecord> {
        reader(format, text)
            .collect::<SimResult<Vec<_>>>()
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The first error's Display text; panics when there is none.
    pub fn first_error(format: TraceFormat, text: &[u8]) -> String {
        for item in reader(format, text) {
            if let Err(e) = item {
                return e.to_string();
            }
        }
        panic!("no error in {:?}", String::from_utf8_lossy(text));
    }

    /// Asserts the error names `PATH:line` and contains `needle`.
    pub fn assert_error(format: TraceFormat, text: &[u8], line: u64, needle: &str) {
        let e = first_error(format, text);
        let loc = format!("{PATH}:{line}: ");
        assert!(e.starts_with(&loc), "error {e:?} should start with {loc:?}");
        assert!(e.contains(needle), "error {e:?} should contain {needle:?}");
    }
}

#[cfg(test)]
mod tests {
    use super::testutil::*;
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

    #[test]
    fn scaled_numbers() {
        assert_eq!(parse_scaled(b"13.191135", 6), Some(13_191_135));
        assert_eq!(parse_scaled(b"0.011413", 9), Some(11_413_000));
        assert_eq!(parse_scaled(b"5", 6), Some(5_000_000));
        assert_eq!(parse_scaled(b".5", 3), Some(500));
        assert_eq!(parse_scaled(b"7.", 3), Some(7000));
        assert_eq!(parse_scaled(b"1.23456789", 0), Some(1));
        assert_eq!(parse_scaled(b"1.5e3", 6), Some(1_500_000_000));
        assert_eq!(parse_scaled(b".", 3), None);
        assert_eq!(parse_scaled(b"", 3), None);
        assert_eq!(parse_scaled(b"-1", 3), None);
        assert_eq!(parse_scaled(b"1.2.3", 3), None);
        assert_eq!(parse_scaled(b"abc", 3), None);
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"+1"), None);
    }

    #[test]
    fn quoting_truncates_and_escapes() {
        assert_eq!(quote(b"abc", 40), "\"abc\"");
        assert_eq!(quote(b"abcdef", 3), "\"abc…\"");
        assert_eq!(quote(b"a\0\xff", 40), "\"a\\0\u{fffd}\"");
    }

    #[test]
    fn tar_junk_is_skipped_only_before_the_first_record() {
        let pax = &b"28 ctime=1410563671.7201132"[..];
        assert_eq!(clean_line(b"\0\0\0 \0", true), Ok(None));
        assert_eq!(clean_line(pax, false), Ok(None));
        assert_eq!(clean_line(pax, true), Ok(Some(pax)));
        assert_eq!(
            clean_line(b"./PaxHeaders.1/x\0\0ustar\0\x0030 atime=1", false),
            Ok(None)
        );
        assert_eq!(
            clean_line(b"hdr\0\0  1 2 3 ", false),
            Ok(Some(&b"1 2 3"[..]))
        );
        assert!(clean_line(b"1 2\x003", true).unwrap_err().contains("NUL"));
        assert_eq!(clean_line(b"  # comment", false), Ok(None));
        assert_eq!(clean_line(b" \t ", false), Ok(None));
    }

    #[test]
    fn time_is_relative_and_clamped() {
        let text = b"10.0 0 0 512 1\n12.5 0 512 512 0\n9.0 0 1024 512 1\n13 0 0 512 1\n";
        let mut r = reader(TraceFormat::Heimdall, text);
        let times: Vec<u64> = r.by_ref().map(|x| x.unwrap().time_ns).collect();
        assert_eq!(times, vec![0, 2_500_000, 2_500_000, 3_000_000]);
        assert_eq!(r.stats().clamped, 1);
        assert_eq!(r.stats().records, 4);
    }

    #[test]
    fn time_order_reject_names_the_line() {
        let text = b"10.0 0 0 512 1\n12.5 0 512 512 0\n9.0 0 1024 512 1\n13 0 0 512 1\n";
        let opts = TraceOptions {
            skip_bad: false,
            time_order: TimeOrder::Reject,
        };
        let items: Vec<_> = reader(TraceFormat::Heimdall, text)
            .with_options(opts)
            .collect();
        assert_eq!(items.len(), 4);
        let e = items[2].as_ref().unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{PATH}:3: time 0 ns is earlier than the previous record's 2500000 ns"
            )),
            "{e}"
        );
        // The rejected record does not move the clock back.
        assert_eq!(items[3].as_ref().unwrap().time_ns, 3_000_000);
        assert_eq!(TimeOrder::from_name("Reject").unwrap(), TimeOrder::Reject);
        assert_eq!(TimeOrder::from_name("sort").unwrap(), TimeOrder::Sort);
        let e = TimeOrder::from_name("fifo").unwrap_err().to_string();
        assert!(
            e.contains("`fifo`") && e.contains("clamp, reject, sort"),
            "{e}"
        );
    }

    #[test]
    fn time_order_sort_reorders_within_the_window() {
        let sort = TraceOptions {
            skip_bad: false,
            time_order: TimeOrder::Sort,
        };
        // Out of order by a few records; equal times keep file order.
        let text = b"5 0 0 512 1\n7 0 1024 512 1\n6 0 2048 512 1\n4 0 3072 512 1\n7 0 4096 512 1\n";
        let mut r = reader(TraceFormat::Heimdall, text).with_options(sort);
        let got: Vec<(u64, u64)> = r
            .by_ref()
            .map(|x| x.map(|r| (r.time_ns, r.offset)).unwrap())
            .collect();
        assert_eq!(
            got,
            [
                (0, 3072),
                (1_000_000, 0),
                (2_000_000, 2048),
                (3_000_000, 1024),
                (3_000_000, 4096)
            ]
        );
        assert_eq!(r.stats().clamped, 0);
        // A record later than the window can repair is clamped and counted;
        // errors still name their own line.
        let mut text = String::new();
        for i in 0..SORT_WINDOW + 10 {
            text.push_str(&format!("{} 0 0 512 1\n", 1000 + i));
        }
        text.push_str("1 0 0 512 1\nbad\n");
        let items: Vec<_> = reader(TraceFormat::Heimdall, text.as_bytes())
            .with_options(sort)
            .collect();
        assert_eq!(items.len(), SORT_WINDOW + 12);
        let e = items
            .iter()
            .find_map(|x| x.as_ref().err())
            .unwrap()
            .to_string();
        assert!(
            e.starts_with(&format!("{PATH}:{}: expected 5", SORT_WINDOW + 12)),
            "{e}"
        );
        let times: Vec<u64> = items
            .iter()
            .filter_map(|x| x.as_ref().ok())
            .map(|r| r.time_ns)
            .collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(
            times[SORT_WINDOW + 10],
            (SORT_WINDOW as u64 + 9) * 1_000_000
        );
    }

    #[test]
    fn skip_bad_counts_and_keeps_the_first_message() {
        let text = b"1 0 0 512 1\nx\n2 0 0 512 0\n3 0 0 zz 0\n";
        let opts = TraceOptions {
            skip_bad: true,
            ..TraceOptions::default()
        };
        let mut r = reader(TraceFormat::Heimdall, text).with_options(opts);
        assert_eq!(r.by_ref().collect::<SimResult<Vec<_>>>().unwrap().len(), 2);
        let st = r.stats();
        assert_eq!((st.lines, st.records, st.bad_lines), (4, 2, 2));
        let first = st.first_bad.as_deref().unwrap();
        assert!(
            first.starts_with(&format!("{PATH}:2: expected 5")),
            "{first}"
        );
    }

    #[test]
    fn a_trace_without_records_is_an_error() {
        for (text, why) in [
            (&b""[..], "the file is empty"),
            (b"# only a comment\n\n", "no line is a record"),
            (b"1 0 0 0 1\n", "all 1 records were dropped"),
        ] {
            assert_error(
                TraceFormat::Heimdall,
                text,
                text.iter().filter(|&&b| b == b'\n').count() as u64,
                why,
            );
        }
        let opts = TraceOptions {
            skip_bad: true,
            ..TraceOptions::default()
        };
        let items: Vec<_> = reader(TraceFormat::Heimdall, b"junk\nmore junk\n")
            .with_options(opts)
            .collect();
        assert_eq!(items.len(), 1);
        let e = items[0].as_ref().unwrap_err().to_string();
        assert!(
            e.contains("no records in this heimdall trace: 2 bad lines skipped, the first: "),
            "{e}"
        );
        assert!(
            e.contains(":1: expected 5 whitespace-separated fields"),
            "{e}"
        );
    }

    #[test]
    fn overflowing_end_and_time_are_errors() {
        assert_error(
            TraceFormat::Heimdall,
            b"1 0 18446744073709551615 512 1\n",
            1,
            "request end (offset 18446744073709551615 + size 512) overflows 64 bits",
        );
        assert_error(
            TraceFormat::Heimdall,
            b"0 0 0 512 1\n1e23 0 0 512 1\n",
            2,
            "exceeds the 584-year range",
        );
    }

    #[test]
    fn zero_sizes_are_counted() {
        let mut r = reader(TraceFormat::Heimdall, b"1 0 0 0 1\n2 0 0 512 1\n");
        let first = r.next().unwrap().unwrap();
        assert_eq!(first.time_ns, 0);
        assert_eq!(first.size, 512);
        assert!(r.next().is_none());
        assert_eq!(r.skipped(), 1);
        assert_eq!(r.line(), 2);
    }

    #[test]
    fn oversized_request_is_an_error() {
        assert_error(
            TraceFormat::Heimdall,
            b"1 0 0 4294967296 1\n",
            1,
            "exceeds the 4 GiB limit",
        );
    }

    #[test]
    fn nul_after_first_record_is_an_error() {
        assert_error(
            TraceFormat::Heimdall,
            b"1 0 0 512 1\n2 0 0\x00 512 1\n",
            2,
            "unexpected NUL byte",
        );
    }

    #[test]
    fn parse_errors_are_resumable() {
        let items: Vec<_> =
            reader(TraceFormat::Heimdall, b"1 0 0 512 1\nx\n3 0 0 512 0\n").collect();
        assert_eq!(items.len(), 3);
        assert!(items[0].is_ok() && items[1].is_err() && items[2].is_ok());
    }

    #[test]
    fn missing_final_newline_and_crlf() {
        let recs = records(TraceFormat::Heimdall, b"1 0 0 512 1\r\n2 0 0 1024 0");
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].size, 1024);
    }

    #[test]
    fn over_long_line_ends_the_reader() {
        let mut text = vec![b'1'; MAX_LINE + 10];
        text.extend_from_slice(b"\n1 0 0 512 1\n");
        let items: Vec<_> = reader(TraceFormat::Heimdall, &text).collect();
        assert_eq!(items.len(), 1);
        let e = items[0].as_ref().unwrap_err().to_string();
        assert!(e.contains(":1: line longer than"), "{e}");
        // skip_bad skips it and goes on.
        let opts = TraceOptions {
            skip_bad: true,
            ..TraceOptions::default()
        };
        let mut r = reader(TraceFormat::Heimdall, &text).with_options(opts);
        assert_eq!(r.by_ref().collect::<SimResult<Vec<_>>>().unwrap().len(), 1);
        assert_eq!((r.stats().bad_lines, r.line()), (1, 2));
    }

    #[test]
    fn reader_is_send() {
        fn is_send<T: Send>() {}
        is_send::<TraceReader>();
    }
}
