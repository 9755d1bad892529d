//! Histogram of per-block program latency (tPROG) at each wear stage of
//! the process-variation model (docs/variation.md): `cargo run --release
//! --example tprog_hist [BLOCKS] [PROGRAM_US]`. Default: 65 536 blocks (the
//! VIOS reproduction's device) at 600 µs nominal, the VIOS stages 6K, 9K,
//! 12K and 15K P/E, seed 1. Prints a markdown table: one row per 30 µs bin,
//! one column per stage (share of blocks, %), then mean and p5/p50/p95.

use flashsched_core::flash::variation::Variation;
use flashsched_core::flash::VariationConfig;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let blocks: u32 = args
        .next()
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(65_536);
    let program_us: f64 = args.next().map(|s| s.parse()).transpose()?.unwrap_or(600.0);
    let nominal = (program_us * 1000.0).round() as u64;
    let stages = [6_000u32, 9_000, 12_000, 15_000];
    let zeros = vec![0u32; blocks as usize];
    let mut lat: Vec<Vec<f64>> = Vec::new();
    for &pe in &stages {
        let cfg = VariationConfig {
            enabled: true,
            wear_pe: pe,
            ..VariationConfig::default()
        };
        cfg.validate()?;
        let v = Variation::new(&cfg, blocks, &zeros, 1);
        let mut us: Vec<f64> = (0..blocks)
            .map(|b| v.program_ns(b, nominal) as f64 / 1000.0)
            .collect();
        us.sort_by(f64::total_cmp);
        lat.push(us);
    }
    let bin = 30.0;
    let lo = (lat.iter().map(|v| v[0]).fold(f64::MAX, f64::min) / bin).floor() * bin;
    let hi = lat.iter().map(|v| v[v.len() - 1]).fold(0.0, f64::max);
    print!("| tPROG (µs) |");
    for pe in stages {
        print!(" {}K P/E |", pe / 1000);
    }
    println!("\n|---|{}", "---|".repeat(stages.len()));
    let mut b = lo;
    while b <= hi {
        print!("| {b:.0}–{:.0} |", b + bin);
        for v in &lat {
            let n = v.iter().filter(|&&x| x >= b && x < b + bin).count();
            print!(" {:.1} |", 100.0 * n as f64 / v.len() as f64);
        }
        println!();
        b += bin;
    }
    let q = |v: &[f64], p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    print!("| mean |");
    for v in &lat {
        print!(" {:.0} |", v.iter().sum::<f64>() / v.len() as f64);
    }
    print!("\n| p5 / p50 / p95 |");
    for v in &lat {
        print!(
            " {:.0} / {:.0} / {:.0} |",
            q(v, 0.05),
            q(v, 0.5),
            q(v, 0.95)
        );
    }
    println!();
    Ok(())
}
