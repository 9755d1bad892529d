//! Run one workload from the command line without Python (handy for
//! profiling): `cargo run --release --example simulate -- DEVICE SPEC
//! [OVERRIDE...]`, SPEC a synthetic spec or `trace:PATH[:FORMAT]`;
//! `RECORDS=1` keeps per-request records, as `flashsched run` does.

use flashsched_core::run::{self, RunSpec, WorkloadSpec};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let device = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "ssdsim-default".into());
    let spec = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| "read=0.7,bs=4k-16k,iops=5000,n=1000000".into());
    let run_spec = RunSpec {
        device,
        overrides: args[3.min(args.len())..].to_vec(),
        workload: match spec.strip_prefix("trace:") {
            Some(t) => {
                let (path, format) = t.split_once(':').unwrap_or((t, "auto"));
                WorkloadSpec::Trace {
                    path: path.into(),
                    format: format.into(),
                    intensity: 1.0,
                    limit: None,
                    options: Default::default(),
                }
            }
            None => WorkloadSpec::Synthetic(spec),
        },
        seed: std::env::var("SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(1),
        keep_records: std::env::var("RECORDS").is_ok_and(|v| v == "1"),
    };
    let result = run::build(&run_spec).and_then(|mut sim| {
        sim.run()?;
        Ok(sim.summary())
    });
    match result {
        Ok(s) => println!("{}", s.to_json(false)),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
