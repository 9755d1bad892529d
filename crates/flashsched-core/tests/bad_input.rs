//! Bad input, class by class (issue #7): every case is a clear error that
//! names the place (trace `file:line`, config key or file line), or follows a
//! documented policy (docs/reliability.md, "Bad input and fuzzing"); never a
//! panic, a hang or a silently wrong result.

use crate::common;

use std::path::{Path, PathBuf};

use flashsched_core::config::DeviceConfig;
use flashsched_core::error::{SimError, SimResult};
use flashsched_core::run::{self, RunSpec, WorkloadSpec};
use flashsched_core::workload::trace::{
    open_trace, open_trace_with, TimeOrder, TraceFormat, TraceOptions,
};
use flashsched_core::workload::IoRecord;

/// A scratch directory unique to one test.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashsched-bad-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// All items of a trace read with `format` (None = auto) and `options`.
fn read(
    path: &Path,
    format: Option<TraceFormat>,
    options: TraceOptions,
) -> SimResult<Vec<IoRecord>> {
    open_trace_with(path, format, options)?.collect()
}

/// The first error, which must start with `path:line: ` and contain `needle`.
fn assert_trace_error(path: &Path, format: Option<TraceFormat>, line: u64, needle: &str) {
    let e = read(path, format, TraceOptions::default()).unwrap_err();
    assert!(matches!(*e, SimError::Trace { .. }), "{e:?}");
    let msg = e.to_string();
    let loc = format!("{}:{line}: ", path.display());
    assert!(msg.starts_with(&loc), "{msg:?} should start with {loc:?}");
    assert!(msg.contains(needle), "{msg:?} should contain {needle:?}");
}

#[test]
fn malformed_lines_name_file_line_and_field_in_every_format() {
    let d = scratch("malformed");
    use TraceFormat::*;
    let cases: [(TraceFormat, &str, &str); 9] = [
        (
            Msr,
            "1,h,0,Read,0,4096,1\n1,h,0,Reed,0,4096,1\n",
            "field 4 (type): expected Read or Write, got \"Reed\"",
        ),
        (Spc, "0,1,512,R,0.5\n0,1,512,R,half\n", "field 5 (time s)"),
        (
            AsciiNs,
            "1 0 0 8 1\n2 0 0 8\n",
            "expected 5 whitespace-separated fields",
        ),
        (AsciiMs, "1 0 0 8 1\n2 0 zero 8 1\n", "field 3 (sector)"),
        (
            Ssdsim,
            "0 0 1 1 0\n1 0 1 1 7\n",
            "field 5 (op): expected 1 (read) or 0 (write)",
        ),
        (
            Blkparse,
            "8,16 3 9 0.1 4528 D R 1 + 8 [a]\n8,16 3 10 0.2 4528 D R 1 + x8 [a]\n",
            "field 10 (nsectors)",
        ),
        (
            BlkparseQ,
            "8,16 3 9 0.1 4528 Q R 1 + 8 [a]\n8,16 3 10 0.2 4528 Q r 1 + 8 [a]\n",
            "field 7 (RWBS)",
        ),
        (
            Fiu,
            "1 1 p 1 8 W 6 0 ab\n2 1 p 1 8 W 6 0 xyz\n",
            "field 9 (md5): expected hex digits",
        ),
        (
            Heimdall,
            "0.5 0 4096 4096 1\n0.6 0 4096 4096 read\n",
            "field 5 (op)",
        ),
    ];
    for (format, text, needle) in cases {
        let p = write(&d, &format!("bad.{}", format.name()), text.as_bytes());
        assert_trace_error(&p, Some(format), 2, needle);
    }
}

#[test]
fn negative_offsets_and_sizes_are_errors() {
    let d = scratch("negative");
    let p = write(&d, "neg-off.csv", b"1,h,0,Read,-4096,4096,1\n");
    assert_trace_error(
        &p,
        Some(TraceFormat::Msr),
        1,
        "field 5 (offset): expected a non-negative integer, got \"-4096\"",
    );
    let p = write(&d, "neg-size.trace", b"0.1 0 0 -512 1\n");
    assert_trace_error(
        &p,
        Some(TraceFormat::Heimdall),
        1,
        "field 4 (size): expected a non-negative integer, got \"-512\"",
    );
    let p = write(&d, "neg-time.spc", b"0,1,512,R,-0.5\n");
    assert_trace_error(
        &p,
        Some(TraceFormat::Spc),
        1,
        "field 5 (time s): expected a non-negative number",
    );
}

#[test]
fn overflowing_numbers_are_errors() {
    let d = scratch("overflow");
    // Beyond u64.
    let p = write(&d, "o1.trace", b"1 0 18446744073709551616 512 1\n");
    assert_trace_error(&p, Some(TraceFormat::Heimdall), 1, "field 3 (offset)");
    // Sectors whose byte offset exceeds u64.
    let p = write(&d, "o2.trace", b"1 0 36028797018963968 8 1\n");
    assert_trace_error(
        &p,
        Some(TraceFormat::AsciiNs),
        1,
        "field 3 (sector): expected a sector count below 2^55",
    );
    // One request larger than 4 GiB.
    let p = write(&d, "o3.trace", b"1 0 0 8589934592 1\n");
    assert_trace_error(
        &p,
        Some(TraceFormat::Heimdall),
        1,
        "request size 8589934592 B exceeds the 4 GiB limit",
    );
    // offset + size beyond u64.
    let p = write(&d, "o4.trace", b"1 0 18446744073709551000 4096 1\n");
    assert_trace_error(&p, Some(TraceFormat::Heimdall), 1, "overflows 64 bits");
    // Stream id beyond u32.
    let p = write(&d, "o5.trace", b"1 4294967296 0 4096 1\n");
    assert_trace_error(
        &p,
        Some(TraceFormat::Heimdall),
        1,
        "field 2 (dev): expected an integer in 0..=4294967295",
    );
    // A time beyond the 584-year clock.
    let p = write(
        &d,
        "o6.trace",
        b"0 0 0 4096 1\n99999999999999999999 0 0 4096 1\n",
    );
    assert_trace_error(
        &p,
        Some(TraceFormat::Heimdall),
        2,
        "exceeds the 584-year range",
    );
}

#[test]
fn zero_size_requests_are_dropped_and_counted() {
    let d = scratch("zero");
    let p = write(&d, "z.trace", b"1 0 0 0 1\n2 0 0 4096 1\n3 0 0 0 0\n");
    let mut r = open_trace(&p, Some(TraceFormat::Heimdall)).unwrap();
    let recs: Vec<IoRecord> = r.by_ref().map(Result::unwrap).collect();
    assert_eq!(recs.len(), 1);
    assert_eq!(
        recs[0].time_ns, 0,
        "the time base is the first delivered record"
    );
    assert_eq!(r.stats().dropped, 2);
    // Only zero-size requests: nothing to replay is an error, not an empty run.
    let p = write(&d, "zz.trace", b"1 0 0 0 1\n");
    assert_trace_error(
        &p,
        Some(TraceFormat::Heimdall),
        1,
        "all 1 records were dropped (size 0 or stale)",
    );
}

#[test]
fn non_monotonic_timestamps_follow_the_policy() {
    let d = scratch("time");
    let p = write(
        &d,
        "t.trace",
        b"5 0 0 4096 1\n7 0 0 4096 1\n6 0 0 4096 1\n8 0 0 4096 1\n",
    );
    // clamp (default): issued at the previous time, counted.
    let mut r = open_trace(&p, Some(TraceFormat::Heimdall)).unwrap();
    let times: Vec<u64> = r.by_ref().map(|x| x.unwrap().time_ns).collect();
    assert_eq!(times, [0, 2_000_000, 2_000_000, 3_000_000]);
    assert_eq!(r.stats().clamped, 1);
    // reject: an error naming the line.
    let reject = TraceOptions {
        time_order: TimeOrder::Reject,
        ..TraceOptions::default()
    };
    let e = read(&p, Some(TraceFormat::Heimdall), reject)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!(
            "{}:3: time 1000000 ns is earlier than the previous record's 2000000 ns",
            p.display()
        )),
        "{e}"
    );
    // reject + skip_bad: the line is skipped and counted as bad.
    let both = TraceOptions {
        skip_bad: true,
        time_order: TimeOrder::Reject,
    };
    let mut r = open_trace_with(&p, Some(TraceFormat::Heimdall), both).unwrap();
    assert_eq!(
        r.by_ref().map(|x| x.unwrap().time_ns).collect::<Vec<_>>(),
        [0, 2_000_000, 3_000_000]
    );
    assert_eq!(r.stats().bad_lines, 1);
}

#[test]
fn empty_files_are_errors() {
    let d = scratch("empty");
    let p = write(&d, "empty.trace", b"");
    let e = read(&p, None, TraceOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(&format!(
            "{}:0: cannot detect the trace format",
            p.display()
        )),
        "{e}"
    );
    assert_trace_error(
        &p,
        Some(TraceFormat::Msr),
        0,
        "no records in this msr trace: the file is empty",
    );
    let p = write(&d, "blank.trace", b"\n\n# nothing\n");
    assert_trace_error(&p, Some(TraceFormat::AsciiNs), 3, "no line is a record");
}

#[test]
fn unreadable_input_is_an_io_error_naming_the_path() {
    let d = scratch("io");
    for format in [None, Some(TraceFormat::Msr)] {
        let e = read(&d, format, TraceOptions::default()).unwrap_err();
        assert!(matches!(*e, SimError::Io { .. }), "{e:?}");
        assert!(e.to_string().starts_with(&d.display().to_string()), "{e}");
    }
    let missing = d.join("missing.csv");
    let e = read(&missing, Some(TraceFormat::Msr), TraceOptions::default()).unwrap_err();
    assert!(
        e.to_string().starts_with(&missing.display().to_string()),
        "{e}"
    );
}

#[test]
fn binary_junk_is_an_error() {
    let d = scratch("binary");
    // Pseudo-random bytes (deterministic), with NULs and newlines.
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let junk: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let p = write(&d, "junk.bin", &junk);
    let e = read(&p, None, TraceOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("cannot detect the trace format"), "{e}");
    for f in TraceFormat::all() {
        let e = read(&p, Some(f.clone()), TraceOptions::default())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with(&format!("{}:", p.display())), "{f}: {e}");
    }
    // A NUL in a record line after the first record.
    let p = write(&d, "nul.trace", b"1 0 0 4096 1\n2 0 0\x004096 1\n");
    assert_trace_error(
        &p,
        Some(TraceFormat::Heimdall),
        2,
        "unexpected NUL byte in a record line",
    );
    // A huge file without a newline: bounded memory, an error at line 1.
    let long = vec![b'7'; (1 << 20) + 100];
    let p = write(&d, "long.trace", &long);
    assert_trace_error(
        &p,
        Some(TraceFormat::Heimdall),
        1,
        "line longer than 1048576 bytes",
    );
}

#[test]
fn skip_bad_skips_counts_and_reports_in_the_summary() {
    let d = scratch("skip");
    let p = write(
        &d,
        "mixed.trace",
        b"0.0 0 0 4096 1\ngarbage here\n0.1 0 4096 4096 0\n0.2 0 x 4096 1\n0.3 0 8192 4096 1\n",
    );
    assert_trace_error(
        &p,
        Some(TraceFormat::Heimdall),
        2,
        "expected 5 whitespace-separated fields",
    );
    let spec = |skip_bad| RunSpec {
        device: "ssdsim-default".into(),
        overrides: vec![],
        workload: WorkloadSpec::Trace {
            path: p.clone(),
            format: "heimdall".into(),
            intensity: 1.0,
            limit: None,
            options: TraceOptions {
                skip_bad,
                ..TraceOptions::default()
            },
        },
        seed: 1,
        keep_records: false,
    };
    // `ssdsim-default` reads its trace once before the run (SSDsim's
    // pre-pass, `ftl.update_reads = "ssdsim"`), so the bad line stops the
    // build; without the pre-pass it stops the run. Same error either way.
    let e = run::build(&spec(false))
        .err()
        .expect("a bad line")
        .to_string();
    assert!(e.starts_with(&format!("{}:2: ", p.display())), "{e}");
    let mut no_prepass = spec(false);
    no_prepass.overrides.push("ftl.update_reads=off".into());
    let e = run::build(&no_prepass)
        .unwrap()
        .run()
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("{}:2: ", p.display())), "{e}");
    let mut sim = run::build(&spec(true)).unwrap();
    sim.run().unwrap();
    let s = sim.summary();
    assert_eq!(s.requests, 3);
    let input = s.input.clone().expect("trace runs report their input");
    assert_eq!(
        (input.lines, input.records, input.bad_lines, input.dropped),
        (5, 3, 2, 0)
    );
    assert!(input
        .first_bad
        .unwrap()
        .starts_with(&format!("{}:2: ", p.display())));
    assert!(s.to_json(true).contains("\"bad_lines\": 2"));
}

/// The trace is read on its own thread (`ReadAhead`), ahead of the run: a
/// request limit still stops reading at the limit, so a bad line beyond it
/// is never met and the summary counts only the lines the run used; a bad
/// line before it still fails the run, naming it.
#[test]
fn read_ahead_stops_at_the_limit() {
    let d = scratch("ahead-limit");
    let mut text = String::new();
    for i in 0..3000 {
        text.push_str(&format!("{} 0 {} 4096 {}\n", i * 10, i * 4096, i % 2));
    }
    text.push_str("garbage here\n");
    let p = write(&d, "late-bad.trace", text.as_bytes());
    let spec = |limit| RunSpec {
        device: "default".into(),
        overrides: vec![],
        workload: WorkloadSpec::Trace {
            path: p.clone(),
            format: "heimdall".into(),
            intensity: 1.0,
            limit,
            options: TraceOptions::default(),
        },
        seed: 1,
        keep_records: false,
    };
    for limit in [1, 1024, 2500] {
        let mut sim = run::build(&spec(Some(limit))).unwrap();
        sim.run().unwrap();
        let s = sim.summary();
        let input = s.input.clone().expect("trace runs report their input");
        assert_eq!(
            (s.requests, input.lines, input.records),
            (limit, limit, limit)
        );
    }
    let e = run::build(&spec(None))
        .unwrap()
        .run()
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("{}:3001: ", p.display())), "{e}");
}

// --- configs ---------------------------------------------------------------

/// Load a TOML file; the error text.
fn config_error(dir: &Path, name: &str, text: &str) -> String {
    let p = write(dir, name, text.as_bytes());
    DeviceConfig::load(p.to_str().unwrap(), &[])
        .unwrap_err()
        .to_string()
}

#[test]
fn config_unknown_keys_are_named() {
    let d = scratch("cfg-keys");
    let e = config_error(&d, "k.toml", "[geometry]\nchanels = 4\n");
    assert!(
        e.contains("`geometry.chanels`") && e.contains("channels"),
        "{e}"
    );
    let e = config_error(&d, "s.toml", "[geometri]\nchannels = 4\n");
    assert!(e.contains("`geometri`"), "{e}");
    let e = DeviceConfig::load("default", &["ftl.overprovision=0.1".into()])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`ftl.overprovision`") && e.contains("overprovisioning"),
        "{e}"
    );
    // A TOML syntax error names the file and the line.
    let p = write(
        &d,
        "syntax.toml",
        b"[timing]\nread_us = 50\nprogram_us = = 3\n",
    );
    let err = DeviceConfig::load(p.to_str().unwrap(), &[]).unwrap_err();
    assert!(
        matches!(*err, SimError::ConfigFile { line: 3, .. }),
        "{err:?}"
    );
    let e = err.to_string();
    assert!(
        e.starts_with(&format!("{}:3: invalid TOML", p.display())),
        "{e}"
    );
}

#[test]
fn config_impossible_geometry_names_the_key() {
    let d = scratch("cfg-geom");
    let cases = [
        (
            "[geometry]\nchannels = 0\n",
            "geometry.channels",
            "0 is outside [1, 1024]",
        ),
        (
            "[geometry]\npage_size = 3072\n",
            "geometry.page_size",
            "3072 is not a power of two",
        ),
        (
            "[geometry]\npage_size = 256\n",
            "geometry.page_size",
            "outside [512,",
        ),
        (
            "[ftl]\noverprovisioning = 1.0\n",
            "ftl.overprovisioning",
            "1 is outside [0, 0.9]",
        ),
        (
            "[ftl]\noverprovisioning = 1.5\n",
            "ftl.overprovisioning",
            "outside",
        ),
        (
            "[geometry]\nblocks_per_plane = 1\n",
            "geometry.blocks_per_plane",
            "outside [2,",
        ),
    ];
    for (i, (text, key, needle)) in cases.into_iter().enumerate() {
        let e = config_error(&d, &format!("g{i}.toml"), text);
        assert!(
            e.starts_with(&format!("config key `{key}`: ")) && e.contains(needle),
            "{text}: {e}"
        );
    }
    // Every dimension at its maximum: the page count saturates instead of
    // wrapping, and is rejected.
    let big = "[geometry]\nchannels = 1024\nchips_per_channel = 1024\ndies_per_chip = 64\n\
               planes_per_die = 64\nblocks_per_plane = 1048576\npages_per_block = 65535\n";
    let e = config_error(&d, "big.toml", big);
    assert!(
        e.contains("`geometry`") && e.contains("at most 4294967294 are supported"),
        "{e}"
    );
}

#[test]
fn config_out_of_range_and_mistyped_values_name_the_key() {
    for (ov, key) in [
        ("geometry.channels=5000000000", "geometry.channels"),
        ("timing.read_us=-1", "timing.read_us"),
        ("timing.read_us=nan", "timing.read_us"),
        ("timing.read_us=inf", "timing.read_us"),
        ("ftl.gc_threshold=0.7", "ftl.gc_threshold"),
        ("host.queue_depth=0", "host.queue_depth"),
        ("host.queue_depth=\"deep\"", "host.queue_depth"),
        ("geometry=4", "geometry"),
        ("controller.program_loops=0", "controller.program_loops"),
        ("variation.ecc_ber=2", "variation.ecc_ber"),
    ] {
        let e = DeviceConfig::load("default", &[ov.into()]).unwrap_err();
        let msg = e.to_string();
        assert!(matches!(*e, SimError::Config { .. }), "{ov}: {e:?}");
        assert!(msg.contains(&format!("`{key}")), "{ov}: {msg}");
    }
}

#[test]
fn sort_restores_the_order_of_blkparse_captures() {
    let Some(dir) = common::traces_dir() else {
        return;
    };
    for name in ["ycsb-ext4", "ycsb-btrfs", "ycsb-f2fs"] {
        let p = dir.join(format!("blkparse/{name}.blkparse.txt"));
        let clamp_opts = TraceOptions {
            time_order: TimeOrder::Clamp,
            ..TraceOptions::default()
        };
        let mut clamp = open_trace_with(&p, None, clamp_opts).unwrap();
        let mut a: Vec<IoRecord> = clamp.by_ref().map(Result::unwrap).collect();
        // Sorting is the default for blkparse (`auto`).
        let mut sorted = open_trace(&p, None).unwrap();
        assert_eq!(sorted.time_order(), TimeOrder::Sort);
        let mut b: Vec<IoRecord> = sorted.by_ref().map(Result::unwrap).collect();
        // blkparse lists per-CPU batches: clamping moves many requests...
        assert!(
            clamp.stats().clamped > 100,
            "{name}: {}",
            clamp.stats().clamped
        );
        // ...the window puts them back in time order, none left to clamp.
        assert_eq!(sorted.stats().clamped, 0, "{name}");
        assert!(b.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
        // The same requests, only the arrival times differ.
        let key = |r: &IoRecord| (r.offset, r.size, r.stream, r.op as u8);
        a.sort_by_key(key);
        b.sort_by_key(key);
        assert_eq!(a.len(), b.len());
        assert!(a.iter().zip(&b).all(|(x, y)| key(x) == key(y)), "{name}");
    }
}
