//! Property-based fuzzing of the trace readers and the config loader, short
//! enough for CI (a few seconds) and deterministic. Longer runs:
//! `FLASHSCHED_FUZZ_ITERS=2000000 cargo test --release -p flashsched-core
//! --test fuzz_props -- --nocapture` (docs/reliability.md records them).
//!
//! Properties, for mutated documents in every format:
//! - no panic, no hang (each document is bounded and the reader must end);
//! - every error is a `SimError::Trace` naming the file and a line that was
//!   read; errors are resumable until the end;
//! - delivered records have size > 0, offset + size within u64 and
//!   non-decreasing times under every time-order policy (clamp, reject,
//!   sort);
//! - with `skip_bad` nothing is an error except "no records", and the counts
//!   add up: records delivered = stats.records.
//!
//! For configs: random keys (known and unknown) set to random values, and
//! mutated TOML documents, give either a valid config or a
//! `Config`/`UnknownName`/`Trace`(file:line) error, never a panic.

use crate::common;
use common::traces_dir;

use std::io::Cursor;
use std::path::Path;

use flashsched_core::config::DeviceConfig;
use flashsched_core::error::SimError;
use flashsched_core::rng::Rng;
use flashsched_core::workload::trace::mutate::mutate_line;
use flashsched_core::workload::trace::{TimeOrder, TraceFormat, TraceOptions, TraceReader};

fn iters(default: u64) -> u64 {
    std::env::var("FLASHSCHED_FUZZ_ITERS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Seed lines per format: the first lines of the real samples when present,
/// else built-in lines.
fn corpus() -> Vec<(TraceFormat, Vec<Vec<u8>>)> {
    use TraceFormat::*;
    let csv_map =
        TraceFormat::from_name("csv:time=0:ms,op=3:R/W,offset=4:B,size=5:sector,stream=2")
            .unwrap()
            .unwrap();
    let builtin: [(TraceFormat, &[&str]); 15] = [
        (
            Msr,
            &[
                "128166385295514663,hm,0,Write,9056014336,2048,2833",
                "128166385295514878,hm,1,Read,11855351808,512,2617",
            ],
        ),
        (
            Spc,
            &["0,657728,8192,R,0.011413", "1,31244784,32768,w,0.011565"],
        ),
        (
            AsciiNs,
            &["938513000 4 264719034 16 0", "938828000 3 197570570 16 1"],
        ),
        (
            AsciiMs,
            &["13.191135\t30\t0\t5\t1", "17.829285\t20\t576560\t6\t0x10"],
        ),
        (Ssdsim, &["0 0 303567 7 0", "78643005 1 55596 6 1"]),
        (
            Blkparse,
            &[
                "  8,16   3        9     0.000032064  4528  D   R 584808 + 936 [java]",
                "  8,16   2        5     0.000031000  4529  D  WS 100 + 8 [kworker]",
            ],
        ),
        (
            BlkparseQ,
            &[
                "  8,16   3        8     0.000030000  4528  Q  WS 100 + 8 [java]",
                "  8,16   3        9     0.000040000  4528  Q   R 5 + 8 [java]",
            ],
        ),
        (
            Fiu,
            &["89966527950584 4253 nfsd 508516672 8 W 6 0 88b93b628d84082186026d9da044f173"],
        ),
        (
            Heimdall,
            &[
                "223.412 0 3159347200 36864 0",
                "223.434\t3 3154132992 4096 1",
            ],
        ),
        (
            Systor,
            &[
                "1456135200.013118000,0.000648000,W,4,8192,4096",
                "1456135200.013200000,0.000100000,R,3,1024,512",
                "1456135200.013300000,0.000100000,,3,0,512",
            ],
        ),
        (
            Alibaba,
            &[
                "0,R,126703644672,4096,1577808000000626",
                "7,W,4096,8192,1577808000001626",
            ],
        ),
        (
            Tencent,
            &["1538323200,4096,16,0,1063", "1538323201,8,8,1,7"],
        ),
        (
            Vscsi,
            &[
                "2147483692,4096,1,write,24048792,2756778716647",
                "2147483769,4608,2,read,6322464,2756783857269",
            ],
        ),
        (CloudPhysics, &["1000,8,r,4096", "1500,16,w,512"]),
        (
            csv_map,
            &["1.5,h,7,W,4096,8", "2.25,h,0,r,0,1", "3,h,1,R,512,16,extra"],
        ),
    ];
    let samples = [
        (Msr, "msr/hm_0.first1000.csv"),
        (Spc, "umass/WebSearch1.first10.spc"),
        (AsciiNs, "ascii/tpcc-small.mqsim-ns.trace"),
        (AsciiMs, "ascii/disksim-valid.ms.trace"),
        (Ssdsim, "ascii/ssdsim-example.ns.ascii"),
        (Blkparse, "blkparse/ycsb-btrfs.blkparse.txt"),
        (BlkparseQ, "blkparse/ycsb-f2fs.blkparse.txt"),
        (Fiu, "blkparse/fiu-mail-cheetah.first10000.blkparse"),
        (Heimdall, "msr/msr.cut.per_10k.rw_40_60.1370.trace"),
    ];
    let dir = traces_dir();
    builtin
        .into_iter()
        .map(|(f, lines)| {
            let mut v: Vec<Vec<u8>> = lines.iter().map(|l| l.as_bytes().to_vec()).collect();
            if let Some(d) = &dir {
                let file = samples
                    .iter()
                    .find(|(g, _)| *g == f)
                    .map(|(_, p)| d.join(p));
                if let Some(text) = file.and_then(|p| std::fs::read(p).ok()) {
                    v.extend(text.split(|&b| b == b'\n').take(400).map(<[u8]>::to_vec));
                }
            }
            (f, v)
        })
        .collect()
}

const PATH: &str = "/fuzz/doc.trace";

/// A document of 1..40 lines: mostly seed lines, some mutated, sometimes
/// with raw junk, CRLF or no final newline.
fn document(rng: &mut Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut doc = Vec::new();
    let n = 1 + rng.below(40);
    for _ in 0..n {
        let seed = &seeds[rng.below(seeds.len() as u64) as usize];
        let line = if rng.below(3) == 0 {
            mutate_line(rng, seed)
        } else {
            seed.clone()
        };
        doc.extend_from_slice(&line);
        if rng.below(10) == 0 {
            doc.push(b'\r');
        }
        doc.push(b'\n');
    }
    if rng.below(8) == 0 {
        doc.pop();
    }
    if rng.below(20) == 0 {
        let k = rng.below(200) as usize;
        doc.extend((0..k).map(|_| rng.below(256) as u8));
    }
    doc
}

fn check_document(format: &TraceFormat, doc: &[u8], options: TraceOptions) {
    let lines = doc.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let mut r = TraceReader::from_reader(
        Path::new(PATH),
        format.clone(),
        Box::new(Cursor::new(doc.to_vec())),
    )
    .with_options(options);
    let (mut last_t, mut recs, mut items) = (0u64, 0u64, 0u64);
    for item in r.by_ref() {
        items += 1;
        assert!(items <= lines + 1, "more items than lines: {format}");
        match item.map_err(|e| *e) {
            Ok(rec) => {
                recs += 1;
                assert!(rec.size > 0);
                assert!(rec.offset.checked_add(u64::from(rec.size)).is_some());
                assert!(
                    rec.time_ns >= last_t,
                    "time went back under {:?}",
                    options.time_order
                );
                last_t = rec.time_ns;
            }
            Err(SimError::Trace { file, line, msg }) => {
                assert_eq!(file, Path::new(PATH));
                assert!(line <= lines, "line {line} of {lines}: {msg}");
                assert!(!msg.is_empty());
                if options.skip_bad {
                    assert!(
                        msg.starts_with("no records in this "),
                        "skip_bad let an error through: {msg}"
                    );
                }
            }
            Err(e) => panic!("not a trace error: {e:?}"),
        }
    }
    assert_eq!(r.stats().records, recs);
    assert!(r.stats().lines <= lines);
}

#[test]
fn trace_readers_survive_mutated_documents() {
    let n = iters(3_000);
    let mut executions = 0u64;
    for (k, (format, seeds)) in corpus().into_iter().enumerate() {
        let mut rng = Rng::new(0xbad_1e55 + k as u64);
        for _ in 0..n {
            let doc = document(&mut rng, &seeds);
            for options in [
                TraceOptions::default(),
                TraceOptions {
                    skip_bad: true,
                    time_order: TimeOrder::Clamp,
                },
                TraceOptions {
                    skip_bad: rng.below(2) == 0,
                    time_order: TimeOrder::Reject,
                },
                TraceOptions {
                    skip_bad: rng.below(2) == 0,
                    time_order: TimeOrder::Sort,
                },
            ] {
                check_document(&format, &doc, options);
                executions += 1;
            }
        }
    }
    eprintln!("trace fuzz: {executions} documents parsed");
}

/// Every leaf key of the default config, with its value.
fn leaves(v: &toml::Value, prefix: &str, out: &mut Vec<(String, toml::Value)>) {
    match v.as_table() {
        Some(t) => {
            for (k, sub) in t {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                leaves(sub, &p, out);
            }
        }
        None => out.push((prefix.to_string(), v.clone())),
    }
}

fn random_value(rng: &mut Rng, like: &toml::Value) -> String {
    let ints = [
        "0",
        "1",
        "-1",
        "2",
        "3",
        "7",
        "512",
        "1000",
        "4096",
        "65535",
        "65536",
        "4294967295",
        "4294967296",
        "9223372036854775807",
    ];
    let floats = [
        "0.0", "-0.5", "0.5", "0.9", "0.99", "1.0", "1e9", "1e300", "nan", "inf", "-inf", "1e-12",
    ];
    let other = [
        "true",
        "false",
        "\"\"",
        "\"fifo\"",
        "\"greedy\"",
        "\"static:CWDP\"",
        "\"slc\"",
        "[1, 2]",
        "{ a = 1 }",
        "abc",
        "\"\\u0000\"",
    ];
    let pick = |rng: &mut Rng, set: &[&str]| set[rng.below(set.len() as u64) as usize].to_string();
    match (rng.below(4), like) {
        (0, _) => pick(rng, &other),
        (_, toml::Value::Integer(i)) => {
            if rng.below(2) == 0 {
                pick(rng, &ints)
            } else {
                (i.saturating_mul(rng.below(5) as i64)).to_string()
            }
        }
        (_, toml::Value::Float(f)) => {
            if rng.below(2) == 0 {
                pick(rng, &floats)
            } else {
                format!("{:?}", f * rng.f64() * 3.0)
            }
        }
        _ => pick(rng, &other),
    }
}

#[test]
fn config_loader_survives_random_overrides_and_documents() {
    let n = iters(2_000);
    let base = DeviceConfig::preset("default").unwrap().to_toml();
    let tree: toml::Value = toml::from_str(&base).unwrap();
    let mut keys = Vec::new();
    leaves(&tree, "", &mut keys);
    let mut rng = Rng::new(0xc0f1);
    let (mut ok, mut rejected) = (0u64, 0u64);
    let dir = std::env::temp_dir().join(format!("flashsched-fuzz-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("fuzz.toml");
    let presets: Vec<&str> = DeviceConfig::presets().iter().map(|(n, _)| *n).collect();
    for i in 0..n {
        // Random overrides on a random preset.
        let mut ovs = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let (key, like) = &keys[rng.below(keys.len() as u64) as usize];
            let key = match rng.below(8) {
                0 => format!("{key}x"),
                1 => format!("x{}", key.replace('.', "")),
                _ => key.clone(),
            };
            ovs.push(format!("{key}={}", random_value(&mut rng, like)));
        }
        let preset = presets[rng.below(presets.len() as u64) as usize];
        match DeviceConfig::load(preset, &ovs).map_err(|e| *e) {
            Ok(cfg) => {
                cfg.validate().unwrap();
                ok += 1;
            }
            Err(SimError::Config { key, .. }) => {
                assert!(!key.is_empty());
                rejected += 1;
            }
            Err(SimError::UnknownName { .. }) => rejected += 1,
            Err(e) => panic!("{ovs:?}: unexpected error kind {e:?}"),
        }
        // A mutated TOML document, loaded from a file.
        if i % 4 == 0 {
            let lines: Vec<&[u8]> = base.as_bytes().split(|&b| b == b'\n').collect();
            let mut doc = Vec::new();
            for l in lines {
                if rng.below(6) == 0 {
                    doc.extend(mutate_line(&mut rng, l));
                } else {
                    doc.extend_from_slice(l);
                }
                doc.push(b'\n');
            }
            std::fs::write(&file, &doc).unwrap();
            match DeviceConfig::load(file.to_str().unwrap(), &[]).map_err(|e| *e) {
                Ok(cfg) => cfg.validate().unwrap(),
                Err(SimError::Config { .. } | SimError::UnknownName { .. }) => {}
                Err(SimError::ConfigFile { file: f, .. }) => assert_eq!(f, file),
                Err(SimError::Io { .. }) => {} // not valid UTF-8
                Err(e) => panic!("unexpected error kind {e:?}"),
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    eprintln!(
        "config fuzz: {n} override sets ({ok} valid, {rejected} rejected), {} documents",
        n.div_ceil(4)
    );
    assert!(ok > 0 && rejected > 0);
}
