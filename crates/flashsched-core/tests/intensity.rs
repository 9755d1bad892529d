//! Intensity extremes: scaled arrival times are exact or an error naming
//! the record and the intensity — never saturated to u64::MAX and wrapped
//! into negative latencies (`--intensity 1e-18` before), and never an abort
//! (`1e-9` allocated a per-second series of 10^9 seconds before).

use flashsched_core::engine::{Ns, MAX_ARRIVAL, NS_PER_S};
use flashsched_core::io::Op;
use flashsched_core::rng::Rng;
use flashsched_core::run::{self, RunSpec, WorkloadSpec};
use flashsched_core::sim::{RunOptions, Simulation};
use flashsched_core::workload::replay::{scale_time, Replay};
use flashsched_core::workload::trace::TraceOptions;
use flashsched_core::{SimError, SimResult};

use crate::common;
use common::{rec, small_ssd};

fn tmp(name: &str, text: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("flashsched-intensity-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn trace_run(path: &std::path::Path, intensity: f64) -> SimResult<Simulation> {
    let spec = RunSpec {
        device: "ssdsim-default".into(),
        overrides: vec![],
        workload: WorkloadSpec::Trace {
            path: path.to_path_buf(),
            format: "auto".into(),
            intensity,
            limit: None,
            options: TraceOptions::default(),
        },
        seed: 42,
        keep_records: true,
    };
    let mut sim = run::build(&spec)?;
    sim.enable_check();
    sim.run()?;
    Ok(sim)
}

/// The issue's two-record trace (times 0 and 1 s).
#[test]
fn issue_trace_at_extreme_intensities() {
    let path = tmp("two.trace", "0.0 0 4096 4096 0\n1.0 0 4096 4096 1\n");
    let e = trace_run(&path, 1e-18).err().expect("1e-18 must fail");
    assert!(matches!(*e, SimError::Config { .. }), "{e}");
    let msg = e.to_string();
    for w in [
        "`intensity`",
        "record #2",
        "two.trace",
        "1e-18",
        "548 years",
    ] {
        assert!(msg.contains(w), "`{msg}` lacks `{w}`");
    }
    // 1e-9: the second request (at 1 ms: this format counts milliseconds)
    // arrives 11.6 days later; two rows.
    let sim = trace_run(&path, 1e-9).unwrap();
    let r = &sim.metrics.records;
    assert_eq!(r.arrival.to_vec(), vec![0, 1_000_000 * NS_PER_S]);
    assert!((0..2).all(|i| r.complete[i] > r.arrival[i]));
    assert_eq!(sim.metrics.seconds.len(), 2);
    for bad in [f64::NAN, f64::INFINITY, 0.0, -1.0] {
        let e = trace_run(&path, bad).err().expect("must fail").to_string();
        assert!(e.contains("config key `intensity`"), "{bad}: {e}");
    }
}

/// Random record times (up to 2^63 ns) at random intensities from 10^-20
/// to 10^20 plus the subnormal and huge ends, on a small device with the
/// oracle on: a run either fails naming `intensity` exactly when some
/// scaled time is beyond MAX_ARRIVAL, or delivers every record at its
/// scaled time (made monotonic), with no completion before its arrival.
#[test]
fn property_intensity_never_wraps() {
    let mut rng = Rng::new(9);
    let cfg = small_ssd(&[]);
    let cap = cfg.logical_bytes();
    let (mut ok, mut refused) = (0, 0);
    for case in 0..300 {
        let intensity = match rng.below(6) {
            0 => 5e-324,
            1 => f64::MAX,
            _ => 10f64.powf(rng.f64() * 40.0 - 20.0),
        };
        let n = 1 + rng.below(12) as usize;
        let top = 1u64 << rng.below(64);
        let mut ts: Vec<Ns> = (0..n).map(|_| rng.below(top)).collect();
        ts.sort_unstable();
        let recs: Vec<_> = ts
            .iter()
            .map(|&t| rec(t, Op::Write, 4096 * rng.below(cap / 4096), 4096))
            .collect();
        let wl = Replay::new(Box::new(recs.into_iter()), intensity, cap, None, "r".into());
        let opts = RunOptions {
            check: true,
            ..RunOptions::default()
        };
        let mut sim = Simulation::new(cfg.clone(), Box::new(wl), opts).unwrap();
        let scaled: Vec<Option<Ns>> = ts.iter().map(|&t| scale_time(t, intensity)).collect();
        match sim.run() {
            Err(e) => {
                let first_bad = scaled.iter().position(Option::is_none);
                let k = first_bad.unwrap_or_else(|| panic!("case {case}: {e}"));
                let m = e.to_string();
                assert!(m.contains("`intensity`"), "{m}");
                assert!(m.contains(&format!("record #{}", k + 1)), "{m}");
                let exact = ts[k] as f64 / intensity;
                assert!(
                    exact > MAX_ARRIVAL as f64 * (1.0 - 1e-12),
                    "case {case}: {m}"
                );
                refused += 1;
            }
            Ok(()) => {
                assert!(scaled.iter().all(Option::is_some), "case {case}");
                let r = &sim.metrics.records;
                let mut want: Vec<Ns> = scaled.into_iter().flatten().collect();
                for (&t, &i) in want.iter().zip(&ts) {
                    let exact = i as f64 / intensity;
                    assert!(
                        (t as f64 - exact).abs() <= 0.5 + exact * 1e-15,
                        "case {case}"
                    );
                }
                want.sort_unstable(); // they were already in order
                let mut got = r.arrival.to_vec();
                got.sort_unstable();
                assert_eq!(got, want, "case {case}, intensity {intensity:e}");
                for i in 0..r.len() {
                    assert!(r.dispatch[i] >= r.arrival[i] && r.complete[i] > r.dispatch[i]);
                    assert!(r.complete[i] < MAX_ARRIVAL + (1 << 59));
                }
                ok += 1;
            }
        }
    }
    assert!(ok > 50 && refused > 50, "{ok} ran, {refused} refused");
}

/// The synthetic generator's open-loop gap saturates instead of wrapping:
/// a rate so low that a request would arrive after MAX_ARRIVAL is a
/// config error on `synthetic.iops`; one a year is fine.
#[test]
fn synthetic_iops_extremes() {
    let cfg = small_ssd(&[]);
    let cap = cfg.logical_bytes();
    let go = |spec: &str| -> SimResult<Simulation> {
        let wl = run::build_workload(&WorkloadSpec::Synthetic(spec.into()), cap, 1)?;
        let mut sim = Simulation::new(cfg.clone(), wl, RunOptions::default())?;
        sim.enable_check();
        sim.run()?;
        Ok(sim)
    };
    let e = go("iops=1e-300,n=3").err().expect("must fail").to_string();
    assert!(
        e.contains("synthetic.iops") && e.contains("request #2"),
        "{e}"
    );
    let sim = go("iops=3.17e-8,arrival=uniform,n=3").unwrap();
    assert_eq!(sim.metrics.completed(), 3);
    assert_eq!(sim.metrics.seconds.len(), 3);
    assert!(sim.now() > 2 * 365 * 86_400 * NS_PER_S);
}
