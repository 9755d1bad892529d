//! `controller.dispatch`: when an idle chip is offered work. Worked
//! examples computed by hand on one channel, with the version oracle on.

use flashsched_core::config::DeviceConfig;
use flashsched_core::io::Op;

use crate::common;
use common::{completions_us, rec, run_checked};

const US: u64 = 1_000;
const PAGE: u32 = 4096;

/// One channel of `chips` one-die, one-plane chips; reads 50 µs, programs
/// 200 µs, a page crosses the bus in 10 µs (4096 B at 409.6 MB/s), no
/// command overhead, no cache. Static CWDP striping: LPN i is on chip
/// i mod `chips`.
fn one_channel(chips: u32, extra: &[&str]) -> DeviceConfig {
    let chips = format!("geometry.chips_per_channel={chips}");
    let mut ov: Vec<String> = [
        "geometry.channels=1",
        chips.as_str(),
        "geometry.dies_per_chip=1",
        "geometry.planes_per_die=1",
        "geometry.blocks_per_plane=16",
        "geometry.pages_per_block=16",
        "geometry.page_size=4096",
        "timing.read_us=50",
        "timing.program_us=200",
        "timing.channel_mb_s=409.6",
        "timing.command_us=0",
        "ftl.overprovisioning=0.25",
        "ftl.allocation=static:CWDP",
        "host.queue_depth=32",
        "host.max_merge_kib=0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    ov.extend(extra.iter().map(|s| s.to_string()));
    DeviceConfig::load("default", &ov).unwrap()
}

fn lpn(i: u64) -> u64 {
    i * PAGE as u64
}

/// Three chips A, B, C. At 0 a read of LPN 0 and a write of LPN 3 arrive
/// for chip A; a read of LPN 1 arrives for chip B at 5 µs, one of LPN 2
/// for chip C at 15 µs. The reads sense at once: A 0–50, B 5–55, C 15–65;
/// A's data-out runs 50–60 and B's, waiting since 55, 60–70.
///
/// Chip A frees at 60 with the write queued.
/// - `unit-free`: the write is issued at 60 and its data-in queues behind
///   B's data-out: 70–80, tPROG 80–280. C's data-out, asked for at 65,
///   comes after it: 80–90.
/// - `channel-idle` (MQSim): at 60 the bus is busy (B's data-out), so A
///   waits; at 70 C's data-out has been waiting since 65 and goes first
///   (70–80); at 80 the bus is idle with nothing waiting and the write is
///   issued: data-in 80–90, tPROG 90–290.
///
/// Completions in LPN order (reads 0, 1, 2, then the write of 3).
#[test]
fn a_waiting_data_out_goes_before_a_new_command() {
    let reqs = || {
        vec![
            rec(0, Op::Read, lpn(0), PAGE),
            rec(0, Op::Write, lpn(3), PAGE),
            rec(5 * US, Op::Read, lpn(1), PAGE),
            rec(15 * US, Op::Read, lpn(2), PAGE),
        ]
    };
    let sim = run_checked(one_channel(3, &[]), reqs());
    assert_eq!(completions_us(&sim), [60.0, 70.0, 90.0, 280.0]);
    for extra in [
        &["controller.dispatch=channel-idle"][..],
        &[
            "controller.dispatch=channel-idle",
            "controller.scheduler=mqsim-priority",
            "controller.busy_unit=chip",
        ],
    ] {
        let sim = run_checked(one_channel(3, extra), reqs());
        assert_eq!(completions_us(&sim), [60.0, 70.0, 80.0, 290.0], "{extra:?}");
    }
}

/// Two chips A and B, two reads each, all arriving at 0 (LPNs 0 and 2 on
/// A, 1 and 3 on B). Both sense 0–50; A's data-out runs 50–60, B's 60–70.
/// - `unit-free`: A starts its second read as it frees at 60 (sense
///   60–110, out 110–120) and B at 70 (70–120, out 120–130): the second
///   senses overlap the first transfers.
/// - `channel-idle`: A frees at 60 while B's data-out holds the bus, so it
///   waits for 70; then both chips are offered work at that idle instant
///   (a read's command takes no bus time) and sense together, 70–120, and
///   their data-outs follow in turn: 120–130, 130–140. The chips of a
///   channel fall into step (sense together, transfer in turn), which is
///   why MQSim's sequential reads wait longer than the bus alone explains.
#[test]
fn chips_of_a_channel_fall_into_step() {
    let reqs = || (0..4).map(|i| rec(0, Op::Read, lpn(i), PAGE)).collect();
    let sim = run_checked(one_channel(2, &[]), reqs());
    assert_eq!(completions_us(&sim), [60.0, 70.0, 120.0, 130.0]);
    let sim = run_checked(
        one_channel(2, &["controller.dispatch=channel-idle"]),
        reqs(),
    );
    assert_eq!(completions_us(&sim), [60.0, 70.0, 130.0, 140.0]);
}

/// A misspelt value is an error naming the key.
#[test]
fn a_bad_dispatch_value_names_the_key() {
    let e = DeviceConfig::load("default", &["controller.dispatch=bus-idle".to_string()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("dispatch"), "{e}");
}

/// End to end on a small `mqsim-default` (which dispatches at channel-idle
/// instants) under a random mix, with the version oracle on: every request
/// completes, in time bounded by the work queued ahead of it, and the hint
/// checks change nothing. (A wake-up set in the past once left chips
/// unserved until the end of time.)
#[test]
fn a_random_mix_completes_under_channel_idle_dispatch() {
    use flashsched_core::sim::{RunOptions, Simulation};
    use flashsched_core::workload::synthetic::SyntheticSpec;
    let run = |verify_hints: bool| {
        let ov: Vec<String> = [
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.blocks_per_plane=64",
            "cache.mib=4",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let cfg = DeviceConfig::load("mqsim-default", &ov).unwrap();
        let wl = SyntheticSpec::parse("read=0.7,bs=4k-16k,pattern=random,qd=16,n=5000,seed=3")
            .unwrap()
            .build(cfg.logical_bytes(), 3)
            .unwrap();
        let opts = RunOptions {
            check: true,
            verify_hints,
            ..RunOptions::default()
        };
        let mut sim = Simulation::new(cfg, wl, opts).unwrap();
        sim.run().unwrap();
        sim.summary()
    };
    let s = run(false);
    assert_eq!(s.requests, 5000);
    // 16 requests of at most two 8 KiB pages each ahead on 8 dies: far
    // below 100 ms even if every one waited for a program.
    assert!(s.latency_us.max < 100_000.0, "max {} µs", s.latency_us.max);
    let v = run(true);
    assert_eq!(
        (s.latency_us.mean, s.latency_us.max),
        (v.latency_us.mean, v.latency_us.max)
    );
}
