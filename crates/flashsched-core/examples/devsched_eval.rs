//! The device-scheduler evaluation of docs/devsched.md (AOS and VIOS papers'
//! experiments on the public trace samples and synthetic workloads).
//!
//! `cargo run --release --example devsched_eval -- EXPERIMENT [TRACES_DIR]`
//! with EXPERIMENT one of `aos`, `vios`, `wear`, `chips`, `prog`, or `all`;
//! prints one CSV row per run on stdout.

use std::path::{Path, PathBuf};

use flashsched_core::config::SSDSIM_PLAIN;
use flashsched_core::metrics::Summary;
use flashsched_core::run::{self, RunSpec, WorkloadSpec};

/// A workload: a trace (path, intensity) or a synthetic spec.
#[derive(Clone)]
enum Wl {
    Trace(PathBuf, f64),
    Synth(String),
}

impl Wl {
    fn name(&self) -> String {
        match self {
            Wl::Trace(p, x) => format!(
                "{}@x{x}",
                p.file_name()
                    .map(|f| f.to_string_lossy())
                    .unwrap_or_default()
            ),
            Wl::Synth(s) => s.replace(',', ";"),
        }
    }
    fn spec(&self) -> WorkloadSpec {
        match self {
            Wl::Trace(p, x) => WorkloadSpec::Trace {
                path: p.clone(),
                format: "auto".into(),
                intensity: *x,
                limit: None,
                options: Default::default(),
            },
            Wl::Synth(s) => WorkloadSpec::Synthetic(s.clone()),
        }
    }
}

fn header() {
    println!(
        "experiment,variant,device,workload,scheduler,requests,read_mean_us,write_mean_us,\
         read_p99_us,write_p99_us,interfered_reads,channel_conflicts,flp,slp_chips,slp_channels,\
         suspensions,conflict_ratio_pct,gc_erases,simulated_s"
    );
}

fn row(exp: &str, variant: &str, device: &str, wl: &Wl, s: &Summary) {
    let f = &s.flash;
    println!(
        "{exp},{variant},{device},{},{},{},{:.2},{:.2},{:.2},{:.2},{},{},{:.4},{:.4},{:.4},{},{:.2},{},{:.4}",
        wl.name(),
        s.device_sched,
        s.requests,
        s.read_latency_us.mean,
        s.write_latency_us.mean,
        s.read_latency_us.p99,
        s.write_latency_us.p99,
        f.interfered_reads,
        f.channel_conflicts,
        f.flp,
        f.slp_chips,
        f.slp_channels,
        f.suspensions,
        f.conflict_ratio_pct,
        s.gc.erases,
        s.simulated_s
    );
}

fn run_one(exp: &str, variant: &str, device: &str, ov: &[String], wl: &Wl, sched: &str) {
    let mut overrides = ov.to_vec();
    overrides.push(format!("controller.scheduler={sched}"));
    let spec = RunSpec {
        device: device.into(),
        overrides,
        workload: wl.spec(),
        seed: 1,
        keep_records: false,
    };
    match run::build(&spec).and_then(|mut sim| {
        sim.run()?;
        Ok(sim.summary())
    }) {
        Ok(s) => row(exp, variant, device, wl, &s),
        Err(e) => eprintln!("{exp} {variant} {} {sched}: {e}", wl.name()),
    }
}

fn traces(dir: &Path, x: f64) -> Vec<Wl> {
    [
        "msr/hm_0.first1000.csv",
        "msr/rsrch_0.first1000.csv",
        "msr/msr.cut.per_10k.rw_20_80.105.trace",
        "msr/msr.cut.per_10k.rw_40_60.1370.trace",
        "msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace",
        "ascii/tpcc-small.mqsim-ns.trace",
        "ascii/ssdsim-example.ns.ascii",
        "blkparse/fiu-mail-cheetah.first10000.blkparse",
    ]
    .iter()
    .map(|t| Wl::Trace(dir.join(t), x))
    .filter(|w| matches!(w, Wl::Trace(p, _) if p.is_file()))
    .collect()
}

/// AOS §IV: FIFO, PIQ, P/E suspension, AOS (and VIOS) on an SSDsim-like
/// device with the traces (intensity-scaled) and write-heavy synthetic mixes.
fn aos(dir: &Path) {
    let dev = "ssdsim-default";
    let mut wls = traces(dir, 20.0);
    wls.push(Wl::Synth(
        "read=0.3,bs=2k-16k,iops=6000,n=30000,span=2g,seed=3".into(),
    ));
    wls.push(Wl::Synth(
        "read=0.5,bs=2k-8k,iops=8000,n=30000,span=2g,seed=4".into(),
    ));
    // Without a DRAM write buffer every write holds a host queue slot until
    // programmed; AOS's architecture (Fig. 2) has a 2 MB write buffer.
    for (variant, buf) in [("nobuf", "0"), ("buf2m", "2")] {
        // `ssdsim-default` as the evaluation was measured on, before it
        // carried SSDsim's controller model (`config::SSDSIM_PLAIN`): dies
        // on their own, GC interleaved, an eager buffer.
        let mut ov: Vec<String> = SSDSIM_PLAIN.iter().map(|s| s.to_string()).collect();
        ov.push("ftl.precondition_fill=0.7".into());
        ov.push(format!("cache.mib={buf}"));
        for wl in &wls {
            for s in ["fifo", "piq", "pe-suspend", "aos", "vios"] {
                run_one("aos", variant, dev, &ov, wl, s);
            }
        }
    }
}

/// The VIOS paper's device (8 ch x 8 chips, 2 dies, 4 planes, 64 x 2 KiB
/// pages; blocks per plane cut from 2048 to 128 to keep memory small),
/// fresh (as SSDsim starts), variation model on for every scheduler.
fn vios_ov(extra: &[String]) -> Vec<String> {
    let mut v: Vec<String> = vec![
        "geometry.blocks_per_plane=128".into(),
        "variation.enabled=true".into(),
    ];
    v.extend_from_slice(extra);
    v
}

fn vios_wls(dir: &Path) -> Vec<Wl> {
    let mut wls = traces(dir, 50.0);
    wls.push(Wl::Synth(
        "read=0.2,bs=2k-32k,iops=20000,n=30000,span=4g,seed=5".into(),
    ));
    wls
}

fn vios(dir: &Path) {
    let ov = vios_ov(&["variation.wear_pe=12000".into()]);
    for wl in &vios_wls(dir) {
        for s in ["fifo", "piq", "vios"] {
            run_one("vios", "12K", "vios-128g", &ov, wl, s);
        }
    }
}

fn wear(dir: &Path) {
    for w in [6000, 9000, 12000, 15000] {
        let ov = vios_ov(&[format!("variation.wear_pe={w}")]);
        for wl in &vios_wls(dir) {
            for s in ["piq", "vios"] {
                run_one("wear", &format!("{}K", w / 1000), "vios-128g", &ov, wl, s);
            }
        }
    }
}

fn chips(dir: &Path) {
    for cpc in [8, 7, 6, 5, 4] {
        let ov = vios_ov(&[
            "variation.wear_pe=12000".into(),
            format!("geometry.chips_per_channel={cpc}"),
        ]);
        for wl in &vios_wls(dir) {
            for s in ["piq", "vios"] {
                run_one("chips", &format!("{}", cpc * 8), "vios-128g", &ov, wl, s);
            }
        }
    }
}

fn prog(dir: &Path) {
    for us in (200..=550).step_by(50) {
        let ov = vios_ov(&[
            "variation.wear_pe=12000".into(),
            format!("timing.program_us={us}"),
        ]);
        for wl in &vios_wls(dir) {
            for s in ["piq", "vios"] {
                run_one("prog", &format!("{us}"), "vios-128g", &ov, wl, s);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let exp = args.get(1).map(String::as_str).unwrap_or("all");
    let dir = PathBuf::from(
        args.get(2)
            .cloned()
            .unwrap_or_else(|| "../shared/traces".into()),
    );
    header();
    let all = exp == "all";
    if all || exp == "aos" {
        aos(&dir);
    }
    if all || exp == "vios" {
        vios(&dir);
    }
    if all || exp == "wear" {
        wear(&dir);
    }
    if all || exp == "chips" {
        chips(&dir);
    }
    if all || exp == "prog" {
        prog(&dir);
    }
}
