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
//! - `systor`, `alibaba`, `tencent`, `vscsi`, `cloudphysics`: published
//!   cloud/VDI CSV traces (`cloud.rs`), read through column mappings
//! - `csv:...` / `ws:...`: a user column mapping (`columns.rs`)
//!
//! Input (`input.rs`, `encoding.rs`): a file or `-` (standard input), read
//! once; gzip/zstd/xz/bzip2 recognised by magic bytes and streamed; a UTF-8
//! BOM skipped, UTF-16 transcoded, CR-only line endings read as lines.
//!
//! Each format has a full parser (its own module, which words every error)
//! and a one-pass fast path (`fast.rs`) for well-formed lines; the fast path
//! only ever accepts a line the full parser accepts as the same record.
//!
//! Common rules for every format:
//! - `time_ns` is relative to the first delivered record (which gets 0). A
//!   record earlier than its predecessor is issued at the predecessor's time
//!   and counted ([`TimeOrder::Clamp`]), reordered within a window
//!   ([`TimeOrder::Sort`], the default for blkparse, which merges per-CPU
//!   buffers) or is a bad line ([`TimeOrder::Reject`]). Equal times are in
//!   order. A time 2^64 ns or more after the first record is a bad line.
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
//!
//! Layout: `ahead.rs` runs a reader on its own thread for replay,
//! `pieces.rs` parses a plain file in pieces on several (a pass before the run),
//! `format.rs` is the registry of formats and their parsers,
//! `reader.rs` the streaming reader (time base, time order, sort window,
//! bad-line policy), `options.rs` its policies and counts, `clean.rs` the
//! line cleaning common to every format, `fields.rs` the shared field
//! parsers, `lines.rs` the physical-line source, `detect.rs` auto-detection,
//! `input.rs`/`encoding.rs` opening and decoding; one module per format
//! (`msr.rs`, ...) plus their fast paths (`fast.rs`), `columns.rs` for the
//! column-mapped formats.

mod ahead;
mod ascii;
mod blkparse;
mod clean;
mod cloud;
mod columns;
mod detect;
mod encoding;
mod fast;
mod fields;
mod fiu;
mod format;
mod heimdall;
mod input;
mod lines;
mod mapping;
mod msr;
/// Line mutator for the property tests and fuzz targets (public so that
/// `tests/fuzz_props.rs` can share it; not part of the simulator's API).
#[doc(hidden)]
pub mod mutate;
mod options;
pub(crate) mod pieces;
mod reader;
mod spc;
mod ssdsim;

pub use ahead::ReadAhead;
pub use columns::{ColumnMap, Sep};
pub use detect::detect_format;
pub use format::TraceFormat;
pub use input::{Compression, TraceInput, STDIN_NAME};
pub use options::{TimeOrder, TraceOptions, TraceStats, SORT_WINDOW};
pub use reader::TraceReader;

use std::io::Read;
use std::path::Path;

// The format modules name the shared helpers as `super::...`.
use clean::clean_line;
use fields::{
    count_error, field_error, int_field, is_space, parse_u64, sectors_field, time_field, u32_field,
    Fields, Parsed, RawRecord, MAX_FIELDS,
};
use lines::MAX_LINE;

use crate::error::SimResult;

/// Open `path` as a trace of `format` (`None`: detect with [`detect_format`]).
/// `-` is standard input; compressed files are decompressed (see
/// [`TraceInput`]).
pub fn open_trace(path: &Path, format: Option<TraceFormat>) -> SimResult<TraceReader> {
    open_trace_with(path, format, TraceOptions::default())
}

/// [`open_trace`] with explicit [`TraceOptions`].
pub fn open_trace_with(
    path: &Path,
    format: Option<TraceFormat>,
    options: TraceOptions,
) -> SimResult<TraceReader> {
    let input = TraceInput::open(path)?;
    reader_over(input, format, input::text_extension(path), options)
}

/// [`open_trace_with`] over any byte source (a pipe, an in-memory buffer):
/// decompressed and decoded like a file; `name` is used in messages and its
/// extension as a detection hint.
pub fn open_trace_from(
    name: &Path,
    source: Box<dyn Read + Send>,
    format: Option<TraceFormat>,
    options: TraceOptions,
) -> SimResult<TraceReader> {
    let input = TraceInput::from_reader(name, source)?;
    reader_over(input, format, input::text_extension(name), options)
}

fn reader_over(
    mut input: TraceInput,
    format: Option<TraceFormat>,
    ext: Option<String>,
    options: TraceOptions,
) -> SimResult<TraceReader> {
    let format = match format {
        Some(f) => f,
        None => detect::detect_in(&mut input, ext.as_deref())?,
    };
    let path = input.path().to_path_buf();
    let notes = input.notes().to_vec();
    Ok(TraceReader::from_reader(&path, format, Box::new(input))
        .with_options(options)
        .with_decoding(&notes))
}

#[cfg(test)]
pub(super) mod testutil {
    //! Run a format over in-memory text, as the reader does over a file.
    use super::*;
    use crate::workload::IoRecord;
    use std::io::Cursor;

    pub(crate) const PATH: &str = "/tmp/sample.trace";

    pub(crate) fn reader(format: TraceFormat, text: &[u8]) -> TraceReader {
        TraceReader::from_reader(
            Path::new(PATH),
            format,
            Box::new(Cursor::new(text.to_vec())),
        )
    }

    /// All records; panics on the first error.
    pub(crate) fn records(format: TraceFormat, text: &[u8]) -> Vec<IoRecord> {
        reader(format, text)
            .collect::<SimResult<Vec<_>>>()
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// The first error's Display text; panics when there is none.
    pub(crate) fn first_error(format: TraceFormat, text: &[u8]) -> String {
        for item in reader(format, text) {
            if let Err(e) = item {
                return e.to_string();
            }
        }
        panic!("no error in {:?}", String::from_utf8_lossy(text));
    }

    /// Asserts the error names `PATH:line` and contains `needle`.
    pub(crate) fn assert_error(format: TraceFormat, text: &[u8], line: u64, needle: &str) {
        let e = first_error(format, text);
        let loc = format!("{PATH}:{line}: ");
        assert!(e.starts_with(&loc), "error {e:?} should start with {loc:?}");
        assert!(e.contains(needle), "error {e:?} should contain {needle:?}");
    }
}
