//! Criterion benchmarks of the core: the event queue, the FTL write path and
//! a small end-to-end simulation. `cargo bench -p flashsched-core`.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use flashsched_core::config::DeviceConfig;
use flashsched_core::engine::EventQueue;
use flashsched_core::ftl::{Ftl, Stream};
use flashsched_core::rng::Rng;
use flashsched_core::run::{self, RunSpec, WorkloadSpec};

fn event_queue(c: &mut Criterion) {
    let mut g = c.benchmark_group("engine");
    let n = 100_000u64;
    g.throughput(Throughput::Elements(n));
    g.bench_function("push_pop_100k", |b| {
        let mut rng = Rng::new(1);
        let times: Vec<u64> = (0..n).map(|_| rng.below(1_000_000_000)).collect();
        b.iter(|| {
            let mut q = EventQueue::new();
            for (i, &t) in times.iter().enumerate() {
                q.push(t, i as u32);
            }
            let mut s = 0u64;
            while let Some((t, _)) = q.pop() {
                s = s.wrapping_add(t);
            }
            black_box(s)
        })
    });
    // The simulator's pattern ("hold" model): ~70 pending events (one per
    // busy die and bus), each pop followed by a push a flash delay later:
    // transfers, reads, programs, erases.
    let ops = 1_000_000u64;
    g.throughput(Throughput::Elements(ops));
    g.bench_function("hold_70_flash_delays_1m", |b| {
        let mut rng = Rng::new(2);
        let delays: Vec<u64> = (0..4096)
            .map(|_| match rng.below(10) {
                0..=3 => 20_000 + rng.below(5_000),
                4..=6 => 60_000,
                7..=8 => 600_000 + rng.below(600_000),
                _ => 3_500_000,
            })
            .collect();
        b.iter(|| {
            let mut q = EventQueue::new();
            for i in 0..70u32 {
                q.push(delays[i as usize], i);
            }
            let mut s = 0u64;
            for k in 0..ops as usize {
                let (t, e) = q.pop().unwrap_or_default();
                s = s.wrapping_add(e as u64);
                q.push(t + delays[k & 4095], e);
            }
            black_box(s)
        })
    });
    g.finish();
}

fn ftl_writes(c: &mut Criterion) {
    let mut g = c.benchmark_group("ftl");
    let cfg = DeviceConfig::load("ssdsim-default", &[]).unwrap();
    let n = 100_000u64;
    g.throughput(Throughput::Elements(n));
    g.bench_function("random_overwrite_100k", |b| {
        let mut ftl = Ftl::new(cfg.geometry(), &cfg.ftl, 1).unwrap();
        ftl.precondition(0.5, 1);
        let mut rng = Rng::new(2);
        let lp = ftl.logical_pages as u64;
        b.iter(|| {
            for _ in 0..n {
                let lpn = rng.below(lp) as u32;
                let plane = ftl.static_plane(lpn);
                if let Some(p) = ftl.alloc(plane, Stream::User) {
                    ftl.map_user_write(lpn, p, 0);
                } else if let Some(v) = ftl.gc_begin(plane, 0) {
                    // Functional GC to keep space available.
                    for (l, old) in ftl.valid_pages(v) {
                        let dst = ftl.alloc(plane, Stream::Gc).unwrap();
                        ftl.gc_move(l, old, dst, 0);
                    }
                    ftl.erase(v, 0).unwrap();
                }
            }
        })
    });
    g.finish();
}

fn end_to_end(c: &mut Criterion) {
    let mut g = c.benchmark_group("sim");
    g.sample_size(10);
    let n = 50_000u64;
    g.throughput(Throughput::Elements(n));
    g.bench_function("ssdsim_default_50k_random", |b| {
        b.iter(|| {
            let spec = RunSpec {
                device: "ssdsim-default".into(),
                overrides: vec![],
                workload: WorkloadSpec::Synthetic(format!("read=0.7,bs=4k-16k,iops=5000,n={n}")),
                seed: 1,
                keep_records: false,
            };
            let mut sim = run::build(&spec).unwrap();
            sim.run().unwrap();
            black_box(sim.summary().requests)
        })
    });
    g.finish();
}

criterion_group!(benches, event_queue, ftl_writes, end_to_end);
criterion_main!(benches);
