//! The integration tests in one binary: each file under `tests/` is a
//! module here (linking one test binary instead of one per file takes
//! `cargo test --release` from ~7 to ~1 min after a core change).
//! Separate binaries (`[[test]]` in Cargo.toml): `memory_estimate` (its
//! counting global allocator must see only its own tests), `golden` (CI
//! runs it alone with debug assertions) and `soak_modes` (long, run by
//! `scripts/soak_modes.sh`). Run one file's tests with
//! `cargo test --release --test suite FILE::`.

mod common;

#[path = "array.rs"]
mod array;
#[path = "bad_input.rs"]
mod bad_input;
#[path = "buffered_latency.rs"]
mod buffered_latency;
#[path = "channel_dispatch.rs"]
mod channel_dispatch;
#[path = "check.rs"]
mod check;
#[path = "command_cycles.rs"]
mod command_cycles;
#[path = "controller.rs"]
mod controller;
#[path = "device_sched.rs"]
mod device_sched;
#[path = "front_end.rs"]
mod front_end;
#[path = "frontiers.rs"]
mod frontiers;
#[path = "fuzz_props.rs"]
mod fuzz_props;
#[path = "gc_aware_worked.rs"]
mod gc_aware_worked;
#[path = "gc_jobs.rs"]
mod gc_jobs;
#[path = "gc_modes.rs"]
mod gc_modes;
#[path = "gc_write_floor.rs"]
mod gc_write_floor;
#[path = "host_sched.rs"]
mod host_sched;
#[path = "hot_cold.rs"]
mod hot_cold;
#[path = "intensity.rs"]
mod intensity;
#[path = "long_idle.rs"]
mod long_idle;
#[path = "mapping_cache.rs"]
mod mapping_cache;
#[path = "sector_transfers.rs"]
mod sector_transfers;
#[path = "sim.rs"]
mod sim;
#[path = "trace_formats.rs"]
mod trace_formats;
#[path = "trace_golden.rs"]
mod trace_golden;
#[path = "trace_input.rs"]
mod trace_input;
#[path = "traces.rs"]
mod traces;
#[path = "update_reads.rs"]
mod update_reads;

/// `autotests = false` means a new file under `tests/` runs only once it is
/// listed here or as a `[[test]]` in Cargo.toml: fail until it is.
#[test]
fn every_test_file_is_built() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let suite = std::fs::read_to_string(dir.join("tests/suite.rs")).expect("tests/suite.rs");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
    let mut missing = vec![];
    for entry in std::fs::read_dir(dir.join("tests")).expect("tests/") {
        let name = entry.expect("tests/ entry").file_name();
        let name = name.to_string_lossy();
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        let in_suite = suite.contains(&format!("#[path = \"{name}\"]\nmod {stem};"));
        let own = manifest.contains(&format!("path = \"tests/{name}\""));
        if stem != "suite" && !in_suite && !own {
            missing.push(name.into_owned());
        }
    }
    assert!(
        missing.is_empty(),
        "{missing:?}: add to tests/suite.rs (or a [[test]] in Cargo.toml)"
    );
}
