//! Golden results: the full summary of a set of runs covering every host and
//! device scheduler, GC policies, copyback, the write buffer, dynamic
//! allocation and process variation must stay byte-identical across
//! performance work. A change that alters results on purpose re-blesses the
//! files: `FLASHSCHED_BLESS=1 cargo test --release --test golden` (and says
//! why in its commit).

use std::path::PathBuf;

use flashsched_core::array::network::LinkConfig;
use flashsched_core::array::{ArrayConfig, ArraySim, ArrayWorkload, Layout};
use flashsched_core::config::SSDSIM_PLAIN;
use flashsched_core::engine::NS_PER_MS;
use flashsched_core::run::{self, RunSpec, WorkloadSpec};

mod common;
use common::small_ssd;

/// `mqsim-default` gained MQSim's controller model (host interface, DRAM
/// cache, chip-level busy, multi-plane, its transaction scheduler,
/// preemptive GC, then its 512-request fetch size and sector transfers,
/// then dispatch at channel-idle instants and its GC write floor, then
/// RGA victims and up to 10 GC jobs per plane, then its update reads,
/// then its command cycles, bus byte time, PCIe packets, NVMe messages and
/// queued page offsets for multi-plane programs, then its eager write
/// frontiers with one for translation pages);
/// the cases recorded before it keep their results with these overrides,
/// and the `mqsim_full_*` cases record the full model.
const LEGACY: &[&str] = &[
    "host.queue_depth=64",
    "timing.sector_transfers=false",
    "interface.kind=none",
    "cache.mib=0",
    "controller.busy_unit=die",
    "controller.multiplane=off",
    "controller.scheduler=fifo",
    "ftl.gc_mode=interleaved",
    "mapping.cmt_kib=0",
    "ftl.gc_policy=greedy",
    "ftl.gc_move_window=1",
    "controller.dispatch=unit-free",
    "ftl.update_reads=off",
    "ftl.gc_write_floor=0",
    "ftl.gc_jobs_per_plane=1",
    "timing.channel_mb_s=333",
    "timing.read_command_ns=0",
    "timing.read_command_plane_ns=0",
    "timing.program_command_ns=0",
    "timing.program_command_plane_ns=0",
    "timing.erase_command_ns=0",
    "timing.erase_command_plane_ns=0",
    "interface.nvme_messages=false",
    "interface.tlp_payload_bytes=0",
    "ftl.frontiers=lazy",
    "ftl.mapping_frontier=false",
];

const CASES: &[(&str, &str, &str, &[&str])] = &[
    (
        "ssdsim_noop_fifo",
        "ssdsim-default",
        "read=0.7,bs=4k-16k,iops=5000,n=20000",
        &[],
    ),
    (
        "mqsim_trace",
        "mqsim-default",
        "read=0.7,bs=4k-16k,iops=20000,span=16g,n=20000",
        &[],
    ),
    (
        "mqsim_full_features",
        "mqsim-default",
        "read=0.7,bs=4k-16k,iops=20000,span=16g,n=20000",
        &[],
    ),
    (
        "ssdsim_full_features",
        "ssdsim-default",
        "read=0.6,bs=2k-16k,iops=1000,n=20000",
        &["ftl.precondition_fill=0.8"],
    ),
    (
        "mqsim_full_gc",
        "mqsim-default",
        "read=0.3,bs=8k,pattern=random,qd=64,n=20000",
        &[
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.blocks_per_plane=32",
            "ftl.precondition_fill=0.9",
            "cache.mib=16",
            // 32-block planes 90 % full cannot keep MQSim's 10 free blocks.
            "ftl.gc_write_floor=0",
        ],
    ),
    (
        "gc_heavy_writes",
        "mqsim-default",
        "read=0,bs=8k,pattern=random,qd=64,n=20000",
        &[
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.blocks_per_plane=32",
            "ftl.precondition_fill=0.9",
        ],
    ),
    (
        "aos_mixed",
        "mqsim-default",
        "read=0.3,bs=4k-64k,pattern=random,qd=32,n=20000",
        &[
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.blocks_per_plane=32",
            "ftl.precondition_fill=0.85",
            "controller.scheduler=aos",
        ],
    ),
    (
        "piq_deadline",
        "mqsim-default",
        "read=0.5,bs=4k-32k,pattern=random,qd=32,n=20000",
        &[
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.blocks_per_plane=32",
            "ftl.precondition_fill=0.85",
            "controller.scheduler=piq",
            "host.scheduler=deadline",
        ],
    ),
    (
        "suspend_cfq",
        "mqsim-default",
        "read=0.5,bs=4k-32k,pattern=random,qd=32,n=20000",
        &[
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.blocks_per_plane=32",
            "ftl.precondition_fill=0.85",
            "controller.scheduler=pe-suspend",
            "host.scheduler=cfq",
        ],
    ),
    (
        "vios_amphibian",
        "vios-128g",
        "read=0.5,bs=4k-32k,pattern=random,qd=32,n=20000",
        &[
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.blocks_per_plane=32",
            "ftl.precondition_fill=0.85",
            "controller.scheduler=vios",
            "host.scheduler=amphibian",
        ],
    ),
    (
        "buffer_kyber_costbenefit",
        "default",
        "read=0.5,bs=4k-32k,pattern=random,qd=32,n=20000",
        &[
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.blocks_per_plane=32",
            "ftl.precondition_fill=0.85",
            "cache.mib=2",
            "host.scheduler=kyber",
            "ftl.gc_policy=cost-benefit",
        ],
    ),
    (
        "copyback_bfq_fifo_variation",
        "default",
        "read=0.5,bs=4k-32k,iops=30000,n=20000",
        &[
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.blocks_per_plane=32",
            "ftl.precondition_fill=0.85",
            "ftl.copyback=true",
            "host.scheduler=bfq",
            "ftl.gc_policy=fifo",
            "variation.enabled=true",
        ],
    ),
    (
        "dynamic_pardispatcher",
        "ssdsim-default",
        "read=0.6,bs=2k-16k,iops=3000,n=20000",
        &[
            "host.scheduler=pardispatcher",
            "ftl.allocation=dynamic",
            "ftl.gc_move_window=0",
        ],
    ),
];

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// `ssdsim-default` gained SSDsim's controller model (chip-level busy with
/// interleaving and two-plane commands, in-order FCFS with reads first,
/// chip-blocking GC, its LRU write buffer, writes acknowledged at data-in,
/// then its sector buffer, sector transfers, lone reads and overlapped
/// data-ins); the cases recorded before it keep their results with
/// [`SSDSIM_PLAIN`], and the `ssdsim_full_*` cases record the full model.
const SSDSIM_LEGACY: &[&str] = SSDSIM_PLAIN;

fn legacy(name: &str, device: &str) -> &'static [&'static str] {
    match device {
        "mqsim-default" if !name.starts_with("mqsim_full") => LEGACY,
        "ssdsim-default" if !name.starts_with("ssdsim_full") => SSDSIM_LEGACY,
        _ => &[],
    }
}

/// Compare `got` with golden file `name`.json (or write it when blessing).
fn check(name: &str, got: &str, bless: bool, failures: &mut Vec<String>) {
    let path = golden_dir().join(format!("{name}.json"));
    if bless {
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (bless with FLASHSCHED_BLESS=1)", path.display()));
    if got != want {
        let line = got
            .lines()
            .zip(want.lines())
            .find(|(g, w)| g != w)
            .map(|(g, w)| format!("got `{}`, golden `{}`", g.trim(), w.trim()))
            .unwrap_or_else(|| "lengths differ".into());
        failures.push(format!("{name}: {line}"));
    }
}

/// Arrays: layout, network link, host scheduler, transaction scheduler.
const ARRAY_CASES: &[(&str, &str, Option<&str>, &str, &str)] = &[
    ("array_raid5_cfq", "raid5", None, "cfq", "fifo"),
    (
        "array_serial_link_deadline_aos",
        "serial",
        Some("10gbe"),
        "deadline",
        "aos",
    ),
    (
        "array_raid0_amphibian_vios",
        "raid0",
        None,
        "amphibian",
        "vios",
    ),
];

#[test]
fn array_results_match_golden_files() {
    let bless = std::env::var_os("FLASHSCHED_BLESS").is_some();
    let mut failures = Vec::new();
    for &(name, layout, link, host, dev) in ARRAY_CASES {
        let host = format!("host.scheduler={host}");
        let dev = format!("controller.scheduler={dev}");
        let cfg = ArrayConfig {
            layout: Layout::parse(layout).unwrap(),
            ssds: 4,
            queue_depth: 64,
            link: link.map(|l| LinkConfig::parse(l).unwrap()),
            bin_ns: 100 * NS_PER_MS,
            seed: 7,
            keep_records: false,
        };
        let wl = ArrayWorkload::Phases(vec![
            "read=0.5,bs=4k-64k,pattern=random,qd=64,n=20000".to_string()
        ]);
        let mut sim = ArraySim::new(cfg, small_ssd(&[&host, &dev]), &wl).unwrap();
        sim.run().unwrap();
        let mut v = serde_json::to_value(sim.summary()).unwrap();
        // Wall-clock fields vary run to run.
        for key in ["wall_s", "requests_per_wall_s"] {
            if let Some(x) = v.get_mut(key) {
                *x = serde_json::json!(0.0);
            }
        }
        let got = serde_json::to_string_pretty(&v).unwrap() + "\n";
        check(name, &got, bless, &mut failures);
    }
    assert!(
        failures.is_empty(),
        "results changed (bless with FLASHSCHED_BLESS=1 if intended):\n{}",
        failures.join("\n")
    );
}

#[test]
fn results_match_golden_files() {
    let bless = std::env::var_os("FLASHSCHED_BLESS").is_some();
    let mut failures = Vec::new();
    for &(name, device, spec, overrides) in CASES {
        let run_spec = RunSpec {
            device: device.into(),
            overrides: legacy(name, device)
                .iter()
                .chain(overrides)
                .map(|s| s.to_string())
                .collect(),
            workload: WorkloadSpec::Synthetic(spec.into()),
            seed: 7,
            keep_records: false,
        };
        let mut sim = run::build(&run_spec).unwrap();
        sim.run().unwrap();
        let got = sim.summary().to_json(true);
        check(name, &got, bless, &mut failures);
    }
    assert!(
        failures.is_empty(),
        "results changed (bless with FLASHSCHED_BLESS=1 if intended):\n{}",
        failures.join("\n")
    );
}
