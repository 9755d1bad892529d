//! A plain trace file parsed in pieces on worker threads, its records handed
//! over in file order: for a pass over a whole trace before the run
//! (SSDsim's read pre-pass, `run.rs`), which otherwise parses it on one
//! thread while the others wait (SSDsim's example x100: 56 ms of a 0.9 s
//! run; ~41 ms in pieces on two cores, BENCHMARKS.md session 48).
//!
//! The file is cut into pieces of `piece_bytes`; a piece holds the lines
//! that start in it. Each piece gets a reader of its own that behaves as the
//! whole file's reader would there ([`TraceReader::piece_of_file`]), so the
//! records are the same, in the same order, but for their times (a piece
//! clamps out-of-order times from its own first record; the pass does not
//! use times).
//!
//! Only where that holds, else the caller reads the file in one pass: a
//! regular file of plain text (no compression, encoding or CR-only line
//! endings), a format whose lines parse alone (not blkparse, whose events
//! pair up, nor the column mappings, whose header is line 1), time order
//! `clamp` (a sort window or a rejected record depends on the lines before
//! it). And only until something is unusual: a bad line, an over-long line,
//! a first piece with no record in it (tar junk may stretch past it). Then
//! the records handed over so far are counted and the caller reads the rest
//! in one pass, which also words the error exactly as a run would.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use super::lines::MAX_LINE;
use super::{open_trace_with, TimeOrder, TraceFormat, TraceOptions, TraceReader};
use crate::error::SimResult;
use crate::workload::IoRecord;

/// Bytes per piece: twice the longest line a reader takes, small enough
/// that the pieces in flight (at most four per worker: one being read, one
/// waiting, two emptied lists to refill; at most four workers) hold a few
/// MiB of records each: with 28-byte lines, 2.4 MiB, and ~40 MiB at most
/// for a moment before the run, less than any device's own tables.
pub(crate) const PIECE_BYTES: u64 = 2 << 20;

/// What [`for_each_record`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Handed {
    /// Every record (up to the limit) was handed over.
    All,
    /// The first this-many records were handed over; the caller reads the
    /// rest in one pass (skipping those).
    First(u64),
}

/// The records of one piece, up to its first trouble.
struct Piece {
    records: Vec<IoRecord>,
    /// A bad line, an over-long line or a read error stopped it (the
    /// records before it are in `records`).
    trouble: bool,
    /// The piece's reader saw a record (tar junk is not tolerated after).
    seen_record: bool,
}

/// Hand the records of the trace at `path` (at most `limit`) to `f`, in
/// file order, parsing pieces of `piece_bytes` on worker threads. See the
/// module documentation for when it hands over only some, or none.
pub(crate) fn for_each_record(
    path: &Path,
    format: Option<TraceFormat>,
    options: TraceOptions,
    limit: Option<u64>,
    piece_bytes: u64,
    f: &mut dyn FnMut(IoRecord),
) -> SimResult<Handed> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    let len = match std::fs::metadata(path) {
        Ok(m) if m.is_file() => m.len(),
        _ => return Ok(Handed::First(0)),
    };
    let pieces = len.div_ceil(piece_bytes.max(1));
    if workers < 2 || pieces < 2 || limit == Some(0) {
        return Ok(Handed::First(0));
    }
    // The whole file's reader, for what it decided (format, decoding, time
    // order) and the first record's time.
    let mut probe = open_trace_with(path, format, options)?;
    let splits = probe.stats().decoding.is_empty()
        && probe.time_order() == TimeOrder::Clamp
        && lines_parse_alone(probe.format());
    if !splits || !matches!(probe.next(), Some(Ok(_))) {
        return Ok(Handed::First(0));
    }
    let first_ts = probe.time_base();
    let format = probe.format().clone();
    drop(probe);
    let limit = limit.unwrap_or(u64::MAX);
    let workers = workers.min(pieces as usize);
    std::thread::scope(|s| {
        let mut links = Vec::with_capacity(workers);
        for w in 0..workers {
            let (tx, rx) = sync_channel::<Piece>(1);
            // Emptied record lists go back to be filled again (fresh ones
            // of a few MiB each cost their page faults every time).
            let (give_back, spare) = sync_channel::<Vec<IoRecord>>(2);
            let format = format.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("trace-piece-{w}"))
                .spawn_scoped(s, move || {
                    let job = Job {
                        path,
                        format,
                        options,
                        first_ts,
                        len,
                        piece_bytes,
                    };
                    job.run(w as u64, workers as u64, pieces, &tx, &spare);
                });
            if spawned.is_err() {
                return Ok(Handed::First(0));
            }
            links.push((rx, give_back));
        }
        let handed = hand_over(&links, pieces, limit, f);
        // Workers still reading stop at their next send.
        drop(links);
        Ok(handed)
    })
}

/// The pieces, in order, from the workers that read them in turn (each
/// piece's list of records given back to its worker).
fn hand_over(
    links: &[(Receiver<Piece>, SyncSender<Vec<IoRecord>>)],
    pieces: u64,
    limit: u64,
    f: &mut dyn FnMut(IoRecord),
) -> Handed {
    let mut handed = 0u64;
    for i in 0..pieces {
        let (inbox, give_back) = &links[(i % links.len() as u64) as usize];
        let Ok(mut piece) = inbox.recv() else {
            return Handed::First(handed);
        };
        for r in piece.records.drain(..) {
            if handed == limit {
                return Handed::All;
            }
            f(r);
            handed += 1;
        }
        // (A worker that has stopped takes none back.)
        let _ = give_back.try_send(piece.records);
        // Pieces after the first assume a record came before them.
        if piece.trouble || (i == 0 && !piece.seen_record) {
            return Handed::First(handed);
        }
    }
    // No record at all: the one-pass reader says so.
    match handed {
        0 => Handed::First(0),
        _ => Handed::All,
    }
}

/// Formats whose every line parses on its own (no state across lines, no
/// header found by its line number).
fn lines_parse_alone(format: &TraceFormat) -> bool {
    matches!(
        format,
        TraceFormat::Msr
            | TraceFormat::Spc
            | TraceFormat::AsciiNs
            | TraceFormat::AsciiMs
            | TraceFormat::Ssdsim
            | TraceFormat::Fiu
            | TraceFormat::Heimdall
    )
}

/// What a worker reads pieces with.
struct Job<'a> {
    path: &'a Path,
    format: TraceFormat,
    options: TraceOptions,
    first_ts: Option<u128>,
    len: u64,
    piece_bytes: u64,
}

impl Job<'_> {
    /// Pieces `first`, `first + step`, ... until the end, trouble, or the
    /// receiver is gone.
    fn run(
        &self,
        first: u64,
        step: u64,
        pieces: u64,
        tx: &SyncSender<Piece>,
        spare: &Receiver<Vec<IoRecord>>,
    ) {
        let mut file = File::open(self.path).ok();
        let mut i = first;
        while i < pieces {
            let records = spare.try_recv().unwrap_or_default();
            let piece = match file.as_mut().map(|f| self.parse(f, i, records)) {
                Some(Ok(piece)) => piece,
                _ => Piece {
                    records: Vec::new(),
                    trouble: true,
                    seen_record: false,
                },
            };
            let stop = piece.trouble;
            if tx.send(piece).is_err() || stop {
                return;
            }
            i += step;
        }
    }

    /// The records of the lines that start in piece `i`, read from `file`
    /// into `records`.
    fn parse(&self, file: &mut File, i: u64, mut records: Vec<IoRecord>) -> std::io::Result<Piece> {
        let lo = i * self.piece_bytes;
        let hi = (lo + self.piece_bytes).min(self.len);
        let (Some(start), Some(end)) = (self.line_start(file, lo)?, self.line_start(file, hi)?)
        else {
            // A line too long for a reader: the one pass reports it.
            return Ok(Piece {
                records,
                trouble: true,
                seen_record: false,
            });
        };
        file.seek(SeekFrom::Start(start))?;
        let lines = file.try_clone()?.take(end.saturating_sub(start));
        let mut reader = TraceReader::from_reader(self.path, self.format.clone(), Box::new(lines))
            .with_options(self.options)
            .piece_of_file(if i == 0 { None } else { self.first_ts });
        let mut trouble = false;
        for item in reader.by_ref() {
            match item {
                Ok(r) => records.push(r),
                Err(_) => {
                    trouble = true;
                    break;
                }
            }
        }
        Ok(Piece {
            records,
            trouble,
            seen_record: reader.seen_record(),
        })
    }

    /// Where the first line that starts at or after `pos` starts (a line
    /// starts at 0 and after each newline; the end of the file if none
    /// does), or `None` past a line longer than any reader takes.
    fn line_start(&self, file: &mut File, pos: u64) -> std::io::Result<Option<u64>> {
        if pos == 0 || pos >= self.len {
            return Ok(Some(pos.min(self.len)));
        }
        file.seek(SeekFrom::Start(pos - 1))?;
        let mut buf = [0u8; 4096];
        let mut at = pos - 1;
        while at - (pos - 1) <= MAX_LINE as u64 + 1 {
            let n = file.read(&mut buf)?;
            if n == 0 {
                return Ok(Some(self.len));
            }
            if let Some(p) = buf[..n].iter().position(|&b| b == b'\n') {
                return Ok(Some(at + p as u64 + 1));
            }
            at += n as u64;
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Op;
    use crate::rng::Rng;
    use std::path::PathBuf;

    fn write(name: &str, text: &[u8]) -> PathBuf {
        let p =
            std::env::temp_dir().join(format!("flashsched-pieces-{}-{name}", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    /// (offset, size, op, stream) of each record: what a pass uses.
    fn key(r: &IoRecord) -> (u64, u32, Op, u32) {
        (r.offset, r.size, r.op, r.stream)
    }

    fn one_pass(
        path: &Path,
        format: &TraceFormat,
        options: TraceOptions,
    ) -> Vec<SimResult<IoRecord>> {
        open_trace_with(path, Some(format.clone()), options)
            .unwrap()
            .collect()
    }

    fn in_pieces(
        path: &Path,
        format: &TraceFormat,
        options: TraceOptions,
        limit: Option<u64>,
        piece: u64,
    ) -> (Handed, Vec<(u64, u32, Op, u32)>) {
        let mut got = Vec::new();
        let h = for_each_record(
            path,
            Some(format.clone()),
            options,
            limit,
            piece,
            &mut |r| got.push(key(&r)),
        )
        .unwrap();
        (h, got)
    }

    /// A line of `format` for record `n` (times out of order now and then,
    /// sizes of 0 now and then: clamped and dropped records).
    fn line(format: &TraceFormat, rng: &mut Rng, n: u64) -> String {
        let t = n * 1000 + rng.below(3000);
        let (dev, sec, len) = (rng.below(3), rng.below(1 << 30), rng.below(64));
        let read = rng.below(2) == 1;
        match format {
            TraceFormat::AsciiNs | TraceFormat::Ssdsim => {
                format!("{t} {dev} {sec} {len} {}", read as u8)
            }
            TraceFormat::AsciiMs => format!(
                "{}.{:06}\t{dev}\t{sec}\t{len}\t0x{}",
                t / 1000,
                t % 1000,
                read as u8
            ),
            TraceFormat::Heimdall => {
                format!("{t} {dev} {} {} {}", sec * 512, len * 512, read as u8)
            }
            TraceFormat::Msr => format!(
                "{t},hm,{dev},{},{},{},{}",
                if read { "Read" } else { "Write" },
                sec * 512,
                len * 512,
                rng.below(9999)
            ),
            TraceFormat::Spc => format!(
                "{dev},{sec},{},{},{}.{:06}",
                len * 512,
                if read { 'R' } else { 'W' },
                t / 1000,
                t % 1000
            ),
            TraceFormat::Fiu => format!(
                "{t} 4 proc {sec} {len} {} 8 0 {:032x}",
                if read { 'R' } else { 'W' },
                rng.below(u64::MAX)
            ),
            other => unreachable!("{other}"),
        }
    }

    /// `lines` records of `format`, with comments, blank lines and CRLF
    /// endings among them.
    fn trace(format: &TraceFormat, lines: u64, seed: u64) -> Vec<u8> {
        let mut rng = Rng::new(seed);
        let mut text = String::new();
        for n in 0..lines {
            match rng.below(40) {
                0 => text.push_str("# a comment\n"),
                1 => text.push('\n'),
                _ => {}
            }
            text.push_str(&line(format, &mut rng, n));
            text.push_str(if rng.below(10) == 0 { "\r\n" } else { "\n" });
        }
        text.into_bytes()
    }

    const FORMATS: [TraceFormat; 7] = [
        TraceFormat::AsciiNs,
        TraceFormat::AsciiMs,
        TraceFormat::Ssdsim,
        TraceFormat::Heimdall,
        TraceFormat::Msr,
        TraceFormat::Spc,
        TraceFormat::Fiu,
    ];

    #[test]
    fn pieces_hand_over_the_one_pass_records_in_order() {
        for (k, format) in FORMATS.iter().enumerate() {
            let path = write(&format!("same-{k}"), &trace(format, 3000, k as u64));
            let want: Vec<_> = one_pass(&path, format, TraceOptions::default())
                .iter()
                .map(|r| key(r.as_ref().unwrap()))
                .collect();
            assert!(want.len() > 2500, "{format}: {}", want.len());
            // Pieces shorter than a line (most own no line start), about a
            // line, and many lines.
            for piece in [7, 50, 101, 4096, 50_000] {
                let (h, got) = in_pieces(&path, format, TraceOptions::default(), None, piece);
                assert_eq!(h, Handed::All, "{format}, pieces of {piece}");
                assert_eq!(got, want, "{format}, pieces of {piece}");
            }
            let (h, got) = in_pieces(&path, format, TraceOptions::default(), Some(1234), 1000);
            assert_eq!(
                (h, &got[..]),
                (Handed::All, &want[..1234]),
                "{format}, limit"
            );
            std::fs::remove_file(path).unwrap();
        }
    }

    #[test]
    fn a_bad_line_stops_the_hand_over_where_one_pass_fails() {
        let format = TraceFormat::AsciiNs;
        let mut text = trace(&format, 2000, 7);
        // A bad line after the 1500th line.
        let at = text
            .iter()
            .enumerate()
            .filter(|(_, &b)| b == b'\n')
            .nth(1499)
            .unwrap()
            .0
            + 1;
        text.splice(at..at, b"12 0 5 banana 1\n".iter().copied());
        let path = write("bad", &text);
        let all = one_pass(&path, &format, TraceOptions::default());
        let good = all.iter().take_while(|r| r.is_ok()).count() as u64;
        assert!(all[good as usize].is_err() && good > 1400);
        let (h, got) = in_pieces(&path, &format, TraceOptions::default(), None, 600);
        let Handed::First(n) = h else { panic!("{h:?}") };
        assert!(n <= good, "{n} records handed, {good} before the bad line");
        let want: Vec<_> = all[..n as usize]
            .iter()
            .map(|r| key(r.as_ref().unwrap()))
            .collect();
        assert_eq!(got, want);
        // Within the limit, the bad line is never reached.
        let (h, got) = in_pieces(&path, &format, TraceOptions::default(), Some(1000), 600);
        assert_eq!((h, got.len()), (Handed::All, 1000));
        // Skipped bad lines are skipped in pieces too.
        let skip = TraceOptions {
            skip_bad: true,
            ..TraceOptions::default()
        };
        let want: Vec<_> = one_pass(&path, &format, skip)
            .iter()
            .map(|r| key(r.as_ref().unwrap()))
            .collect();
        assert_eq!(
            in_pieces(&path, &format, skip, None, 600),
            (Handed::All, want)
        );
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn an_over_long_line_stops_the_hand_over() {
        let format = TraceFormat::Ssdsim;
        let mut text = trace(&format, 100, 3);
        text.extend(std::iter::repeat_n(b'7', MAX_LINE + 10));
        text.push(b'\n');
        text.extend(trace(&format, 100, 4));
        let path = write("long", &text);
        let (h, got) = in_pieces(&path, &format, TraceOptions::default(), None, 4096);
        assert!(matches!(h, Handed::First(n) if n <= 100), "{h:?}");
        assert!(got.len() <= 100);
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn files_it_cannot_split_are_left_to_one_pass() {
        let format = TraceFormat::AsciiNs;
        let text = trace(&format, 500, 5);
        let path = write("plain", &text);
        let first0 = |format: &TraceFormat, options| in_pieces(&path, format, options, None, 256).0;
        // Time orders that look back over earlier lines.
        for order in [TimeOrder::Sort, TimeOrder::Reject] {
            let o = TraceOptions {
                time_order: order,
                ..TraceOptions::default()
            };
            assert_eq!(first0(&format, o), Handed::First(0), "{order:?}");
        }
        // A format whose lines do not parse alone.
        assert_eq!(
            first0(&TraceFormat::Blkparse, TraceOptions::default()),
            Handed::First(0)
        );
        // Compressed: not plain text.
        let gz = write(
            "plain.gz",
            &super::super::input::tests::compress(super::super::Compression::Gzip, &text),
        );
        assert_eq!(
            in_pieces(&gz, &format, TraceOptions::default(), None, 256).0,
            Handed::First(0)
        );
        // Junk before the first record that runs past the first piece.
        let mut junk = vec![0u8; 700];
        junk.push(b'\n');
        junk.extend_from_slice(&text);
        let j = write("junk", &junk);
        assert!(one_pass(&j, &format, TraceOptions::default())[0].is_ok());
        assert_eq!(
            in_pieces(&j, &format, TraceOptions::default(), None, 256).0,
            Handed::First(0)
        );
        for p in [path, gz, j] {
            std::fs::remove_file(p).unwrap();
        }
    }
}
