//! The streaming reader: physical lines in, records out, with the time base,
//! the time-order policy (including the sort window), size checks and the
//! bad-line policy common to every format.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::clean::{clean_line, clean_text};
use super::fields::{Parsed, RawRecord};
use super::format::{Parser, TraceFormat};
use super::lines::{LineSource, Next, MAX_LINE};
use super::options::{TimeOrder, TraceOptions, TraceStats, SORT_WINDOW};
use crate::error::{SimError, SimResult};
use crate::workload::IoRecord;

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
    /// `options.time_order` with `Auto` resolved for the format.
    order: TimeOrder,
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
    /// Reads a piece of a file (`pieces.rs`): no verdict on a piece
    /// without records.
    piece: bool,
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
    /// A reader over plain text from any byte source (it does its own
    /// buffering; no decompression or encoding detection: see
    /// [`super::open_trace_from`]); `path` is only used in messages.
    pub fn from_reader(
        path: &Path,
        format: TraceFormat,
        reader: Box<dyn Read + Send>,
    ) -> TraceReader {
        let parser = Parser::new(&format);
        TraceReader {
            path: path.to_path_buf(),
            format,
            src: LineSource::new(reader),
            options: TraceOptions::default(),
            order: TimeOrder::Clamp,
            stats: TraceStats::default(),
            first_ts: None,
            last_ts: 0,
            seen_record: false,
            parser,
            window: None,
            eof: false,
            done: false,
            piece: false,
        }
        .with_options(TraceOptions::default())
    }

    /// Set the reader policies.
    pub fn with_options(mut self, options: TraceOptions) -> TraceReader {
        self.options = options;
        self.order = match options.time_order {
            TimeOrder::Auto => self.format.default_time_order(),
            other => other,
        };
        self.stats.time_order = self.order.name();
        self.window =
            (self.order == TimeOrder::Sort).then(|| BinaryHeap::with_capacity(SORT_WINDOW + 1));
        self
    }

    /// Record what was done to the bytes (decompression, encoding).
    pub(super) fn with_decoding(mut self, notes: &[&'static str]) -> TraceReader {
        self.stats.decoding = notes.to_vec();
        self
    }

    /// A reader of a piece of a file (`pieces.rs`) that yields the
    /// records the whole file's reader yields from there: a piece after
    /// the first continues after a record (`after`: the time base, the
    /// first record's time), so tar junk is not tolerated in it and times
    /// count from the file's first record. Only its clamped times differ
    /// (it clamps from that time, not from the record before the piece),
    /// and a piece without records is not an error.
    pub(super) fn piece_of_file(mut self, after: Option<u128>) -> TraceReader {
        self.piece = true;
        if let Some(first) = after {
            self.seen_record = true;
            self.first_ts = Some(first);
            self.last_ts = first;
        }
        self
    }

    /// The raw time of the first record delivered (times count from it).
    pub(super) fn time_base(&self) -> Option<u128> {
        self.first_ts
    }

    /// Whether a record (delivered or dropped) was seen: after one, tar
    /// junk is no longer tolerated.
    pub(super) fn seen_record(&self) -> bool {
        self.seen_record
    }

    /// The format being parsed.
    pub fn format(&self) -> &TraceFormat {
        &self.format
    }

    /// The time-order policy in force (`Auto` resolved for the format).
    pub fn time_order(&self) -> TimeOrder {
        self.order
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
    fn bad_line(&mut self, msg: String) -> Option<Box<SimError>> {
        self.bad_line_at(self.stats.lines, msg)
    }

    /// [`TraceReader::bad_line`] for an earlier line (a record leaving the
    /// sort window).
    #[cold]
    fn bad_line_at(&mut self, line: u64, msg: String) -> Option<Box<SimError>> {
        let e = Box::new(SimError::Trace {
            file: self.path.clone(),
            line,
            msg,
        });
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
        if self.stats.records > 0 || self.piece {
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
        Some(Err(self
            .trace_error(format!("no records in this {} trace: {why}", self.format))
            .into()))
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
            if self.order == TimeOrder::Reject {
                // Relative to the first record, signed: a record can be
                // earlier than the first one.
                let rel = |t: u128| {
                    if t >= first {
                        format!("{}", t - first)
                    } else {
                        format!("-{}", first - t)
                    }
                };
                return Err(format!(
                    "time {} ns is earlier than the previous record's {} ns, by {} ns \
                     (times relative to the first record; time order `reject` accepts equal \
                     or later times only; `sort` reorders such records, `clamp` issues them \
                     at the previous time)",
                    rel(ts),
                    rel(self.last_ts),
                    self.last_ts - ts
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
                    }
                    .into()));
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
            let msg = match self.parser.parse(text, self.stats.lines) {
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

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::*;

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
                "{PATH}:3: time -1000000 ns is earlier than the previous record's 2500000 ns, \
                 by 3500000 ns (times relative to the first record; time order `reject` accepts \
                 equal or later times only"
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
    fn equal_times_are_in_order_for_every_policy() {
        // Equal times (the first two also equal to the first record's).
        let text = b"5 0 0 512 1\n5 0 512 512 0\n5 0 0 512 1\n7 0 0 512 1\n7 0 0 512 1\n";
        for order in [
            TimeOrder::Clamp,
            TimeOrder::Reject,
            TimeOrder::Sort,
            TimeOrder::Auto,
        ] {
            let opts = TraceOptions {
                skip_bad: false,
                time_order: order,
            };
            let mut r = reader(TraceFormat::Heimdall, text).with_options(opts);
            let times: Vec<u64> = r.by_ref().map(|x| x.unwrap().time_ns).collect();
            assert_eq!(times, [0, 0, 0, 2_000_000, 2_000_000], "{order:?}");
            assert_eq!(r.stats().clamped, 0);
        }
        // Before the first record: the signed time says so.
        let opts = TraceOptions {
            skip_bad: false,
            time_order: TimeOrder::Reject,
        };
        let e = reader(TraceFormat::Heimdall, b"5 0 0 512 1\n4.999 0 0 512 1\n")
            .with_options(opts)
            .nth(1)
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(":2: time -1000 ns is earlier than the previous record's 0 ns, by 1000 ns"),
            "{e}"
        );
    }

    #[test]
    fn auto_time_order_is_the_formats_own() {
        let r = reader(TraceFormat::Blkparse, b"");
        assert_eq!(
            (r.time_order(), r.stats().time_order),
            (TimeOrder::Sort, "sort")
        );
        let r = reader(TraceFormat::Msr, b"");
        assert_eq!(
            (r.time_order(), r.stats().time_order),
            (TimeOrder::Clamp, "clamp")
        );
        let opts = TraceOptions {
            skip_bad: false,
            time_order: TimeOrder::Clamp,
        };
        let r = reader(TraceFormat::BlkparseQ, b"").with_options(opts);
        assert_eq!(r.time_order(), TimeOrder::Clamp);
        assert_eq!(TimeOrder::from_name(" AUTO ").unwrap(), TimeOrder::Auto);
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
