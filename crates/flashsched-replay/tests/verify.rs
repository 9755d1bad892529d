//! `verify` on real I/O: long mixed runs pass; a corrupted block and a
//! lost write (a block rolled back to an older version) are both caught,
//! naming the request and the block.

mod common;

use std::fs::OpenOptions;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::time::Duration;

use common::*;
use flashsched_core::run::WorkloadSpec;
use flashsched_core::workload::trace::TraceOptions;
use flashsched_replay::buf::AlignedBuf;
use flashsched_replay::{Replay, ReplayError};

const MIB: u64 = 1 << 20;

#[test]
fn long_mixed_runs_verify_clean() {
    if !uring() {
        return;
    }
    let s = Scratch::new("verify-long");
    for sched in ["noop", "amphibian", "bfq"] {
        let mut sp = spec(
            &s.path("v.bin"),
            0,
            32 * MIB,
            "read=0.5,bs=4k-64k,qd=32,n=25000",
        );
        sp.overrides = vec![format!("host.scheduler={sched}")];
        sp.verify = true;
        let mut r = Replay::new(sp).unwrap();
        r.run().unwrap_or_else(|e| panic!("{sched}: {e}"));
        let v = &r.summary()["replay"]["verify"];
        assert!(v["blocks_checked"].as_u64().unwrap() > 100_000, "{v}");
    }
}

/// Read (O_DIRECT) or overwrite one 4 KiB block of `path` behind the
/// replay's back.
fn block_io(path: &Path, off: u64, data: Option<&[u8]>) -> Vec<u8> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_DIRECT)
        .open(path)
        .unwrap();
    let mut b = AlignedBuf::new(4096, 4096).unwrap();
    match data {
        Some(d) => {
            b.as_mut_slice().copy_from_slice(d);
            f.write_all_at(b.as_slice(), off).unwrap();
        }
        None => f.read_exact_at(b.as_mut_slice(), off).unwrap(),
    }
    b.as_slice().to_vec()
}

/// An MSR trace: 64 writes of 4 KiB over the first 256 KiB, then (half a
/// second later) 64 reads of the same blocks.
fn write_then_read_trace(path: &Path) {
    let mut t = String::new();
    let t0 = 128_166_385_295_514_663u64; // 100 ns ticks
    for k in 0..64u64 {
        t += &format!("{},h,0,Write,{},4096,1\n", t0 + k * 100, k * 4096);
    }
    for k in 0..64u64 {
        t += &format!(
            "{},h,0,Read,{},4096,1\n",
            t0 + 5_000_000 + k * 100,
            k * 4096
        );
    }
    std::fs::write(path, t).unwrap();
}

/// Run the trace with `tamper` applied once all writes have completed.
fn run_with_tamper(name: &str, tamper: impl Fn(&Path)) -> ReplayError {
    let s = Scratch::new(name);
    let (trace, target) = (s.path("wr.csv"), s.path("t.bin"));
    write_then_read_trace(&trace);
    let mut sp = spec(&target, 0, 4 * MIB, "");
    sp.workload = WorkloadSpec::Trace {
        path: trace,
        format: "msr".into(),
        intensity: 1.0,
        limit: None,
        options: TraceOptions::default(),
    };
    sp.verify = true;
    let mut r = Replay::new(sp).unwrap();
    let mut tampered = false;
    loop {
        match r.advance(Duration::from_millis(2)) {
            Ok(true) => panic!("{name}: the tampered block was not detected"),
            Ok(false) => {}
            Err(e) => return e,
        }
        if !tampered && r.progress().0 >= 64 {
            tamper(&target);
            tampered = true;
        }
    }
}

#[test]
fn a_corrupted_block_is_caught_naming_the_request() {
    if !uring() {
        return;
    }
    let e = run_with_tamper("verify-corrupt", |p| {
        let mut b = block_io(p, 5 * 4096, None);
        b[1000] ^= 0xff;
        block_io(p, 5 * 4096, Some(&b));
    });
    let m = e.to_string();
    assert!(matches!(e, ReplayError::Verify(_)), "{m}");
    assert!(m.contains("read of 4096 bytes at offset 20480"), "{m}");
    assert!(
        m.contains("block 5 ") && m.contains("corrupt payload"),
        "{m}"
    );
}

#[test]
fn a_lost_write_is_caught_as_a_stale_version() {
    if !uring() {
        return;
    }
    // Block 9 after the fill (version 1) put back over the trace's write
    // (version 2): as if the device had dropped that write.
    let e = run_with_tamper("verify-stale", |p| {
        let s = Scratch::new("verify-stale-src");
        let mut sp = spec(&s.path("fresh.bin"), 0, 4 * MIB, "read=1,bs=4k,qd=1,n=1");
        sp.verify = true;
        Replay::new(sp).unwrap().run().unwrap();
        let old = block_io(&s.path("fresh.bin"), 9 * 4096, None);
        block_io(p, 9 * 4096, Some(&old));
    });
    let m = e.to_string();
    assert!(matches!(e, ReplayError::Verify(_)), "{m}");
    assert!(
        m.contains("offset 36864") && m.contains("stale version 1; expected version 2"),
        "{m}"
    );
}
