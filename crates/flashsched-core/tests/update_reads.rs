//! `ftl.update_reads`: a program carrying only part of a page first reads
//! the page's other valid sectors (read-modify-write, as MQSim and SSDsim).
//! Worked examples on `one_chip` (4 KiB pages of 8 sectors; tR 50 µs,
//! tPROG 200 µs, 1.25 µs per sector on the bus) with sector transfers on,
//! no cache; LPN 0 is die 0 plane 0. Every run has the version oracle on.

use std::io::Write;

use flashsched_core::io::Op;
use flashsched_core::memory::MemoryLimit;
use flashsched_core::run::{self, RunSpec, WorkloadSpec};

use crate::common;
use common::{completions_by_arrival_us, one_chip, rec, run_checked, ONE_CHIP};

const US: u64 = 1_000;
const HALF: u32 = 2048;

/// Sectors 0–3 of LPN 0 at 0: nothing valid yet, no read (4 sectors in,
/// 0–5, tPROG 5–205). Sectors 4–7 at 1000: sectors 0–3 are valid, so they
/// are read first (sense 1000–1050, 4 sectors out 1050–1055), then the
/// program (in 1055–1060, tPROG 1060–1260). The whole page at 2000 covers
/// every valid sector: no read (in 2000–2010, tPROG 2010–2210). Without
/// update reads the second write ends at 1205.
#[test]
fn a_partial_write_reads_the_valid_sectors_it_does_not_cover() {
    let reqs = || {
        vec![
            rec(0, Op::Write, 0, HALF),
            rec(1000 * US, Op::Write, HALF as u64, HALF),
            rec(2000 * US, Op::Write, 0, 2 * HALF),
        ]
    };
    let on = ["timing.sector_transfers=true", "ftl.update_reads=mqsim"];
    let sim = run_checked(one_chip(&on), reqs());
    assert_eq!(completions_by_arrival_us(&sim), [205.0, 1260.0, 2210.0]);
    let f = sim.summary().flash;
    assert_eq!((f.update_reads, f.reads), (1, 1));
    let sim = run_checked(one_chip(&["timing.sector_transfers=true"]), reqs());
    assert_eq!(completions_by_arrival_us(&sim), [205.0, 1205.0, 2210.0]);
    assert_eq!(sim.summary().flash.update_reads, 0);
}

/// A page first read before any write holds the read's sectors: a read of
/// sectors 0–3 of LPN 0 at 0 places it (sense 0–50, out 50–55); the write
/// of sectors 4–7 at 1000 then reads them back first (1000–1055, program
/// 1055–1260). A write covering what the read placed needs no read.
#[test]
fn a_page_placed_by_a_read_holds_the_read_s_sectors() {
    let on = ["timing.sector_transfers=true", "ftl.update_reads=mqsim"];
    let sim = run_checked(
        one_chip(&on),
        vec![
            rec(0, Op::Read, 0, HALF),
            rec(1000 * US, Op::Write, HALF as u64, HALF),
        ],
    );
    assert_eq!(completions_by_arrival_us(&sim), [55.0, 1260.0]);
    let sim = run_checked(
        one_chip(&on),
        vec![
            rec(0, Op::Read, 0, HALF),
            rec(1000 * US, Op::Write, 0, HALF),
        ],
    );
    assert_eq!(completions_by_arrival_us(&sim), [55.0, 1205.0]);
    assert_eq!(sim.summary().flash.update_reads, 0);
}

/// A run of a trace file: sectors 4–7 of LPN 0 written at 0, sectors 0–3
/// read at 1 ms.
fn trace_run(mode: &str) -> Vec<f64> {
    let dir = std::env::temp_dir().join(format!("flashsched-rmw-{}-{mode}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("t.ascii");
    let mut f = std::fs::File::create(&path).unwrap();
    // time_ns device sector sectors op (1 = read)
    writeln!(f, "0 0 4 4 0\n1000000 0 0 4 1").unwrap();
    let mut overrides: Vec<String> = ONE_CHIP.iter().map(|s| s.to_string()).collect();
    overrides.push("timing.sector_transfers=true".into());
    overrides.push(format!("ftl.update_reads={mode}"));
    let spec = RunSpec {
        device: "default".into(),
        overrides,
        workload: WorkloadSpec::Trace {
            path,
            format: "ascii-ns".into(),
            intensity: 1.0,
            limit: None,
            options: Default::default(),
        },
        seed: 1,
        keep_records: true,
    };
    let mut sim = run::build_with(&spec, true, MemoryLimit::from_env().unwrap()).unwrap();
    sim.run().unwrap();
    assert_eq!(sim.summary().flash.update_reads, (mode == "ssdsim") as u64);
    std::fs::remove_dir_all(&dir).ok();
    completions_by_arrival_us(&sim)
}

/// SSDsim reads its trace before the run and marks every read's sectors
/// valid (placing the page), so a write before the read already finds
/// sectors 0–3 valid: read 0–55; under static allocation SSDsim's program
/// then carries all 8 sectors (in 55–65, tPROG 65–265). MQSim (and a
/// request stream with no pre-pass) finds nothing there yet: 0–205. The
/// read at 1000 µs: 1000–1055 either way.
#[test]
fn ssdsim_s_pre_pass_marks_later_reads_sectors_valid() {
    assert_eq!(trace_run("ssdsim"), [265.0, 1055.0]);
    assert_eq!(trace_run("mqsim"), [205.0, 1055.0]);
}

/// SSDsim's buffer under static allocation counts the room a write-back
/// frees as the sectors its program carries, merged with the update
/// read's (`insert2buffer` subtracts the grown sub-request). A sector
/// buffer of 8 sectors (one page); writes of sectors 0–3 unless whole:
/// LPN 0 whole, LPN 1 (evicts LPN 0: programmed whole), LPN 0 again (both
/// fit), LPN 2 (evicts LPN 1), LPN 3 (evicts LPN 0, whose flash copy holds
/// sectors 4–7: read, then programmed with all 8, freeing 8 sectors for the
/// 4 it held), LPN 4. Statically the buffer then holds 8 sectors and LPN 4
/// fits: 3 programs. Dynamically (no merged program) it holds 4 + 4 and
/// LPN 4 evicts LPN 2: 4 programs. One update read either way.
#[test]
fn ssdsim_s_static_buffer_frees_a_merged_write_back_s_sectors() {
    let run = |alloc: &str| {
        let extra = [
            "timing.sector_transfers=true",
            "ftl.update_reads=ssdsim",
            "cache.policy=ssdsim-lru",
            "cache.sectors=true",
            "cache.mib=0.00390625",
            alloc,
        ];
        let mut reqs = vec![rec(0, Op::Write, 0, 2 * HALF)];
        for (k, lpn) in [1u64, 0, 2, 3, 4].iter().enumerate() {
            reqs.push(rec(
                (k as u64 + 1) * 1000 * US,
                Op::Write,
                lpn * 2 * HALF as u64,
                HALF,
            ));
        }
        let f = run_checked(one_chip(&extra), reqs).summary().flash;
        (f.programs, f.update_reads)
    };
    assert_eq!(run("ftl.allocation=static:PDCW"), (3, 1));
    assert_eq!(run("ftl.allocation=dynamic"), (4, 1));
}

/// A bad value is named by key.
#[test]
fn a_bad_mode_names_the_key() {
    let e =
        flashsched_core::config::DeviceConfig::load("default", &["ftl.update_reads=yes".into()])
            .unwrap_err()
            .to_string();
    assert!(e.contains("ftl.update_reads"), "{e}");
}
