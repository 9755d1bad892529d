//! The trace readers give exactly the requests they gave before the parsing
//! fast path (issue #8): every real sample under `shared/traces`, read in
//! *every* format (so the error paths are covered too), is summarised as
//! (records, bad lines, dropped, digest of the records, first error) and
//! compared with the values recorded from the reference reader.
//!
//! Times enter the digest as the replayer delivers them (running maximum),
//! the form in which both the old reader + replayer and the new clamping
//! reader present them to the simulation.
//!
//! Regenerate (only after an intended change of parsing results) with
//! `FLASHSCHED_GOLDEN_PRINT=1 cargo test --release -p flashsched-core --test
//! trace_golden -- --nocapture`.

use crate::common;
use common::traces_dir;

use flashsched_core::workload::trace::{open_trace_with, TimeOrder, TraceFormat, TraceOptions};
use flashsched_core::workload::Op;

const SAMPLES: [&str; 14] = [
    "ascii/disksim-valid.ms.trace",
    "ascii/ssdsim-example.ns.ascii",
    "ascii/tpcc-small.mqsim-ns.trace",
    "ascii/websearch1.mqsim-ns.trace",
    "blkparse/fiu-mail-cheetah.first10000.blkparse",
    "blkparse/ycsb-btrfs.blkparse.txt",
    "blkparse/ycsb-ext4.blkparse.txt",
    "blkparse/ycsb-f2fs.blkparse.txt",
    "msr/hm_0.first1000.csv",
    "msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
    "msr/msr.cut.per_10k.rw_20_80.105.trace",
    "msr/msr.cut.per_10k.rw_40_60.1370.trace",
    "msr/rsrch_0.first1000.csv",
    "umass/WebSearch1.first10.spc",
];

/// (records, bad lines, dropped, FNV-1a digest, first error without the path).
type Outcome = (u64, u64, u64, u64, String);

fn fnv(h: &mut u64, v: u64) {
    for b in v.to_le_bytes() {
        *h ^= u64::from(b);
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

/// The formats with a fast path, which the reference covers (the column-
/// mapped formats are checked in `trace_formats.rs`).
const FORMATS: [&str; 9] = [
    "msr",
    "spc",
    "ascii-ns",
    "ascii-ms",
    "ssdsim",
    "blkparse",
    "blkparse-q",
    "fiu",
    "heimdall",
];

fn outcome(path: &std::path::Path, format: &TraceFormat) -> Outcome {
    // File order (`clamp`), as the reference reader delivered records.
    let options = TraceOptions {
        skip_bad: false,
        time_order: TimeOrder::Clamp,
    };
    let mut r =
        open_trace_with(path, Some(format.clone()), options).unwrap_or_else(|e| panic!("{e}"));
    let (mut recs, mut bad, mut h, mut last_t) = (0u64, 0u64, 0xcbf2_9ce4_8422_2325u64, 0u64);
    let mut first = String::new();
    let mut no_records = false;
    for item in r.by_ref() {
        match item {
            Ok(rec) => {
                recs += 1;
                last_t = last_t.max(rec.time_ns);
                fnv(&mut h, last_t);
                fnv(&mut h, rec.offset);
                fnv(&mut h, u64::from(rec.size));
                let op = match rec.op {
                    Op::Read => 0,
                    Op::Write => 1,
                    Op::Trim => 2,
                };
                fnv(&mut h, op);
                fnv(&mut h, u64::from(rec.stream));
            }
            // New since the reference: a trace without records ends with an
            // error (checked below, not part of the recorded outcome).
            Err(e) if e.to_string().contains(": no records in this ") => {
                assert_eq!(recs, 0, "{e}");
                no_records = true;
            }
            Err(e) => {
                bad += 1;
                if first.is_empty() {
                    let msg = e.to_string();
                    let prefix = format!("{}:", path.display());
                    first = msg.strip_prefix(&prefix).unwrap_or(&msg).to_string();
                }
            }
        }
    }
    assert_eq!(no_records, recs == 0, "{} as {format}", path.display());
    (recs, bad, r.skipped(), h, first)
}

#[test]
fn fast_path_gives_the_reference_results() {
    let Some(dir) = traces_dir() else { return };
    let print = std::env::var_os("FLASHSCHED_GOLDEN_PRINT").is_some();
    let mut k = 0;
    for sample in SAMPLES {
        for name in FORMATS {
            let format = TraceFormat::from_name(name).unwrap().unwrap();
            let got = outcome(&dir.join(sample), &format);
            if print {
                println!(
                    "    ({:?}, {:?}, {}, {}, {}, 0x{:016x}, {:?}),",
                    sample,
                    format.name(),
                    got.0,
                    got.1,
                    got.2,
                    got.3,
                    got.4
                );
                continue;
            }
            let want = &GOLDEN[k];
            assert_eq!((want.0, want.1), (sample, format.name()));
            let want: Outcome = (want.2, want.3, want.4, want.5, want.6.to_string());
            assert_eq!(got, want, "{sample} read as {format}");
            k += 1;
        }
    }
    assert!(print || k == GOLDEN.len());
}

type Golden = (&'static str, &'static str, u64, u64, u64, u64, &'static str);

#[rustfmt::skip]
const GOLDEN: &[Golden] = &[
    ("ascii/disksim-valid.ms.trace", "msr", 0, 100000, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 1: \"13.191135\\t30\\t0\\t5\\t1\""),
    ("ascii/disksim-valid.ms.trace", "spc", 0, 100000, 0, 0xcbf29ce484222325, "1: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 1: \"13.191135\\t30\\t0\\t5\\t1\""),
    ("ascii/disksim-valid.ms.trace", "ascii-ns", 100000, 0, 0, 0xb5233601abe7efd3, ""),
    ("ascii/disksim-valid.ms.trace", "ascii-ms", 100000, 0, 0, 0x351aad48a81f8e78, ""),
    ("ascii/disksim-valid.ms.trace", "ssdsim", 0, 100000, 0, 0xcbf29ce484222325, "1: field 1 (time ns): expected a non-negative integer, got \"13.191135\""),
    ("ascii/disksim-valid.ms.trace", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("ascii/disksim-valid.ms.trace", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("ascii/disksim-valid.ms.trace", "fiu", 0, 100000, 0, 0xcbf29ce484222325, "1: expected 9 whitespace-separated fields (ts(ns) pid process lba size(sectors) R|W major minor md5), got 5: \"13.191135\\t30\\t0\\t5\\t1\""),
    ("ascii/disksim-valid.ms.trace", "heimdall", 100000, 0, 0, 0x08335ba09c00d040, ""),
    ("ascii/ssdsim-example.ns.ascii", "msr", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 1: \"0 0 303567 7 0\""),
    ("ascii/ssdsim-example.ns.ascii", "spc", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 1: \"0 0 303567 7 0\""),
    ("ascii/ssdsim-example.ns.ascii", "ascii-ns", 10000, 0, 0, 0x24035676c0abb972, ""),
    ("ascii/ssdsim-example.ns.ascii", "ascii-ms", 10000, 0, 0, 0x37651f020b3271e6, ""),
    ("ascii/ssdsim-example.ns.ascii", "ssdsim", 10000, 0, 0, 0x24035676c0abb972, ""),
    ("ascii/ssdsim-example.ns.ascii", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("ascii/ssdsim-example.ns.ascii", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("ascii/ssdsim-example.ns.ascii", "fiu", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 9 whitespace-separated fields (ts(ns) pid process lba size(sectors) R|W major minor md5), got 5: \"0 0 303567 7 0\""),
    ("ascii/ssdsim-example.ns.ascii", "heimdall", 10000, 0, 0, 0x166a2932c5161aa8, ""),
    ("ascii/tpcc-small.mqsim-ns.trace", "msr", 0, 6999, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 1: \"938513000 4 264719034 16 0\""),
    ("ascii/tpcc-small.mqsim-ns.trace", "spc", 0, 6999, 0, 0xcbf29ce484222325, "1: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 1: \"938513000 4 264719034 16 0\""),
    ("ascii/tpcc-small.mqsim-ns.trace", "ascii-ns", 6999, 0, 0, 0xa2c2cffc61ab9c98, ""),
    ("ascii/tpcc-small.mqsim-ns.trace", "ascii-ms", 6999, 0, 0, 0x242ed283ee3d7fad, ""),
    ("ascii/tpcc-small.mqsim-ns.trace", "ssdsim", 6999, 0, 0, 0xa2c2cffc61ab9c98, ""),
    ("ascii/tpcc-small.mqsim-ns.trace", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("ascii/tpcc-small.mqsim-ns.trace", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("ascii/tpcc-small.mqsim-ns.trace", "fiu", 0, 6999, 0, 0xcbf29ce484222325, "1: expected 9 whitespace-separated fields (ts(ns) pid process lba size(sectors) R|W major minor md5), got 5: \"938513000 4 264719034 16 0\""),
    ("ascii/tpcc-small.mqsim-ns.trace", "heimdall", 6999, 0, 0, 0x61710d119c97ea01, ""),
    ("ascii/websearch1.mqsim-ns.trace", "msr", 0, 24783, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 1: \"11413000 0 657728 16 1\""),
    ("ascii/websearch1.mqsim-ns.trace", "spc", 0, 24783, 0, 0xcbf29ce484222325, "1: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 1: \"11413000 0 657728 16 1\""),
    ("ascii/websearch1.mqsim-ns.trace", "ascii-ns", 24783, 0, 0, 0x19d4fd65989e40db, ""),
    ("ascii/websearch1.mqsim-ns.trace", "ascii-ms", 24783, 0, 0, 0x02c1c16e481fe83e, ""),
    ("ascii/websearch1.mqsim-ns.trace", "ssdsim", 24783, 0, 0, 0x19d4fd65989e40db, ""),
    ("ascii/websearch1.mqsim-ns.trace", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("ascii/websearch1.mqsim-ns.trace", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("ascii/websearch1.mqsim-ns.trace", "fiu", 0, 24783, 0, 0xcbf29ce484222325, "1: expected 9 whitespace-separated fields (ts(ns) pid process lba size(sectors) R|W major minor md5), got 5: \"11413000 0 657728 16 1\""),
    ("ascii/websearch1.mqsim-ns.trace", "heimdall", 24783, 0, 0, 0xf5ef24787800d461, ""),
    ("blkparse/fiu-mail-cheetah.first10000.blkparse", "msr", 0, 9998, 0, 0xcbf29ce484222325, "3: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 1: \"89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\" (after tar header junk)"),
    ("blkparse/fiu-mail-cheetah.first10000.blkparse", "spc", 0, 9998, 0, 0xcbf29ce484222325, "3: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 1: \"89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\" (after tar header junk)"),
    ("blkparse/fiu-mail-cheetah.first10000.blkparse", "ascii-ns", 0, 9998, 0, 0xcbf29ce484222325, "3: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 9: \"89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\" (after tar header junk)"),
    ("blkparse/fiu-mail-cheetah.first10000.blkparse", "ascii-ms", 0, 9998, 0, 0xcbf29ce484222325, "3: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 9: \"89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\" (after tar header junk)"),
    ("blkparse/fiu-mail-cheetah.first10000.blkparse", "ssdsim", 0, 9998, 0, 0xcbf29ce484222325, "3: expected 5 whitespace-separated fields (time(ns) dev lsn size(sectors) op), got 9: \"89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\" (after tar header junk)"),
    ("blkparse/fiu-mail-cheetah.first10000.blkparse", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("blkparse/fiu-mail-cheetah.first10000.blkparse", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("blkparse/fiu-mail-cheetah.first10000.blkparse", "fiu", 9998, 0, 0, 0xf5fe80d83bebd47f, ""),
    ("blkparse/fiu-mail-cheetah.first10000.blkparse", "heimdall", 0, 9998, 0, 0xcbf29ce484222325, "3: expected 5 whitespace-separated fields (ts(ms) dev offset(B) size(B) op), got 9: \"89966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\" (after tar header junk)"),
    ("blkparse/ycsb-btrfs.blkparse.txt", "msr", 0, 5514, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 2: \"8,16   3        7     0.000020122  4528  I   R 584808 + 936 [java]\""),
    ("blkparse/ycsb-btrfs.blkparse.txt", "spc", 0, 5514, 0, 0xcbf29ce484222325, "1: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 2: \"8,16   3        7     0.000020122  4528  I   R 584808 + 936 [java]\""),
    ("blkparse/ycsb-btrfs.blkparse.txt", "ascii-ns", 0, 5514, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 11: \"8,16   3        7     0.000020122  4528  I   R 584808 + 936 [java]\""),
    ("blkparse/ycsb-btrfs.blkparse.txt", "ascii-ms", 0, 5514, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 11: \"8,16   3        7     0.000020122  4528  I   R 584808 + 936 [java]\""),
    ("blkparse/ycsb-btrfs.blkparse.txt", "ssdsim", 0, 5514, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time(ns) dev lsn size(sectors) op), got 11: \"8,16   3        7     0.000020122  4528  I   R 584808 + 936 [java]\""),
    ("blkparse/ycsb-btrfs.blkparse.txt", "blkparse", 1824, 0, 0, 0xb03c345238ba970c, ""),
    ("blkparse/ycsb-btrfs.blkparse.txt", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("blkparse/ycsb-btrfs.blkparse.txt", "fiu", 0, 5514, 0, 0xcbf29ce484222325, "1: field 1 (ts ns): expected a non-negative integer, got \"8,16\""),
    ("blkparse/ycsb-btrfs.blkparse.txt", "heimdall", 0, 5514, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (ts(ms) dev offset(B) size(B) op), got 11: \"8,16   3        7     0.000020122  4528  I   R 584808 + 936 [java]\""),
    ("blkparse/ycsb-ext4.blkparse.txt", "msr", 0, 29704, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 2: \"8,16   3        4     0.000011950  3645  I   R 4938888 + 256 [java]\""),
    ("blkparse/ycsb-ext4.blkparse.txt", "spc", 0, 29704, 0, 0xcbf29ce484222325, "1: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 2: \"8,16   3        4     0.000011950  3645  I   R 4938888 + 256 [java]\""),
    ("blkparse/ycsb-ext4.blkparse.txt", "ascii-ns", 0, 29704, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 11: \"8,16   3        4     0.000011950  3645  I   R 4938888 + 256 [java]\""),
    ("blkparse/ycsb-ext4.blkparse.txt", "ascii-ms", 0, 29704, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 11: \"8,16   3        4     0.000011950  3645  I   R 4938888 + 256 [java]\""),
    ("blkparse/ycsb-ext4.blkparse.txt", "ssdsim", 0, 29704, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time(ns) dev lsn size(sectors) op), got 11: \"8,16   3        4     0.000011950  3645  I   R 4938888 + 256 [java]\""),
    ("blkparse/ycsb-ext4.blkparse.txt", "blkparse", 9886, 0, 1, 0xc1676261683939f6, ""),
    ("blkparse/ycsb-ext4.blkparse.txt", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("blkparse/ycsb-ext4.blkparse.txt", "fiu", 0, 29704, 0, 0xcbf29ce484222325, "1: field 1 (ts ns): expected a non-negative integer, got \"8,16\""),
    ("blkparse/ycsb-ext4.blkparse.txt", "heimdall", 0, 29704, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (ts(ms) dev offset(B) size(B) op), got 11: \"8,16   3        4     0.000011950  3645  I   R 4938888 + 256 [java]\""),
    ("blkparse/ycsb-f2fs.blkparse.txt", "msr", 0, 17223, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 2: \"8,16   0        4     0.000017985  5314  I   R 1611592 + 256 [java]\""),
    ("blkparse/ycsb-f2fs.blkparse.txt", "spc", 0, 17223, 0, 0xcbf29ce484222325, "1: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 2: \"8,16   0        4     0.000017985  5314  I   R 1611592 + 256 [java]\""),
    ("blkparse/ycsb-f2fs.blkparse.txt", "ascii-ns", 0, 17223, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 11: \"8,16   0        4     0.000017985  5314  I   R 1611592 + 256 [java]\""),
    ("blkparse/ycsb-f2fs.blkparse.txt", "ascii-ms", 0, 17223, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 11: \"8,16   0        4     0.000017985  5314  I   R 1611592 + 256 [java]\""),
    ("blkparse/ycsb-f2fs.blkparse.txt", "ssdsim", 0, 17223, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time(ns) dev lsn size(sectors) op), got 11: \"8,16   0        4     0.000017985  5314  I   R 1611592 + 256 [java]\""),
    ("blkparse/ycsb-f2fs.blkparse.txt", "blkparse", 5727, 0, 0, 0xae376d8c5512eabd, ""),
    ("blkparse/ycsb-f2fs.blkparse.txt", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("blkparse/ycsb-f2fs.blkparse.txt", "fiu", 0, 17223, 0, 0xcbf29ce484222325, "1: field 1 (ts ns): expected a non-negative integer, got \"8,16\""),
    ("blkparse/ycsb-f2fs.blkparse.txt", "heimdall", 0, 17223, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (ts(ms) dev offset(B) size(B) op), got 11: \"8,16   0        4     0.000017985  5314  I   R 1611592 + 256 [java]\""),
    ("msr/hm_0.first1000.csv", "msr", 1000, 0, 0, 0xd144c8ec2b8f2d7b, ""),
    ("msr/hm_0.first1000.csv", "spc", 0, 1000, 0, 0xcbf29ce484222325, "1: field 1 (ASU): expected an integer in 0..=4294967295, got \"128166385295514663\""),
    ("msr/hm_0.first1000.csv", "ascii-ns", 0, 1000, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 1: \"128166385295514663,hm,0,Write,9056014336,2048,2833\""),
    ("msr/hm_0.first1000.csv", "ascii-ms", 0, 1000, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 1: \"128166385295514663,hm,0,Write,9056014336,2048,2833\""),
    ("msr/hm_0.first1000.csv", "ssdsim", 0, 1000, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time(ns) dev lsn size(sectors) op), got 1: \"128166385295514663,hm,0,Write,9056014336,2048,2833\""),
    ("msr/hm_0.first1000.csv", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("msr/hm_0.first1000.csv", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("msr/hm_0.first1000.csv", "fiu", 0, 1000, 0, 0xcbf29ce484222325, "1: expected 9 whitespace-separated fields (ts(ns) pid process lba size(sectors) R|W major minor md5), got 1: \"128166385295514663,hm,0,Write,9056014336,2048,2833\""),
    ("msr/hm_0.first1000.csv", "heimdall", 0, 1000, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (ts(ms) dev offset(B) size(B) op), got 1: \"128166385295514663,hm,0,Write,9056014336,2048,2833\""),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "msr", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 1: \"0.000 0 11562803200 4096 1\""),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "spc", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 1: \"0.000 0 11562803200 4096 1\""),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "ascii-ns", 10000, 0, 0, 0x658f50e3f2eef62a, ""),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "ascii-ms", 10000, 0, 0, 0x079766825c4fef98, ""),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "ssdsim", 0, 10000, 0, 0xcbf29ce484222325, "1: field 1 (time ns): expected a non-negative integer, got \"0.000\""),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "fiu", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 9 whitespace-separated fields (ts(ns) pid process lba size(sectors) R|W major minor md5), got 5: \"0.000 0 11562803200 4096 1\""),
    ("msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace", "heimdall", 10000, 0, 0, 0x9bf9c21a1ef5fe76, ""),
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "msr", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 1: \"0.000 0 200626176 4096 0\""),
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "spc", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 1: \"0.000 0 200626176 4096 0\""),
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "ascii-ns", 10000, 0, 0, 0xe2e615eeb153ca5b, ""),
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "ascii-ms", 10000, 0, 0, 0x77c6547253d88562, ""),
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "ssdsim", 0, 10000, 0, 0xcbf29ce484222325, "1: field 1 (time ns): expected a non-negative integer, got \"0.000\""),
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "fiu", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 9 whitespace-separated fields (ts(ns) pid process lba size(sectors) R|W major minor md5), got 5: \"0.000 0 200626176 4096 0\""),
    ("msr/msr.cut.per_10k.rw_20_80.105.trace", "heimdall", 10000, 0, 0, 0xed8c92a53b0564da, ""),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "msr", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 1: \"0.000 0 3242508288 4096 0\""),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "spc", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 1: \"0.000 0 3242508288 4096 0\""),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "ascii-ns", 10000, 0, 0, 0x84eb12d0e3c5c5df, ""),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "ascii-ms", 10000, 0, 0, 0x0aa22a1fe6c5d78e, ""),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "ssdsim", 0, 10000, 0, 0xcbf29ce484222325, "1: field 1 (time ns): expected a non-negative integer, got \"0.000\""),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "fiu", 0, 10000, 0, 0xcbf29ce484222325, "1: expected 9 whitespace-separated fields (ts(ns) pid process lba size(sectors) R|W major minor md5), got 5: \"0.000 0 3242508288 4096 0\""),
    ("msr/msr.cut.per_10k.rw_40_60.1370.trace", "heimdall", 10000, 0, 0, 0xb279c92dd1308a66, ""),
    ("msr/rsrch_0.first1000.csv", "msr", 1000, 0, 0, 0x85c0a215973e1ef0, ""),
    ("msr/rsrch_0.first1000.csv", "spc", 0, 1000, 0, 0xcbf29ce484222325, "1: field 1 (ASU): expected an integer in 0..=4294967295, got \"128166372003061629\""),
    ("msr/rsrch_0.first1000.csv", "ascii-ns", 0, 1000, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 1: \"128166372003061629,rsrch,0,Read,7014609920,24576,41286\""),
    ("msr/rsrch_0.first1000.csv", "ascii-ms", 0, 1000, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 1: \"128166372003061629,rsrch,0,Read,7014609920,24576,41286\""),
    ("msr/rsrch_0.first1000.csv", "ssdsim", 0, 1000, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time(ns) dev lsn size(sectors) op), got 1: \"128166372003061629,rsrch,0,Read,7014609920,24576,41286\""),
    ("msr/rsrch_0.first1000.csv", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("msr/rsrch_0.first1000.csv", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("msr/rsrch_0.first1000.csv", "fiu", 0, 1000, 0, 0xcbf29ce484222325, "1: expected 9 whitespace-separated fields (ts(ns) pid process lba size(sectors) R|W major minor md5), got 1: \"128166372003061629,rsrch,0,Read,7014609920,24576,41286\""),
    ("msr/rsrch_0.first1000.csv", "heimdall", 0, 1000, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (ts(ms) dev offset(B) size(B) op), got 1: \"128166372003061629,rsrch,0,Read,7014609920,24576,41286\""),
    ("umass/WebSearch1.first10.spc", "msr", 0, 10, 0, 0xcbf29ce484222325, "1: expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 5: \"0,657728,8192,R,0.011413\""),
    ("umass/WebSearch1.first10.spc", "spc", 10, 0, 0, 0xad774d65c43f2f28, ""),
    ("umass/WebSearch1.first10.spc", "ascii-ns", 0, 10, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 1: \"0,657728,8192,R,0.011413\""),
    ("umass/WebSearch1.first10.spc", "ascii-ms", 0, 10, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 1: \"0,657728,8192,R,0.011413\""),
    ("umass/WebSearch1.first10.spc", "ssdsim", 0, 10, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (time(ns) dev lsn size(sectors) op), got 1: \"0,657728,8192,R,0.011413\""),
    ("umass/WebSearch1.first10.spc", "blkparse", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("umass/WebSearch1.first10.spc", "blkparse-q", 0, 0, 0, 0xcbf29ce484222325, ""),
    ("umass/WebSearch1.first10.spc", "fiu", 0, 10, 0, 0xcbf29ce484222325, "1: expected 9 whitespace-separated fields (ts(ns) pid process lba size(sectors) R|W major minor md5), got 1: \"0,657728,8192,R,0.011413\""),
    ("umass/WebSearch1.first10.spc", "heimdall", 0, 10, 0, 0xcbf29ce484222325, "1: expected 5 whitespace-separated fields (ts(ms) dev offset(B) size(B) op), got 1: \"0,657728,8192,R,0.011413\""),
];
