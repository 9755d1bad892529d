//! `host.buffered_latency`: where the latency of a request the device
//! serves without flash starts. SSDsim admits a request from its 5-deep
//! queue with its clock set back to the request's arrival, so a request its
//! buffer serves alone is answered 1 µs after arriving however long it
//! waited; requests that wait for flash keep their queueing time. Worked
//! examples by hand on a tiny device (one chip, tR 50 µs, a 4 KiB page
//! 10 µs on the bus, a 2-page SSDsim buffer at 4096 MB/s: 1 µs per page),
//! host queue depth 1, version oracle on.

use flashsched_core::io::Op;

use crate::common;
use common::{assert_rejected_by_key, one_chip, rec, run_checked};

const US: u64 = 1_000;
const PAGE: u32 = 4096;

fn page(i: u64) -> u64 {
    i * PAGE as u64
}

/// (arrival, dispatch, complete) in µs, by arrival, then offset.
fn rows(sim: &flashsched_core::sim::Simulation) -> Vec<(f64, f64, f64)> {
    let r = &sim.metrics.records;
    let mut v: Vec<(u64, u64, u64, u64)> = (0..r.len())
        .map(|i| (r.arrival[i], r.offset[i], r.dispatch[i], r.complete[i]))
        .collect();
    v.sort();
    let us = |t: u64| t as f64 / US as f64;
    v.into_iter()
        .map(|(a, _, d, c)| (us(a), us(d), us(c)))
        .collect()
}

/// Four requests at 0 through a queue of depth 1: a read of page 5 from
/// flash (0–60 µs: sense 50, data-out 10), writes of pages 0 and 1 into the
/// buffer (60–61, 61–62) and a write of page 2 that evicts page 0 and waits
/// for its data-in (62–72). Counted from arrival the buffered writes take
/// 61 and 62 µs; SSDsim counts them from their admission: 1 µs each,
/// dispatched (as it reports) at their arrival. The read and the evicting
/// write waited for flash and keep their whole time. (Rows by offset:
/// pages 0, 1, 2, 5.)
#[test]
fn a_request_the_buffer_serves_alone_is_timed_from_its_dispatch() {
    let reqs = || {
        vec![
            rec(0, Op::Read, page(5), PAGE),
            rec(0, Op::Write, page(0), PAGE),
            rec(0, Op::Write, page(1), PAGE),
            rec(0, Op::Write, page(2), PAGE),
        ]
    };
    let base = [
        "cache.mib=0.0078125",
        "cache.policy=ssdsim-lru",
        "cache.dram_mb_s=4096",
        "controller.write_ack=data-in",
        "host.queue_depth=1",
    ];
    let sim = run_checked(one_chip(&base), reqs());
    assert_eq!(
        rows(&sim),
        [
            (0.0, 60.0, 61.0),
            (0.0, 61.0, 62.0),
            (0.0, 62.0, 72.0),
            (0.0, 0.0, 60.0)
        ]
    );
    let sim = run_checked(
        one_chip(&[&base[..], &["host.buffered_latency=from-dispatch"]].concat()),
        reqs(),
    );
    assert_eq!(
        rows(&sim),
        [
            (0.0, 0.0, 1.0),
            (0.0, 0.0, 1.0),
            (0.0, 62.0, 72.0),
            (0.0, 0.0, 60.0)
        ]
    );
    let s = sim.summary();
    assert_eq!(s.write_latency_us.mean, (1.0 + 1.0 + 72.0) / 3.0);
}

#[test]
fn a_bad_setting_is_named_by_its_key() {
    assert_rejected_by_key(&[("host.buffered_latency=from-admission", "buffered_latency")]);
}
