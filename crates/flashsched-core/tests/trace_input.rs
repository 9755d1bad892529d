//! Traces as they are shipped and stored: compressed, piped, in other text
//! encodings and line endings. Properties, per reader, over random documents
//! (deterministic seeds; `FLASHSCHED_FUZZ_ITERS` runs more):
//!
//! - every variant of a document (LF, CRLF or CR-only line endings, with or
//!   without a final line break; UTF-8, UTF-8 with a BOM, UTF-16 LE/BE with and
//!   without a BOM; plain, gzip, zstd, xz or bzip2; delivered in random
//!   chunks as a pipe delivers it) reads as the same records, with the same
//!   line numbers in errors, as the plain LF UTF-8 text, and is detected as
//!   the same format;
//! - MSR lines run together (what CR-only endings did to the old reader) are
//!   an error naming file:line, never one record;
//! - `reject` accepts equal timestamps and fails only on earlier ones.
//!
//! And worked examples: files named for another compression, a FIFO (the
//! `zcat x.gz | ... --trace /dev/stdin` case: opened and read once).

use crate::common;
use common::traces_dir;

use std::io::{Cursor, Read, Write};
use std::path::{Path, PathBuf};

use flashsched_core::error::SimResult;
use flashsched_core::rng::Rng;
use flashsched_core::workload::trace::{
    open_trace, open_trace_from, open_trace_with, Compression, TimeOrder, TraceFormat, TraceOptions,
};
use flashsched_core::workload::IoRecord;

const NAME: &str = "/tmp/input.trace";

fn iters(default: u64) -> u64 {
    std::env::var("FLASHSCHED_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Valid lines per format (times increasing within each list).
fn corpus() -> Vec<(&'static str, &'static [&'static str])> {
    vec![
        (
            "msr",
            &[
                "128166385295514663,hm,0,Write,9056014336,2048,2833",
                "128166385295524878,hm,1,Read,11855351808,512,2617",
                "128166385295534878,hm,1,Read,4096,4096",
            ],
        ),
        (
            "spc",
            &["0,657728,8192,R,0.011413", "1,31244784,32768,w,0.011565"],
        ),
        (
            "ascii-ns",
            &["938513000 4 264719034 16 0", "938828000 3 197570570 16 1"],
        ),
        (
            "ascii-ms",
            &["13.191135\t30\t0\t5\t1", "17.829285\t20\t576560\t6\t0x10"],
        ),
        ("ssdsim", &["0 0 303567 7 0", "78643005 1 55596 6 1"]),
        (
            "blkparse",
            &[
                "  8,16   3        9     0.000032064  4528  D   R 584808 + 936 [java]",
                "  8,16   2        5     0.000041000  4529  D  WS 100 + 8 [kworker]",
            ],
        ),
        (
            "fiu",
            &[
                "89966527950584 4253 nfsd 508516672 8 W 6 0 88b93b628d84082186026d9da044f173",
                "89966527960584 4253 nfsd 508516680 16 R 6 0 88b93b628d84082186026d9da044f173",
            ],
        ),
        (
            "heimdall",
            &[
                "223.412 0 3159347200 36864 0",
                "223.434\t3 3154132992 4096 1",
            ],
        ),
        (
            "systor",
            &[
                "1456135200.013118000,0.000648000,W,4,8192,4096",
                "1456135200.013200000,0.000100000,R,3,1024,512",
                "1456135200.013300000,0.000100000,,3,0,512",
            ],
        ),
        (
            "alibaba",
            &[
                "0,R,126703644672,4096,1577808000000626",
                "7,W,4096,8192,1577808000001626",
            ],
        ),
        (
            "tencent",
            &["1538323200,4096,16,0,1063", "1538323201,8,8,1,7"],
        ),
        (
            "vscsi",
            &[
                "2147483692,4096,1,write,24048792,2756778716647",
                "2147483769,4608,2,read,6322464,2756783857269",
            ],
        ),
        ("cloudphysics", &["1000,8,r,4096", "1500,16,w,512"]),
        (
            "csv:time=0:ms,op=3:R/W,offset=4:B,size=5:sector,stream=2",
            &["1.5,h,7,W,4096,8", "2.25,h,0,r,0,1", "3,h,1,R,512,16,extra"],
        ),
    ]
}

fn format(name: &str) -> TraceFormat {
    TraceFormat::from_name(name).unwrap().unwrap()
}

/// A random document of a format's lines (with comments, blank lines and,
/// sometimes, one bad line), LF endings.
fn document(rng: &mut Rng, lines: &[&str]) -> String {
    let n = 1 + rng.below(40) as usize;
    let mut doc = String::new();
    for i in 0..n {
        match rng.below(20) {
            0 => doc.push_str("# a comment\n"),
            1 => doc.push('\n'),
            2 if i > 0 => doc.push_str("bad line\n"),
            _ => {
                doc.push_str(lines[rng.below(lines.len() as u64) as usize]);
                doc.push('\n');
            }
        }
    }
    if rng.below(4) == 0 {
        // No final line break.
        doc.pop();
    }
    doc
}

/// What a reader made of a text: records, or errors by line, and counts.
#[derive(Debug, PartialEq)]
struct Outcome {
    items: Vec<Result<IoRecord, String>>,
    lines: u64,
    dropped: u64,
}

fn outcome(reader: SimResultReader) -> Outcome {
    let mut r = match reader {
        Ok(r) => r,
        Err(e) => {
            return Outcome {
                items: vec![Err(e.to_string())],
                lines: 0,
                dropped: 0,
            }
        }
    };
    let items = r.by_ref().map(|x| x.map_err(|e| e.to_string())).collect();
    Outcome {
        items,
        lines: r.stats().lines,
        dropped: r.stats().dropped,
    }
}

type SimResultReader = SimResult<flashsched_core::workload::trace::TraceReader>;

/// Delivers its bytes in random small chunks, as a pipe does.
struct Chunked {
    data: Vec<u8>,
    pos: usize,
    rng: Rng,
}

impl Read for Chunked {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.data.len() - self.pos;
        let n = buf.len().min(left).min(1 + self.rng.below(700) as usize);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

fn read_bytes(bytes: Vec<u8>, fmt: Option<TraceFormat>, seed: u64) -> Outcome {
    let src = Chunked {
        data: bytes,
        pos: 0,
        rng: Rng::new(seed),
    };
    outcome(open_trace_from(
        Path::new(NAME),
        Box::new(src),
        fmt,
        TraceOptions::default(),
    ))
}

fn compress(c: Compression, data: &[u8]) -> Vec<u8> {
    match c {
        Compression::Gzip => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Compression::Zstd => zstd::stream::encode_all(data, 1).unwrap(),
        Compression::Xz => {
            let mut e = liblzma::write::XzEncoder::new(Vec::new(), 0);
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
        Compression::Bzip2 => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(data).unwrap();
            e.finish().unwrap()
        }
    }
}

const COMPRESSIONS: [Compression; 4] = [
    Compression::Gzip,
    Compression::Zstd,
    Compression::Xz,
    Compression::Bzip2,
];

/// One random variant of `text` (LF endings): its bytes and a description.
fn variant(rng: &mut Rng, text: &str) -> (Vec<u8>, String) {
    let ending = ["\n", "\r\n", "\r"][rng.below(3) as usize];
    let t = text.replace('\n', ending);
    let mut encoding = rng.below(6);
    if (2..4).contains(&encoding) && t.len() < 64 {
        // UTF-16 without a BOM is recognised in longer texts only.
        encoding += 2;
    }
    let mut bytes = match encoding {
        0 => t.into_bytes(),
        1 => [&[0xEF, 0xBB, 0xBF][..], t.as_bytes()].concat(),
        _ => {
            let be = encoding % 2 == 1;
            let mut v: Vec<u8> = match (encoding >= 4, be) {
                (true, false) => vec![0xFF, 0xFE],
                (true, true) => vec![0xFE, 0xFF],
                _ => Vec::new(),
            };
            for u in t.encode_utf16() {
                v.extend_from_slice(&if be { u.to_be_bytes() } else { u.to_le_bytes() });
            }
            v
        }
    };
    let compression = match rng.below(6) {
        k @ 0..=3 => Some(COMPRESSIONS[k as usize]),
        _ => None,
    };
    if let Some(c) = compression {
        bytes = compress(c, &bytes);
    }
    let desc = format!(
        "ending {ending:?}, encoding {}, {}",
        [
            "utf-8",
            "utf-8 bom",
            "utf-16le",
            "utf-16be",
            "utf-16le bom",
            "utf-16be bom"
        ][encoding as usize],
        compression.map_or("plain", |c| c.name())
    );
    (bytes, desc)
}

#[test]
fn encodings_line_endings_and_compression_read_as_plain_text() {
    let mut rng = Rng::new(0x7E47);
    let n = iters(60);
    let mut checked = 0u64;
    for (name, lines) in corpus() {
        let fmt = format(name);
        for i in 0..n {
            let text = document(&mut rng, lines);
            let plain = read_bytes(text.clone().into_bytes(), Some(fmt.clone()), i);
            let plain_detected = read_bytes(text.clone().into_bytes(), None, i);
            for _ in 0..4 {
                let (bytes, desc) = variant(&mut rng, &text);
                let got = read_bytes(bytes.clone(), Some(fmt.clone()), i);
                assert_eq!(got, plain, "{name}, {desc}, document:\n{text}");
                // Detection sees the same text, so decides the same (or
                // refuses the same way).
                let detected = read_bytes(bytes, None, i + 1);
                assert_eq!(detected, plain_detected, "{name} detected, {desc}:\n{text}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 14 * 60 * 4);
}

#[test]
fn cr_only_msr_file_reads_every_record() {
    // The red-team case: 1,000 MSR records with classic Mac line endings
    // read as 1 record with 0 bad lines.
    let mut text = String::new();
    for i in 0..1000u64 {
        text.push_str(&format!(
            "{},hm,0,Write,{},4096,2833\r",
            128166385295514663 + i * 10_000,
            i * 4096
        ));
    }
    for fmt in [Some(format("msr")), None] {
        let got = read_bytes(text.clone().into_bytes(), fmt, 1);
        assert_eq!(got.items.len(), 1000);
        assert!(got.items.iter().all(Result::is_ok));
        assert_eq!(got.items[999].as_ref().unwrap().offset, 999 * 4096);
    }
}

#[test]
fn msr_lines_run_together_are_errors() {
    let lines = corpus()[0].1;
    let mut rng = Rng::new(0x3515);
    for _ in 0..iters(200) {
        let k = 2 + rng.below(4) as usize;
        let joined: Vec<&str> = (0..k)
            .map(|_| lines[rng.below(lines.len() as u64) as usize])
            .collect();
        let fields: usize = joined.iter().map(|l| l.split(',').count()).sum();
        let good = rng.below(3);
        let mut text = format!("{}\n", lines[0]).repeat(good as usize);
        text.push_str(&joined.join(","));
        text.push('\n');
        let got = read_bytes(text.into_bytes(), Some(format("msr")), 0);
        let want = format!(
            "{NAME}:{}: expected 6 or 7 comma-separated fields \
             (filetime,host,disk,Read|Write,offset,size,response), got {fields}",
            good + 1
        );
        let e = got.items.iter().find_map(|x| x.as_ref().err()).unwrap();
        assert!(e.starts_with(&want), "{e}");
    }
}

#[test]
fn reject_fails_only_on_earlier_times() {
    let reject = TraceOptions {
        skip_bad: false,
        time_order: TimeOrder::Reject,
    };
    let mut rng = Rng::new(0x0DE4);
    for _ in 0..iters(300) {
        // Non-decreasing times with many ties, in ms (heimdall).
        let n = 1 + rng.below(30);
        let mut t = rng.below(5);
        let mut times = Vec::new();
        for _ in 0..n {
            t += [0, 0, 1, 3][rng.below(4) as usize];
            times.push(t);
        }
        let doc = |times: &[u64]| {
            times
                .iter()
                .map(|t| format!("{t} 0 0 512 1\n"))
                .collect::<String>()
        };
        let r = open_trace_from(
            Path::new(NAME),
            Box::new(Cursor::new(doc(&times).into_bytes())),
            Some(format("heimdall")),
            reject,
        )
        .unwrap();
        let got: Vec<u64> = r.map(|x| x.unwrap().time_ns).collect();
        let want: Vec<u64> = times.iter().map(|x| (x - times[0]) * 1_000_000).collect();
        assert_eq!(got, want);
        // One record earlier than its predecessor is the only error.
        let at = rng.below(n) as usize;
        if at == 0 || times[at - 1] == 0 {
            continue; // no earlier time to go below
        }
        let mut bad = times.clone();
        bad[at] = times[at - 1] - 1;
        if bad[at] >= bad[at - 1] {
            continue;
        }
        let r = open_trace_from(
            Path::new(NAME),
            Box::new(Cursor::new(doc(&bad).into_bytes())),
            Some(format("heimdall")),
            reject,
        )
        .unwrap();
        let errors: Vec<String> = r.filter_map(|x| x.err().map(|e| e.to_string())).collect();
        assert_eq!(errors.len(), 1, "{bad:?}: {errors:?}");
        assert!(
            errors[0].starts_with(&format!("{NAME}:{}: time ", at + 1)),
            "{}",
            errors[0]
        );
    }
}

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashsched-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn records_of(path: &Path, fmt: Option<TraceFormat>) -> (String, Vec<IoRecord>) {
    let mut r = open_trace(path, fmt).unwrap_or_else(|e| panic!("{e}"));
    let recs = r.by_ref().map(|x| x.unwrap()).collect();
    (r.format().to_string(), recs)
}

#[test]
fn compression_is_known_by_its_bytes_not_its_name() {
    let dir = temp_dir("magic");
    for (name, lines) in corpus() {
        let text = format!("{}\n", lines.join("\n")).repeat(3);
        let plain = dir.join("plain.trace");
        std::fs::write(&plain, &text).unwrap();
        let fmt = format(name);
        let want = records_of(&plain, Some(fmt.clone())).1;
        for c in COMPRESSIONS {
            // Named right, named like plain text, named for another
            // compression: all the same.
            for file in [
                format!("t.trace.{}", ["gz", "zst", "xz", "bz2"][c as usize]),
                "t.csv".to_string(),
                "t.trace.gz".to_string(),
            ] {
                let p = dir.join(file);
                std::fs::write(&p, compress(c, text.as_bytes())).unwrap();
                assert_eq!(records_of(&p, Some(fmt.clone())).1, want, "{name} {p:?}");
            }
        }
        // Plain text named `.gz` is read as plain text.
        let p = dir.join("plain.gz");
        std::fs::write(&p, &text).unwrap();
        assert_eq!(records_of(&p, Some(fmt)).1, want, "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_fifo_is_opened_and_read_once() {
    use std::sync::mpsc;
    use std::time::Duration;
    let dir = temp_dir("fifo");
    let fifo = dir.join("pipe");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("note: mkfifo unavailable; skipping");
        return;
    }
    let text =
        "0,R,126703644672,4096,1577808000000626\n7,W,4096,8192,1577808000001626\n".repeat(5000);
    let gz = compress(Compression::Gzip, text.as_bytes());
    let (tx, rx) = mpsc::channel();
    let path = fifo.clone();
    // Detection from a buffered prefix, then the records: a second open
    // of the FIFO would wait for a writer forever (hence the timeout).
    std::thread::spawn(move || {
        let _ = tx.send(records_of(&path, None));
    });
    let mut w = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    w.write_all(&gz).unwrap();
    drop(w);
    let (name, recs) = rx
        .recv_timeout(Duration::from_secs(120))
        .expect("reading the FIFO did not finish (opened twice?)");
    assert_eq!(name, "alibaba");
    assert_eq!(recs.len(), 10_000);
    assert_eq!(recs[9_999].time_ns, 1_000_000);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn real_samples_read_the_same_compressed() {
    let Some(traces) = traces_dir() else { return };
    let dir = temp_dir("samples");
    let clamp = TraceOptions {
        skip_bad: false,
        time_order: TimeOrder::Clamp,
    };
    for sample in [
        "msr/hm_0.first1000.csv",
        "umass/WebSearch1.first10.spc",
        "ascii/tpcc-small.mqsim-ns.trace",
        "blkparse/ycsb-ext4.blkparse.txt",
        "msr/msr.cut.per_10k.rw_40_60.1370.trace",
    ] {
        let plain = traces.join(sample);
        let Ok(bytes) = std::fs::read(&plain) else {
            continue;
        };
        let read = |p: &Path| {
            let mut r = open_trace_with(p, None, clamp).unwrap_or_else(|e| panic!("{e}"));
            let recs: Vec<IoRecord> = r.by_ref().map(|x| x.unwrap()).collect();
            (r.format().to_string(), recs, r.stats().lines)
        };
        let want = read(&plain);
        for c in [Compression::Gzip, Compression::Zstd] {
            let file = plain.file_name().unwrap().to_string_lossy();
            let p = dir.join(format!("{file}.{}", ["gz", "zst"][c as usize]));
            std::fs::write(&p, compress(c, &bytes)).unwrap();
            assert!(read(&p) == want, "{sample} {c:?}");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
