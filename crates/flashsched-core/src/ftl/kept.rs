//! Preconditioned FTLs kept for reuse within a process.
//!
//! A sweep builds the same device (geometry, FTL settings, seed) run after
//! run, and building it is its analytic preconditioning
//! (`precondition/`): 20-70 ms on the Intel presets' 2-10 M pages, as long
//! as a 50k-request run on them (BENCHMARKS.md, session 51). Copying the
//! preconditioned state takes a fifth of that. So the second build of a
//! device keeps a copy of its state, and every later build starts from a
//! copy of that copy. The state is a function of those inputs alone (the
//! preconditioning draws from a generator seeded by `seed`), so a copy is
//! what a fresh build computes and results do not change.
//!
//! A first build keeps nothing, so a one-off run pays no copy, and neither
//! do devices built once each. Kept states take at most the room the
//! caller grants (a run: [`KEEP_BYTES`], less when memory is short, none
//! under an explicit memory limit, `Simulation::new`); the least recently
//! used goes first.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::config::FtlConfig;
use super::precondition::PreconditionReport;
use super::Ftl;
use crate::error::SimResult;
use crate::flash::Geometry;

/// Bytes of kept states at most.
pub const KEEP_BYTES: u64 = 256 << 20;
/// Devices remembered as built once (without their state).
const SEEN: usize = 16;

/// What a preconditioned state is a function of.
#[derive(Debug, Clone, PartialEq)]
struct Key {
    geo: Geometry,
    cfg: FtlConfig,
    seed: u64,
}

struct Kept {
    key: Key,
    ftl: Arc<Ftl>,
    report: PreconditionReport,
    bytes: u64,
}

/// Kept states, least recently used first, and the devices built once.
#[derive(Default)]
struct Store {
    kept: Vec<Kept>,
    seen: VecDeque<Key>,
}

impl Store {
    /// The kept state of `key`, now the most recently used.
    fn take(&mut self, key: &Key) -> Option<(Arc<Ftl>, PreconditionReport)> {
        let i = self.kept.iter().position(|k| k.key == *key)?;
        let k = self.kept.remove(i);
        let hit = (Arc::clone(&k.ftl), k.report.clone());
        self.kept.push(k);
        Some(hit)
    }

    /// Whether `key` was built before (then it is forgotten here: it is
    /// about to be kept); otherwise it is remembered.
    fn built_before(&mut self, key: &Key) -> bool {
        if let Some(i) = self.seen.iter().position(|k| k == key) {
            self.seen.remove(i);
            return true;
        }
        if self.seen.len() == SEEN {
            self.seen.pop_front();
        }
        self.seen.push_back(key.clone());
        false
    }

    /// Keep `ftl` as `key`'s state within `budget` bytes, dropping the
    /// least recently used states to make room.
    fn keep(
        &mut self,
        key: Key,
        ftl: Arc<Ftl>,
        report: PreconditionReport,
        bytes: u64,
        budget: u64,
    ) {
        if self.kept.iter().any(|k| k.key == key) {
            return; // another thread kept it meanwhile
        }
        while !self.kept.is_empty() && self.bytes() + bytes > budget {
            self.kept.remove(0);
        }
        self.kept.push(Kept {
            key,
            ftl,
            report,
            bytes,
        });
    }

    fn bytes(&self) -> u64 {
        self.kept.iter().map(|k| k.bytes).sum()
    }
}

fn store() -> MutexGuard<'static, Store> {
    static STORE: OnceLock<Mutex<Store>> = OnceLock::new();
    let m = STORE.get_or_init(Mutex::default);
    // A panic elsewhere while it was held leaves the store consistent
    // (each change is a single push or remove).
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fresh FTL over `geo` configured by `cfg`, preconditioned as
/// `cfg.precondition_fill` asks: a copy of the kept state when this device
/// was kept, else built (and kept on its second build, if kept states fit
/// in `room` bytes with it; 0 keeps nothing).
pub fn preconditioned(
    geo: Geometry,
    cfg: &FtlConfig,
    seed: u64,
    room: u64,
) -> SimResult<(Ftl, PreconditionReport)> {
    let fill = cfg.precondition_fill;
    if fill <= 0.0 {
        // Nothing to compute: a fresh FTL is lazily zeroed tables.
        let mut ftl = Ftl::new(geo, cfg, seed)?;
        let report = ftl.precondition(fill, seed);
        return Ok((ftl, report));
    }
    let key = Key {
        geo,
        cfg: cfg.clone(),
        seed,
    };
    // Copied outside the lock (other threads may build meanwhile).
    let hit = store().take(&key);
    if let Some((ftl, report)) = hit {
        return Ok((Ftl::clone(&ftl), report));
    }
    let mut ftl = Ftl::new(geo, cfg, seed)?;
    let report = ftl.precondition(fill, seed);
    let bytes = ftl.table_bytes();
    if bytes <= room && store().built_before(&key) {
        let copy = Arc::new(ftl.clone());
        store().keep(key, copy, report.clone(), bytes, room);
    }
    Ok((ftl, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DeviceConfig;

    fn device(blocks: u32, seed: u64) -> (Geometry, FtlConfig, u64) {
        let cfg = DeviceConfig::load(
            "ssdsim-default",
            &[
                format!("geometry.blocks_per_plane={blocks}"),
                "geometry.pages_per_block=32".into(),
                "ftl.precondition_fill=0.8".into(),
            ],
        )
        .unwrap();
        (Geometry::new(&cfg.geometry), cfg.ftl, seed)
    }

    /// Mappings, (valid pages, erases) per block, free blocks per plane.
    type State = (Vec<Option<u32>>, Vec<(u32, u32)>, Vec<u32>);

    /// Everything a run reads of a preconditioned FTL.
    fn state(f: &Ftl) -> State {
        let maps = (0..f.logical_pages).map(|l| f.lookup(l)).collect();
        let blocks = (0..f.geo.blocks())
            .map(|b| (f.block_valid(b), f.erase_count(b)))
            .collect();
        let free = (0..f.geo.planes()).map(|p| f.free_blocks(p)).collect();
        (maps, blocks, free)
    }

    /// The first build keeps nothing, the second keeps its state, the third
    /// starts from a copy of it: all three equal a build without the store.
    /// (Geometries unique to this test: the store is the process's.)
    #[test]
    fn a_device_is_kept_on_its_second_build_and_copied_from_then_on() {
        let (geo, cfg, seed) = device(48, 11);
        let mut alone = Ftl::new(geo, &cfg, seed).unwrap();
        let want_report = alone.precondition(cfg.precondition_fill, seed);
        let want = state(&alone);
        let kept = |s: &mut Store| s.kept.iter().any(|k| k.key.geo == geo);
        for build in 1..=3 {
            let (f, report) = preconditioned(geo, &cfg, seed, KEEP_BYTES).unwrap();
            assert_eq!(report, want_report, "build {build}");
            assert_eq!(state(&f), want, "build {build}");
            f.check_invariants().unwrap();
            assert_eq!(kept(&mut store()), build >= 2, "build {build}");
        }
        // Another seed is another device: built, not copied.
        let (f, _) = preconditioned(geo, &cfg, 12, KEEP_BYTES).unwrap();
        assert_ne!(state(&f).0, want.0);
    }

    /// A copy is the state before the run: a run on one leaves the kept
    /// state as it was.
    #[test]
    fn a_run_does_not_change_the_kept_state() {
        let (geo, cfg, seed) = device(40, 5);
        let _ = preconditioned(geo, &cfg, seed, KEEP_BYTES).unwrap();
        let (mut f, _) = preconditioned(geo, &cfg, seed, KEEP_BYTES).unwrap();
        let before = state(&f);
        let ppn = f.alloc(0, crate::ftl::Stream::User).unwrap();
        f.map_user_write(0, ppn, 1);
        assert_ne!(state(&f), before, "the run changed its copy");
        let (g, _) = preconditioned(geo, &cfg, seed, KEEP_BYTES).unwrap();
        assert_eq!(state(&g), before);
    }

    /// The least recently used state makes room; none larger than the
    /// budget is kept.
    #[test]
    fn the_store_keeps_within_its_budget() {
        let mut s = Store::default();
        let (geo, cfg, _) = device(32, 1);
        let ftl = Arc::new(Ftl::new(geo, &cfg, 1).unwrap());
        let key = |seed| Key {
            geo,
            cfg: cfg.clone(),
            seed,
        };
        let r = PreconditionReport::default();
        s.keep(key(1), Arc::clone(&ftl), r.clone(), 40, 100);
        s.keep(key(2), Arc::clone(&ftl), r.clone(), 40, 100);
        assert!(s.take(&key(1)).is_some(), "1 is now the most recent");
        s.keep(key(3), Arc::clone(&ftl), r.clone(), 40, 100);
        let seeds: Vec<u64> = s.kept.iter().map(|k| k.key.seed).collect();
        assert_eq!(seeds, [1, 3], "2 was the least recently used");
        assert_eq!(s.bytes(), 80);
        // Seen once, then again: kept on the second sighting only.
        assert!(!s.built_before(&key(9)));
        assert!(s.built_before(&key(9)));
        assert!(!s.built_before(&key(9)), "forgotten once kept");
    }
}
