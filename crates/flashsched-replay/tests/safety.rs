//! Safety: no byte outside the window changes, whatever the scheduler and
//! workload; read-only replays cannot write; mounted devices are refused.

mod common;

use std::fs;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use common::*;
use flashsched_core::host::sched::names;
use flashsched_replay::buf::fill_noise;
use flashsched_replay::target::Target;
use flashsched_replay::{Replay, ReplayError, TargetSpec};

const MIB: u64 = 1 << 20;

/// A file of `guard` noise, `window` zeros, `guard` noise.
fn guarded_file(path: &Path, guard: u64, window: u64) -> Vec<u8> {
    let mut g = vec![0u8; guard as usize];
    fill_noise(&mut g, 99);
    let f = fs::File::create(path).unwrap();
    f.write_all_at(&g, 0).unwrap();
    f.set_len(guard + window).unwrap();
    f.write_all_at(&g, guard + window).unwrap();
    g
}

/// Both guards still hold exactly `g`, and the file did not grow.
fn assert_guards(path: &Path, g: &[u8], window: u64) {
    let guard = g.len() as u64;
    let f = fs::File::open(path).unwrap();
    assert_eq!(
        f.metadata().unwrap().len(),
        2 * guard + window,
        "file size changed"
    );
    let mut buf = vec![0u8; g.len()];
    f.read_exact_at(&mut buf, 0).unwrap();
    assert!(buf == g, "the guard before the window changed");
    f.read_exact_at(&mut buf, guard + window).unwrap();
    assert!(buf == g, "the guard after the window changed");
}

/// Every registered host scheduler, a random read/write mix (sizes not
/// multiples of the I/O unit, so requests are widened) and Postmark with
/// trims: the guards around the window never change, and `verify` finds
/// every read consistent.
#[test]
fn no_byte_outside_the_window_changes_under_any_scheduler() {
    if !uring() {
        return;
    }
    let s = Scratch::new("guards");
    let path = s.path("guarded.bin");
    let (guard, window) = (MIB, 8 * MIB);
    let g = guarded_file(&path, guard, window);
    let workloads = [
        "read=0.4,bs=1k-68k,align=512,qd=24,n=1500",
        "postmark:files=40,tx=150,qd=6,min=1k,max=256k,io=64k,trim=1",
    ];
    for sched in names() {
        for w in workloads {
            let mut sp = spec(&path, guard, window, w);
            sp.overrides = vec![
                format!("host.scheduler={sched}"),
                "host.queue_depth=16".into(),
            ];
            sp.verify = true;
            let mut r = Replay::new(sp).unwrap_or_else(|e| panic!("{sched} {w}: {e}"));
            r.run().unwrap_or_else(|e| panic!("{sched} {w}: {e}"));
            let sum = r.summary();
            assert!(sum["requests"].as_u64().unwrap() > 0, "{sched} {w}");
            assert!(sum["replay"]["verify"]["blocks_checked"].as_u64().unwrap() > 0);
            drop(r);
            assert_guards(&path, &g, window);
        }
    }
}

/// Without `allow_write` the target is opened read-only: the first write
/// stops the run naming it, and the file is byte-for-byte unchanged.
#[test]
fn read_only_replay_refuses_writes_and_changes_nothing() {
    if !uring() {
        return;
    }
    let s = Scratch::new("readonly");
    let path = s.path("ro.bin");
    let g = guarded_file(&path, MIB, 4 * MIB);
    let before = fs::read(&path).unwrap();
    let mut sp = spec(&path, MIB, 4 * MIB, "read=0.5,bs=4k,qd=4,n=200");
    sp.target.allow_write = false;
    let mut r = Replay::new(sp).unwrap();
    let err = r.run().unwrap_err();
    assert!(matches!(err, ReplayError::Unsafe(_)), "{err}");
    assert!(err.to_string().contains("read-only"), "{err}");
    drop(r);
    assert!(
        fs::read(&path).unwrap() == before,
        "a read-only replay changed the file"
    );
    assert_guards(&path, &g, 4 * MIB);
    // Reads alone run fine read-only.
    let mut sp = spec(&path, MIB, 4 * MIB, "read=1,bs=4k,qd=4,n=200");
    sp.target.allow_write = false;
    Replay::new(sp).unwrap().run().unwrap();
    // Verify needs writes.
    let mut sp = spec(&path, MIB, 4 * MIB, "read=1,bs=4k,qd=4,n=20");
    sp.target.allow_write = false;
    sp.verify = true;
    assert!(matches!(Replay::new(sp), Err(ReplayError::Invalid(m)) if m.contains("allow_write")));
}

fn target(path: &Path, offset: u64, size: u64, allow_write: bool) -> TargetSpec {
    TargetSpec {
        path: path.to_path_buf(),
        offset,
        size,
        allow_write,
        align: 0,
    }
}

/// Bad windows are refused with the reason before any I/O.
#[test]
fn bad_windows_are_refused() {
    let s = Scratch::new("windows");
    let path = s.path("w.bin");
    fs::write(&path, vec![1u8; MIB as usize]).unwrap();
    let err = |t: TargetSpec| {
        Target::open(&t)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    };
    assert!(err(target(&path, 0, 2 * MIB, false)).contains("ends past the end"));
    assert!(err(target(&path, 100, 4096, true)).contains("multiples"));
    assert!(err(target(&s.path("absent.bin"), 0, 0, true)).contains("give a size"));
    assert!(err(target(&s.0, 0, 4096, false)).contains("not a regular file"));
    // A created file is preallocated to the window's end.
    let t = Target::open(&target(&s.path("new.bin"), 8192, MIB, true)).unwrap();
    assert!(t.info.created);
    assert_eq!(fs::metadata(s.path("new.bin")).unwrap().len(), 8192 + MIB);
}

/// The block device holding `/` (mounted) is refused for writing: before
/// anything is opened for writing.
#[test]
fn a_mounted_block_device_is_refused() {
    let mi = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    let root = mi.lines().find_map(|l| {
        let f: Vec<&str> = l.split(' ').collect();
        let sep = f.iter().position(|&x| x == "-")?;
        let src = f.get(sep + 2)?;
        (f.get(4) == Some(&"/")).then(|| PathBuf::from(src))
    });
    let Some(dev) = root.filter(|p| {
        use std::os::unix::fs::FileTypeExt;
        fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device())
    }) else {
        eprintln!("SKIP: `/` is not on a block device here");
        return;
    };
    let e = Target::open(&target(&dev, 0, 0, true))
        .err()
        .expect("refused");
    assert!(
        matches!(e, ReplayError::Unsafe(ref m) if m.contains("mounted")),
        "{e}"
    );
}
