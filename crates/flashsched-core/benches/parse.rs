//! Criterion benchmarks of trace parsing (issue #8): each reader over an
//! in-memory trace of 200,000 lines, built by repeating the real sample of
//! its format (`FLASHSCHED_TRACES`, default `../shared/traces`) or, without
//! the samples, a few built-in lines. `cargo bench -p flashsched-core --bench
//! parse`. The multi-GB file measurement is `flashsched bench --parse`.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use flashsched_core::workload::trace::{
    open_trace_from, TimeOrder, TraceFormat, TraceOptions, TraceReader,
};

const LINES: usize = 200_000;

fn traces_dir() -> PathBuf {
    match std::env::var_os("FLASHSCHED_TRACES") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/traces"
        )),
    }
}

/// (format, sample file, fallback lines).
const CASES: [(TraceFormat, &str, &str); 9] = [
    (
        TraceFormat::Msr,
        "msr/hm_0.first1000.csv",
        "128166385295514663,hm,0,Write,9056014336,2048,2833\n",
    ),
    (
        TraceFormat::Spc,
        "umass/WebSearch1.first10.spc",
        "0,657728,8192,R,0.011413\n",
    ),
    (
        TraceFormat::AsciiNs,
        "ascii/websearch1.mqsim-ns.trace",
        "11413000 0 657728 16 1\n",
    ),
    (
        TraceFormat::AsciiMs,
        "ascii/disksim-valid.ms.trace",
        "13.191135\t30\t0\t5\t1\n",
    ),
    (
        TraceFormat::Ssdsim,
        "ascii/ssdsim-example.ns.ascii",
        "26214000 0 303574 7 0\n",
    ),
    (
        TraceFormat::Blkparse,
        "blkparse/ycsb-ext4.blkparse.txt",
        "  8,16   3        9     0.000032064  4528  D   R 584808 + 936 [java]\n",
    ),
    (
        TraceFormat::BlkparseQ,
        "blkparse/ycsb-ext4.blkparse.txt",
        "  8,16   3        8     0.000030000  4528  Q  WS 100 + 8 [java]\n",
    ),
    (
        TraceFormat::Fiu,
        "blkparse/fiu-mail-cheetah.first10000.blkparse",
        "89966527950584 4253 nfsd 508516672 8 W 6 0 88b93b628d84082186026d9da044f173\n",
    ),
    (
        TraceFormat::Heimdall,
        "msr/msr.cut.per_10k.rw_20_80.105.trace",
        "223.434 0 3154132992 4096 0\n",
    ),
];

/// `LINES` lines of the sample's records (junk and summary lines left out).
fn text(format: &TraceFormat, file: &str, fallback: &str) -> Vec<u8> {
    let sample =
        std::fs::read(traces_dir().join(file)).unwrap_or_else(|_| fallback.as_bytes().to_vec());
    let lines: Vec<&[u8]> = sample
        .split(|&b| b == b'\n')
        .filter(|l| !l.contains(&0) && !l.trim_ascii().is_empty())
        .filter(|l| *format != TraceFormat::Fiu || l.first().is_some_and(u8::is_ascii_digit))
        .filter(|l| {
            !matches!(format, TraceFormat::Blkparse | TraceFormat::BlkparseQ)
                || l.trim_ascii().first().is_some_and(u8::is_ascii_digit)
        })
        .collect();
    let mut out = Vec::new();
    for i in 0..LINES {
        out.extend_from_slice(lines[i % lines.len()]);
        out.push(b'\n');
    }
    out
}

fn parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse");
    g.sample_size(20);
    g.throughput(Throughput::Elements(LINES as u64));
    // File order for every format (blkparse defaults to the sort window,
    // measured separately in BENCHMARKS.md).
    let clamp = TraceOptions {
        skip_bad: false,
        time_order: TimeOrder::Clamp,
    };
    for (format, file, fallback) in CASES {
        let data: &'static [u8] = Box::leak(text(&format, file, fallback).into_boxed_slice());
        g.bench_function(format.name(), |b| {
            b.iter(|| {
                let r = TraceReader::from_reader(
                    Path::new("bench"),
                    format.clone(),
                    Box::new(Cursor::new(data)),
                )
                .with_options(clamp);
                let mut n = 0u64;
                for rec in r.flatten() {
                    n = n.wrapping_add(rec.offset);
                }
                black_box(n)
            })
        });
    }
    g.finish();
}

/// The same 200k Heimdall lines plain and compressed, read through the
/// decoding layer (`open_trace_from`), as a file or pipe would be.
fn compressed(c: &mut Criterion) {
    use std::io::Write;
    let (format, file, fallback) = &CASES[8];
    let plain = text(format, file, fallback);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&plain).unwrap();
    let inputs: [(&str, Vec<u8>); 3] = [
        ("plain", plain.clone()),
        ("gzip", gz.finish().unwrap()),
        ("zstd", zstd::stream::encode_all(&plain[..], 3).unwrap()),
    ];
    let mut g = c.benchmark_group("decode");
    g.sample_size(20);
    g.throughput(Throughput::Bytes(plain.len() as u64));
    for (name, bytes) in inputs {
        let data: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        g.bench_function(name, |b| {
            b.iter(|| {
                let r = open_trace_from(
                    Path::new("bench"),
                    Box::new(Cursor::new(data)),
                    Some(format.clone()),
                    TraceOptions::default(),
                )
                .unwrap();
                let mut n = 0u64;
                for rec in r.flatten() {
                    n = n.wrapping_add(rec.offset);
                }
                black_box(n)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, parse, compressed);
criterion_main!(benches);
