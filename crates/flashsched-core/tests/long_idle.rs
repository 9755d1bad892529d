//! Idle simulated time costs no memory: per-second and per-bin series are
//! sparse, so a trace with a stray zero timestamp (an MSR file whose second
//! record is 406 years later), gaps of years, or an array workload at one
//! request a year runs in memory proportional to its requests. Before the
//! series were sparse these allocated one entry per second of the span
//! (`memory allocation of 615198649440 bytes failed`, an abort).

use std::collections::BTreeMap;

use flashsched_core::array::{ArrayConfig, ArraySim, ArrayWorkload, Layout};
use flashsched_core::engine::{Ns, NS_PER_S};
use flashsched_core::io::Op;
use flashsched_core::rng::Rng;
use flashsched_core::run::{self, RunSpec, WorkloadSpec};
use flashsched_core::workload::trace::TraceOptions;

use crate::common;
use common::{rec, run_checked, small_ssd};

const YEAR: Ns = 365 * 86_400 * NS_PER_S;

fn tmp(name: &str, text: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("flashsched-idle-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The file: MSR timestamps are 100 ns ticks, so the second record
/// is 1.28·10^19 ns (406 years) after the first. Two requests, two rows.
#[test]
fn stray_zero_timestamp_gives_two_rows() {
    let path = tmp(
        "z.csv",
        "0,hm,0,Write,9056014336,2048,2833\n128166385295514878,hm,0,Write,11855351808,512,2617\n",
    );
    let spec = RunSpec {
        device: "ssdsim-default".into(),
        overrides: vec![],
        workload: WorkloadSpec::Trace {
            path,
            format: "auto".into(),
            intensity: 1.0,
            limit: None,
            options: TraceOptions::default(),
        },
        seed: 42,
        keep_records: true,
    };
    let mut sim = run::build(&spec).unwrap();
    sim.enable_check();
    sim.run().unwrap();
    let m = &sim.metrics;
    let second = 128_166_385_295_514_878u64 * 100 / NS_PER_S;
    assert_eq!(m.seconds.bins(), &[0, second]);
    assert_eq!(m.seconds.values()[1].bytes, 512);
    assert_eq!(m.p99_per_second().len(), 2);
    assert!(m.seconds.heap_bytes() < 1024, "{}", m.seconds.heap_bytes());
    let s = sim.summary();
    assert_eq!(s.requests, 2);
    assert!(
        (s.simulated_s - second as f64).abs() < 2.0,
        "{}",
        s.simulated_s
    );
}

/// Random request sequences whose gaps mix microseconds, seconds, days and
/// years (up to ~300 years in all), on a small device with the oracle on:
/// the per-second series equals one computed directly from the per-request
/// rows, holds one entry per non-empty second, and its memory follows the
/// requests (an entry is 48 bytes + 8 for its index; the vectors at most
/// double).
#[test]
fn property_sparse_seconds_with_gaps_of_years() {
    let mut rng = Rng::new(21);
    let cfg = small_ssd(&[]);
    let cap = cfg.logical_bytes();
    for case in 0..60 {
        let n = 1 + rng.below(40) as usize;
        let mut t: Ns = 0;
        let recs: Vec<_> = (0..n)
            .map(|_| {
                t += match rng.below(4) {
                    0 => rng.below(2_000_000),
                    1 => rng.below(5 * NS_PER_S),
                    2 => rng.below(30 * 86_400 * NS_PER_S),
                    _ => rng.below(8 * YEAR),
                };
                let op = if rng.below(2) == 0 {
                    Op::Read
                } else {
                    Op::Write
                };
                rec(t, op, 4096 * rng.below(cap / 4096 - 4), 4096)
            })
            .collect();
        let sim = run_checked(cfg.clone(), recs);
        let m = &sim.metrics;
        let r = &m.records;
        let mut want: BTreeMap<u64, (u64, u64)> = BTreeMap::new();
        for i in 0..r.len() {
            let e = want.entry(r.complete[i] / NS_PER_S).or_default();
            e.0 += 1;
            e.1 += r.complete[i] - r.arrival[i];
        }
        let got: Vec<(u64, (u64, u64))> = m
            .seconds
            .iter()
            .map(|(b, s)| (b, (s.ios, s.latency_sum_ns as u64)))
            .collect();
        assert_eq!(got, want.into_iter().collect::<Vec<_>>(), "case {case}");
        assert_eq!(m.completed(), n as u64);
        assert_eq!(m.p99_per_second().len(), m.seconds.len());
        assert!(
            m.seconds.heap_bytes() <= 2 * 56 * n + 256,
            "case {case}: {} bytes for {n} requests",
            m.seconds.heap_bytes()
        );
    }
}

/// An array workload at about one request a year, in 1 ms bins (10^10 bins
/// in the span): the series lists only the bins in which something
/// happened, and the GC count and front-end are sampled without a row per
/// idle bin.
#[test]
fn array_series_skip_idle_bins() {
    let cfg = ArrayConfig {
        layout: Layout::parse("serial,victim=fifo").unwrap(),
        ssds: 3,
        queue_depth: 8,
        link: Some(flashsched_core::array::network::LinkConfig::parse("10gbe").unwrap()),
        bin_ns: 1_000_000,
        seed: 3,
        keep_records: false,
    };
    let phases = vec!["read=0.3,bs=64k,iops=0.0000000317,arrival=uniform,n=6".to_string()];
    let mut sim = ArraySim::new(cfg, small_ssd(&[]), &ArrayWorkload::Phases(phases)).unwrap();
    sim.enable_check();
    sim.run().unwrap();
    let t = sim.series_table();
    assert!(sim.now() > 4 * YEAR, "{}", sim.now());
    assert!(
        !t.bins.is_empty() && t.bins.len() <= 6 * 4,
        "{} rows",
        t.bins.len()
    );
    assert!(t.bins.windows(2).all(|w| w[0] < w[1]));
    let bytes: u64 = t.array_bytes.iter().sum();
    assert_eq!(
        bytes,
        sim.summary().bytes_read + sim.summary().bytes_written
    );
    assert!(t.wire_in.iter().sum::<f64>() > 0.0);
    for col in t
        .ssd_written
        .iter()
        .chain(&t.ssd_read)
        .chain(&t.gc_cumulative)
    {
        assert_eq!(col.len(), t.bins.len());
    }
}
