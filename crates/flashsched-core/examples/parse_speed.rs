//! Trace-parsing throughput on a file: `cargo run --release --example
//! parse_speed -- FILE [FORMAT]`. Prints lines, records, seconds, lines/s.

use std::path::PathBuf;
use std::time::Instant;

use flashsched_core::workload::trace::{open_trace, TraceFormat};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().ok_or("usage: parse_speed FILE [FORMAT]")?);
    let format = TraceFormat::from_name(&args.next().unwrap_or_else(|| "auto".into()))?;
    let t0 = Instant::now();
    let mut reader = open_trace(&path, format)?;
    let (mut records, mut bytes) = (0u64, 0u64);
    for r in reader.by_ref() {
        let r = r?;
        records += 1;
        bytes = bytes.wrapping_add(u64::from(r.size) ^ r.offset ^ r.time_ns);
    }
    let s = t0.elapsed().as_secs_f64();
    let lines = reader.line();
    println!(
        "{} {}: {lines} lines, {records} records, {} skipped, {s:.3} s, {:.2} M lines/s (check {bytes:x})",
        path.display(),
        reader.format(),
        reader.skipped(),
        lines as f64 / s / 1e6
    );
    Ok(())
}
