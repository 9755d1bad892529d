//! A trace reader on its own thread, a few batches of records ahead of the
//! simulation that replays them: parsing a text trace is 5-8 % of a run on
//! the peers' presets (BENCHMARKS.md, issue #23), and with a second core it
//! overlaps the simulation instead of adding to it.
//!
//! What the simulation sees is exactly what the reader yields, in order:
//! the same records, the same first error. Two differences from calling the
//! reader in place, both at the ends of a run:
//! - With a record `limit` the thread stops after that many records, so the
//!   lines it read (and counted) are those an in-place reader would have.
//! - The stream ends after its first error (the replay fails there; an
//!   in-place reader could be resumed past a bad line).
//!
//! [`ReadAhead::stats`] is the reader's statistics as of the last record
//! handed over in a batch: exact once the stream has ended, at most one
//! batch ahead of the records consumed before that.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use super::{TraceReader, TraceStats};
use crate::engine::prefetch;
use crate::error::{SimError, SimResult};
use crate::workload::IoRecord;

/// Records per hand-over: large enough that the channel costs nothing per
/// record, small enough that the first records arrive at once.
const BATCH: usize = 4096;
/// Batches the thread may be ahead (memory: `(AHEAD + 2) × BATCH` records).
const AHEAD: usize = 2;
/// Records ahead of the one consumed that are fetched into the cache (four
/// 64-byte lines of 32-byte records).
const PREFETCH_AHEAD: usize = 8;

/// One hand-over from the reading thread: records, and the error that
/// ended the stream after them, if one did. (Plain records are half the
/// size of results: the simulation's core reads each line of them from the
/// other core's cache.)
struct Batch {
    items: Vec<IoRecord>,
    error: Option<Box<SimError>>,
    /// The reader's statistics after the batch's last item.
    stats: TraceStats,
    /// Nothing follows (end of trace, the limit, or an error).
    last: bool,
}

/// A [`TraceReader`] running on its own thread (in place when no thread
/// can be started), yielding at most `limit` records.
pub struct ReadAhead {
    path: PathBuf,
    mode: Mode,
}

enum Mode {
    Thread {
        rx: Receiver<Batch>,
        items: std::vec::IntoIter<IoRecord>,
        /// The error after the last batch's records (the stream's end).
        error: Option<Box<SimError>>,
        /// The reader's statistics as of the last batch received.
        stats: TraceStats,
        ended: bool,
        /// The reading thread (it ends by itself: at its last batch, or at
        /// the first send after this reader is dropped).
        #[cfg_attr(not(test), allow(dead_code))]
        thread: std::thread::JoinHandle<()>,
    },
    InPlace {
        reader: Box<TraceReader>,
        /// Records still to deliver.
        left: u64,
    },
}

impl ReadAhead {
    /// Read `reader`'s records, at most `limit` of them, on a thread.
    pub fn new(reader: Box<TraceReader>, limit: Option<u64>) -> ReadAhead {
        let path = reader.path().to_path_buf();
        let mode = match spawn(reader, limit) {
            Ok(mode) => mode,
            Err(reader) => Mode::InPlace {
                reader,
                left: limit.unwrap_or(u64::MAX),
            },
        };
        ReadAhead { path, mode }
    }

    /// The trace's path, for messages.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The reader's statistics (on a thread: as of the last batch received).
    pub fn stats(&self) -> &TraceStats {
        match &self.mode {
            Mode::Thread { stats, .. } => stats,
            Mode::InPlace { reader, .. } => reader.stats(),
        }
    }
}

/// Start the reading thread; the reader comes back unchanged if none can be.
fn spawn(reader: Box<TraceReader>, limit: Option<u64>) -> Result<Mode, Box<TraceReader>> {
    // The reader goes to the thread only once the thread exists, so a
    // failed spawn leaves it with the caller.
    let (give, take) = sync_channel::<Box<TraceReader>>(1);
    let (tx, rx) = sync_channel(AHEAD);
    let spawned = std::thread::Builder::new()
        .name("trace-read".into())
        .spawn(move || {
            if let Ok(reader) = take.recv() {
                produce(*reader, limit, &tx);
            }
        });
    let Ok(thread) = spawned else {
        return Err(reader);
    };
    let stats = reader.stats().clone();
    give.send(reader).map_err(|back| back.0)?;
    Ok(Mode::Thread {
        rx,
        items: Vec::new().into_iter(),
        error: None,
        stats,
        ended: false,
        thread,
    })
}

/// The reading thread: batches until the trace ends, `limit` records have
/// been read, an error is met, or the receiver is gone.
fn produce(mut reader: TraceReader, limit: Option<u64>, tx: &SyncSender<Batch>) {
    let mut left = limit.unwrap_or(u64::MAX);
    loop {
        let mut items = Vec::with_capacity(BATCH);
        let mut error = None;
        let mut last = false;
        while items.len() < BATCH {
            if left == 0 {
                last = true;
                break;
            }
            match reader.next() {
                None => {
                    last = true;
                    break;
                }
                Some(Ok(r)) => {
                    left -= 1;
                    items.push(r);
                }
                Some(Err(e)) => {
                    error = Some(e);
                    last = true;
                    break;
                }
            }
        }
        let stats = reader.stats().clone();
        let batch = Batch {
            items,
            error,
            stats,
            last,
        };
        if tx.send(batch).is_err() || last {
            return;
        }
    }
}

impl Iterator for ReadAhead {
    type Item = SimResult<IoRecord>;

    fn next(&mut self) -> Option<SimResult<IoRecord>> {
        let (rx, items, error, stats, ended) = match &mut self.mode {
            Mode::InPlace { reader, left } => {
                if *left == 0 {
                    return None;
                }
                let item = reader.next();
                if matches!(item, Some(Ok(_))) {
                    *left -= 1;
                }
                return item;
            }
            Mode::Thread {
                rx,
                items,
                error,
                stats,
                ended,
                ..
            } => (rx, items, error, stats, ended),
        };
        loop {
            if let Some(item) = items.next() {
                // The batch was written on the reading thread's core: fetch
                // the records a few cache lines ahead of the one used now.
                if let Some(ahead) = items.as_slice().get(PREFETCH_AHEAD) {
                    prefetch(ahead);
                }
                return Some(Ok(item));
            }
            if let Some(e) = error.take() {
                return Some(Err(e));
            }
            if *ended {
                return None;
            }
            match rx.recv() {
                Ok(b) => {
                    *items = b.items.into_iter();
                    *error = b.error;
                    *stats = b.stats;
                    *ended = b.last;
                }
                // Never a silent end: the thread always marks its last batch.
                Err(_) => {
                    *ended = true;
                    return Some(Err(SimError::Io {
                        path: self.path.clone(),
                        source: std::io::Error::other("the trace-reading thread stopped"),
                    }
                    .into()));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::reader;
    use super::super::{TimeOrder, TraceFormat, TraceOptions};
    use super::*;

    /// `n` ascii-ns lines, one every microsecond; line `bad` (1-based, if
    /// any) does not parse.
    fn text(n: usize, bad: Option<usize>) -> Vec<u8> {
        let mut s = String::new();
        for i in 1..=n {
            if Some(i) == bad {
                s.push_str("oops\n");
            } else {
                s.push_str(&format!("{} 0 {} 8 {}\n", i * 1000, i * 8, i % 2));
            }
        }
        s.into_bytes()
    }

    /// A reader on its thread (the tests are about the thread).
    fn threaded(r: TraceReader, limit: Option<u64>) -> ReadAhead {
        let a = ReadAhead::new(Box::new(r), limit);
        assert!(matches!(a.mode, Mode::Thread { .. }), "no thread");
        a
    }

    fn show(item: &SimResult<IoRecord>) -> String {
        match item {
            Ok(r) => format!("{r:?}"),
            Err(e) => format!("error: {e}"),
        }
    }

    fn in_place(t: &[u8], limit: Option<u64>, skip: bool) -> (Vec<String>, TraceStats) {
        let mut r = reader(TraceFormat::AsciiNs, t).with_options(TraceOptions {
            skip_bad: skip,
            ..Default::default()
        });
        let mut out = Vec::new();
        // As `Replay` asks: the limit is checked before the next read.
        while limit.is_none_or(|l| (out.len() as u64) < l) {
            let Some(item) = r.next() else { break };
            let failed = item.is_err();
            out.push(show(&item));
            if failed {
                break;
            }
        }
        (out, r.stats().clone())
    }

    fn ahead(t: &[u8], limit: Option<u64>, skip: bool) -> (Vec<String>, TraceStats) {
        let r = reader(TraceFormat::AsciiNs, t).with_options(TraceOptions {
            skip_bad: skip,
            ..Default::default()
        });
        let mut a = threaded(r, limit);
        let out: Vec<String> = a.by_ref().map(|i| show(&i)).collect();
        (out, a.stats().clone())
    }

    /// Across batch boundaries, with and without a limit, skipped and fatal
    /// bad lines: the same items and the same line counts as in place.
    #[test]
    fn same_records_and_counts_as_in_place() {
        for (n, limit, bad, skip) in [
            (0, None, None, false),
            (5, None, None, false),
            (BATCH, None, None, false),
            (3 * BATCH + 7, None, None, false),
            (3 * BATCH + 7, Some(BATCH as u64), None, false),
            (
                3 * BATCH + 7,
                Some(2 * BATCH as u64 + 1),
                Some(BATCH + 3),
                true,
            ),
            (3 * BATCH + 7, None, Some(2 * BATCH + 5), false),
            (3 * BATCH + 7, Some(10), Some(2 * BATCH), false),
        ] {
            let t = text(n, bad);
            let want = in_place(&t, limit, skip);
            let got = ahead(&t, limit, skip);
            assert_eq!(
                got.0.len(),
                want.0.len(),
                "n={n} limit={limit:?} bad={bad:?}"
            );
            assert_eq!(got, want, "n={n} limit={limit:?} bad={bad:?}");
        }
        // The fatal bad line is the last item and names its line.
        let (items, _) = ahead(&text(50, Some(20)), None, false);
        assert_eq!(items.len(), 20);
        assert!(items[19].contains(":20:"), "{}", items[19]);
        // An empty trace is the reader's "no records" error, not a silent end.
        let (items, _) = ahead(b"", None, false);
        assert_eq!(items.len(), 1);
        assert!(items[0].contains("no records"), "{items:?}");
    }

    /// The sort window's reordering happens on the thread as it would in
    /// place.
    #[test]
    fn sort_window_on_the_thread() {
        let t = b"3000 0 8 8 1\n1000 0 16 8 1\n2000 0 24 8 0\n";
        let opts = TraceOptions {
            time_order: TimeOrder::Sort,
            ..Default::default()
        };
        let want: Vec<_> = reader(TraceFormat::AsciiNs, t)
            .with_options(opts)
            .map(|i| format!("{i:?}"))
            .collect();
        let r = reader(TraceFormat::AsciiNs, t).with_options(opts);
        let got: Vec<_> = threaded(r, None).map(|i| format!("{i:?}")).collect();
        assert_eq!(got, want);
    }

    /// Dropping the consumer early stops the thread (its next send fails)
    /// instead of leaving it blocked on a full channel.
    #[test]
    fn dropping_the_consumer_stops_the_thread() {
        let t = text(20 * BATCH, None);
        let mut a = threaded(reader(TraceFormat::AsciiNs, &t), None);
        assert!(matches!(a.next(), Some(Ok(_))));
        let Mode::Thread { thread, rx, .. } = a.mode else {
            unreachable!("checked by `threaded`")
        };
        assert!(!thread.is_finished(), "20 batches cannot all be queued");
        drop(rx);
        let t0 = std::time::Instant::now();
        while !thread.is_finished() {
            assert!(t0.elapsed().as_secs() < 20, "the thread is still running");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
}
