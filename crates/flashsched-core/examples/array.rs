//! Run an SSD array on one synthetic phase from the command line without
//! Python (for profiling the array layer):
//! `cargo run --release --example array -- LAYOUT SSDS DEVICE SPEC [KEY=VALUE...]`,
//! e.g. `raid0 16 default "read=0.3,bs=4k,iops=400000,span=64g,n=1000000"`.

use std::time::Instant;

use flashsched_core::array::{ArrayConfig, ArraySim, ArrayWorkload, Layout};
use flashsched_core::config::DeviceConfig;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.into());
    let layout = arg(1, "raid0");
    let ssds: u32 = match arg(2, "16").parse() {
        Ok(n) => n,
        Err(e) => fail(&format!("SSDS: {e}")),
    };
    let device = arg(3, "default");
    let spec = arg(4, "read=0.3,bs=4k,iops=400000,span=64g,n=1000000");
    let overrides = args[5.min(args.len())..].to_vec();
    let cfg = ArrayConfig {
        layout: Layout::parse(&layout).unwrap_or_else(|e| fail(&e.to_string())),
        ssds,
        queue_depth: 256,
        link: None,
        bin_ns: 1_000_000_000,
        seed: 42,
        keep_records: false,
    };
    let dev = DeviceConfig::load(&device, &overrides).unwrap_or_else(|e| fail(&e.to_string()));
    let t0 = Instant::now();
    let mut sim = ArraySim::new(cfg, dev, &ArrayWorkload::Phases(vec![spec]))
        .unwrap_or_else(|e| fail(&e.to_string()));
    if let Err(e) = sim.run() {
        fail(&e.to_string());
    }
    let wall = t0.elapsed().as_secs_f64();
    let n = sim.metrics.completed();
    println!(
        "{layout} x{ssds} {device}: {n} requests in {wall:.3} s = {:.0} requests/s",
        n as f64 / wall
    );
    // `SUMMARY=1`: the run's summary (wall times left out) to compare builds.
    if std::env::var_os("SUMMARY").is_some() {
        println!("{}", sim.summary().to_json(true));
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2);
}
