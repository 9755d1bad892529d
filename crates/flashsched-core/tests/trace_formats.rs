//! The published cloud/VDI formats and user column mappings, end to end
//! through files: worked examples computed by hand, a mapping that describes
//! a native format reading the real samples exactly as the native reader
//! does (skipped when ../shared/traces is absent), a TOML mapping given as
//! the format, and detection refusing to guess between readings.

use crate::common;
use common::traces_dir;

use std::path::{Path, PathBuf};

use flashsched_core::error::SimResult;
use flashsched_core::workload::trace::{detect_format, open_trace, TraceFormat};
use flashsched_core::workload::{IoRecord, Op};

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashsched-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn format(name: &str) -> TraceFormat {
    TraceFormat::from_name(name)
        .unwrap_or_else(|e| panic!("{e}"))
        .unwrap()
}

fn read(path: &Path, fmt: Option<TraceFormat>) -> SimResult<(String, Vec<IoRecord>)> {
    let mut r = open_trace(path, fmt)?;
    let recs = r.by_ref().collect::<Result<Vec<_>, _>>()?;
    Ok((r.format().to_string(), recs))
}

fn rec(time_ns: u64, offset: u64, size: u32, op: Op, stream: u32) -> IoRecord {
    IoRecord {
        time_ns,
        offset,
        size,
        op,
        stream,
    }
}

#[test]
fn cloud_formats_are_detected_and_read_from_files() {
    let dir = temp_dir("cloud");
    // (file, text, format, records): times relative to the first record.
    let cases: [(&str, &str, &str, Vec<IoRecord>); 5] = [
        (
            "2016022219-LUN4.csv",
            "Timestamp,Response,IOType,LUN,Offset,Size\n\
             1456135200.013118000,0.000648000,W,4,8192,4096\n\
             1456135200.513118000,0.000100000,R,4,0,512\n",
            "systor",
            vec![
                rec(0, 8192, 4096, Op::Write, 4),
                rec(500_000_000, 0, 512, Op::Read, 4),
            ],
        ),
        (
            "alibaba.csv",
            "3,W,4096,8192,1577808000000000\n3,R,0,4096,1577808000000250\n",
            "alibaba",
            vec![
                rec(0, 4096, 8192, Op::Write, 3),
                rec(250_000, 0, 4096, Op::Read, 3),
            ],
        ),
        (
            "cbs.csv",
            "1538323200,100,8,1,1063\n1538323202,108,16,0,1063\n",
            "tencent",
            vec![
                rec(0, 51_200, 4096, Op::Write, 1063),
                rec(2_000_000_000, 55_296, 8192, Op::Read, 1063),
            ],
        ),
        (
            "vscsi.csv",
            "#Vscsi Cmd Trace. (Trace Format Version 1)\n\
             2147483692,4096,1,read,16,2756778716647\n\
             2147483693,8192,2,write,24,2756778716747\n",
            "vscsi",
            vec![
                rec(0, 8192, 4096, Op::Read, 0),
                rec(100_000, 12_288, 8192, Op::Write, 0),
            ],
        ),
        (
            "cp.csv",
            "ts,lba,op,size\n2000,8,w,4096\n2010,0,r,512\n",
            "cloudphysics",
            vec![
                rec(0, 4096, 4096, Op::Write, 0),
                rec(10_000, 0, 512, Op::Read, 0),
            ],
        ),
    ];
    for (file, text, name, want) in cases {
        let p = dir.join(file);
        std::fs::write(&p, text).unwrap();
        assert_eq!(detect_format(&p).unwrap().name(), name, "{file}");
        assert_eq!(read(&p, None).unwrap(), (name.to_string(), want.clone()));
        assert_eq!(read(&p, Some(format(name))).unwrap().1, want);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_name_file_line_and_field() {
    let dir = temp_dir("cloud-errors");
    for (name, text, line, needle) in [
        (
            "tencent",
            "1538323200,100,8,1,1063\n1538323202,108,16,5,1063\n",
            2,
            "field 4 (IOType): expected `0` or `1`, got \"5\"",
        ),
        (
            "alibaba",
            "3,W,4096,8192,1577808000000000\n3,W,4096,8192\n",
            2,
            "expected 5 comma-separated fields",
        ),
        (
            "csv:time=0:ms,op=1:R/W,offset=2:B,size=3:sector,skip=1",
            "t,op,off,len\n1.5,R,0,8\n2,R,-4,8\n",
            3,
            "column 2 (offset): expected a non-negative integer (B), got \"-4\"",
        ),
    ] {
        let p = dir.join("t.csv");
        std::fs::write(&p, text).unwrap();
        let e = read(&p, Some(format(name))).unwrap_err().to_string();
        let loc = format!("{}:{line}: ", p.display());
        assert!(e.starts_with(&loc) && e.contains(needle), "{name}: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_mapping_of_a_native_format_reads_the_samples_identically() {
    let Some(traces) = traces_dir() else { return };
    for (sample, native, mapping) in [
        (
            "msr/hm_0.first1000.csv",
            "msr",
            "csv:time=0:100ns,op=3:Read/Write,offset=4:B,size=5:B,stream=2",
        ),
        (
            "msr/rsrch_0.first1000.csv",
            "msr",
            "csv:time=0:100ns,op=3:Read/Write,offset=4:B,size=5:B,stream=2,fields=7",
        ),
        (
            "msr/msr.cut.per_10k.rw_40_60.1370.trace",
            "heimdall",
            "ws:time=0:ms,op=4:1/0,offset=2:B,size=3:B,stream=1,fields=5",
        ),
        (
            "umass/WebSearch1.first10.spc",
            "spc",
            "csv:time=4:s,op=3:R/W,offset=1:sector,size=2:B,stream=0",
        ),
    ] {
        let p = traces.join(sample);
        if !p.exists() {
            continue;
        }
        let (_, want) = read(&p, Some(format(native))).unwrap();
        let (shown, got) = read(&p, Some(format(mapping))).unwrap();
        assert_eq!(shown, mapping);
        assert!(!want.is_empty());
        assert!(got == want, "{sample}: the mapping reads differently");
    }
}

#[test]
fn a_toml_file_is_a_mapping() {
    let dir = temp_dir("toml-map");
    let map = dir.join("trace-map.toml");
    std::fs::write(
        &map,
        "sep = \"tab\"\nskip = 1\n\
         time = { column = 1, unit = \"us\" }\n\
         op = { column = 0, read = [\"rd\", \"read\"], write = \"wr\", trim = \"discard\" }\n\
         offset = { column = 2, unit = \"KiB\" }\n\
         size = { column = 3, unit = \"B\" }\n",
    )
    .unwrap();
    let trace = dir.join("t.tsv");
    std::fs::write(
        &trace,
        "op\tus\tkib\tbytes\nrd\t10\t4\t4096\nREAD\t15.5\t8\t512\ndiscard\t20\t0\t65536\nwr\t21\t1\t1024\n",
    )
    .unwrap();
    let fmt = format(map.to_str().unwrap());
    assert!(matches!(fmt, TraceFormat::Columns(_)));
    let (_, recs) = read(&trace, Some(fmt)).unwrap();
    assert_eq!(
        recs,
        [
            rec(0, 4096, 4096, Op::Read, 0),
            rec(5_500, 8192, 512, Op::Read, 0),
            rec(10_000, 0, 65536, Op::Trim, 0),
            rec(11_000, 1024, 1024, Op::Write, 0),
        ]
    );
    // A mistake in the file names the file and the key.
    std::fs::write(&map, "time = { column = 1, unit = \"minutes\" }\n").unwrap();
    let e = TraceFormat::from_name(map.to_str().unwrap())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!(
            "column mapping file {}: `time.unit`",
            map.display()
        )),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn detection_refuses_to_guess() {
    let dir = temp_dir("ambiguous");
    // Heimdall lines (ms, bytes) with one size that is no multiple of 512:
    // DiskSim ASCII (ms, sectors) fits as well and reads 512 times the
    // bytes. The old detector silently chose ascii-ms.
    let p = dir.join("cut.trace");
    std::fs::write(
        &p,
        "0.000 0 3242508288 4096 0\n0.100 0 3242266624 4096 0\n\
         22.810 0 2205343744 4096 1\n23.000 0 8192 1000 1\n24.5 0 0 8192 0\n",
    )
    .unwrap();
    let e = read(&p, None).unwrap_err().to_string();
    assert!(
        e.starts_with(&format!(
            "{}:1: cannot choose the trace format: the first lines fit 2 formats",
            p.display()
        )),
        "{e}"
    );
    assert!(e.contains("--format ascii-ms or --format heimdall"), "{e}");
    // Named, it is read.
    let (_, recs) = read(&p, Some(format("heimdall"))).unwrap();
    assert_eq!(recs[3].size, 1000);
    std::fs::remove_dir_all(&dir).unwrap();
}
