//! Reader policies for imperfect traces (time order, bad lines) and the
//! counts a reader keeps for the run summary.

use crate::error::{SimError, SimResult};

/// How the reader treats a record whose timestamp is earlier than the
/// previous record's (see the module documentation). Equal timestamps are
/// in order under every policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeOrder {
    /// The format's own default ([`super::TraceFormat::default_time_order`]):
    /// `Sort` for blkparse, `Clamp` for every other format.
    #[default]
    Auto,
    /// Issue it at the previous record's time (counted in
    /// [`TraceStats::clamped`], shown in the run summary). File order, as
    /// MQSim and SSDsim replay traces.
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
    /// `auto`, `clamp`, `reject` or `sort` (case-insensitive).
    pub fn from_name(name: &str) -> SimResult<TimeOrder> {
        match name.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(TimeOrder::Auto),
            "clamp" => Ok(TimeOrder::Clamp),
            "reject" => Ok(TimeOrder::Reject),
            "sort" => Ok(TimeOrder::Sort),
            _ => Err(SimError::unknown(
                "time-order policy",
                name,
                &["auto", "clamp", "reject", "sort"],
            )),
        }
    }

    /// The name accepted by [`TimeOrder::from_name`].
    pub fn name(self) -> &'static str {
        match self {
            TimeOrder::Auto => "auto",
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
    /// Out-of-order timestamps (default: the format's own policy).
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
    /// The time-order policy in force (`auto` resolved for the format).
    pub time_order: &'static str,
    /// What was done to the bytes before parsing: decompression, a skipped
    /// BOM, UTF-16 transcoding, CR line endings (empty for plain text).
    pub decoding: Vec<&'static str>,
}
