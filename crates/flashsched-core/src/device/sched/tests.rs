//! Worked examples of the orderings AOS produces, and of the two baselines'
//! and VIOS's rules the AOS/VIOS reproductions turn on (docs/devsched.md):
//! the scheduler is driven directly on a real device's transaction arena and
//! FTL, so each test states by hand which die is offered work in which
//! order and which request each die gets.

use super::aos::Aos;
use super::piq::{Piq, PiqParams};
use super::vios::{Vios, ViosParams};
use super::{
    AosParams, FcfsOrder, Pairing, PickCtx, Refill, SsdsimFcfs, SsdsimParams, StartOrder,
    TxScheduler, TxSchedulerType,
};
use crate::config::DeviceConfig;
use crate::device::pick_ctx;
use crate::device::tx::{Origin, Tx, TxId, TxKind};
use crate::device::Ssd;

/// 2 channels × 2 chips × 2 dies × 2 planes; chip c holds dies 2c, 2c+1 and
/// sits on channel c / 2; die d holds planes 2d, 2d+1.
fn device() -> Ssd {
    device_with("relaxed")
}

/// [`device`] under multi-plane rule `multiplane`.
fn device_with(multiplane: &str) -> Ssd {
    device_busy(multiplane, "die")
}

/// [`device`] under multi-plane rule `multiplane` and busy unit `busy`.
fn device_busy(multiplane: &str, busy: &str) -> Ssd {
    let cfg = DeviceConfig::load(
        "default",
        &[
            "geometry.channels=2",
            "geometry.chips_per_channel=2",
            "geometry.dies_per_chip=2",
            "geometry.planes_per_die=2",
            "geometry.blocks_per_plane=64",
            "geometry.pages_per_block=8",
            &format!("controller.multiplane={multiplane}"),
            &format!("controller.busy_unit={busy}"),
            "ftl.precondition_fill=0",
        ]
        .map(String::from),
    )
    .unwrap();
    Ssd::new(cfg.ssd(), 1).unwrap()
}

/// A user transaction on global `plane` (its die follows), logical page
/// `lpn`, reading the first page of the plane's block `lpn`.
fn tx(ssd: &Ssd, kind: TxKind, plane: u32, lpn: u32) -> Tx {
    let g = &ssd.geo;
    Tx {
        kind,
        origin: Origin::User,
        copyback: false,
        die: g.die_of_plane(plane),
        plane,
        lpn,
        ppn: (plane * g.blocks_per_plane + lpn % g.blocks_per_plane) * g.pages_per_block,
        owner: lpn,
        epoch: 0,
        seq: lpn as u64,
        enqueued: 0,
        sectors: 0,
    }
}

fn aos(ssd: &Ssd, f: impl FnOnce(&mut AosParams)) -> Aos {
    let mut p = AosParams::default();
    f(&mut p);
    Aos::new(p, &ssd.geo)
}

fn push(ssd: &mut Ssd, s: &mut Aos, kind: TxKind, plane: u32, lpn: u32) -> TxId {
    let t = tx(ssd, kind, plane, lpn);
    let id = ssd.txs.insert(t);
    s.push(id, &t, 0);
    id
}

fn wakes(s: &mut Aos) -> Vec<u32> {
    let mut w = Vec::new();
    s.wakes(&mut w);
    w
}

fn ctx(ssd: &Ssd) -> PickCtx<'_> {
    pick_ctx!(ssd, 0)
}

/// One read on each chip (chips 0, 1 on channel 0; 2, 3 on channel 1). As
/// written, channel-level sets are visited round-robin with one chip set
/// per visit: chip 0 (channel 0), chip 2 (channel 1), chip 1, chip 3 — so
/// dies 0, 4, 2, 6 are offered work in that order (and get the bus in it).
/// The top-up reading wakes every chip of channel 0 first: 0, 2, 4, 6.
#[test]
fn one_chip_set_per_channel_per_round() {
    let mut ssd = device();
    for refill in [Refill::Empty, Refill::TopUp] {
        let mut s = aos(&ssd, |p| p.refill = refill);
        for (chip, lpn) in [(0u32, 0u32), (1, 1), (2, 2), (3, 3)] {
            push(&mut ssd, &mut s, TxKind::Read, chip * 4, lpn);
        }
        s.prepare(&ctx(&ssd));
        let want = match refill {
            Refill::Empty => vec![0, 4, 2, 6],
            Refill::TopUp => vec![0, 2, 4, 6],
        };
        assert_eq!(wakes(&mut s), want, "{refill:?}");
    }
}

/// Chip 0's set holds reads A and B on plane 0 (same die, same plane: they
/// conflict) and C on die 1. Round 1 issues A and C to the controller and
/// leaves B (the set's priority rises); B goes when the controller has
/// emptied. Read D, arriving meanwhile for chip 1, waits in the pending
/// queue until the whole set has emptied (refill only when empty) — with
/// the top-up reading it is dispatched at once.
#[test]
fn conflicting_reads_go_in_later_rounds_and_the_set_refills_only_when_empty() {
    let mut ssd = device();
    let mut s = aos(&ssd, |_| {});
    let a = push(&mut ssd, &mut s, TxKind::Read, 0, 10);
    let b = push(&mut ssd, &mut s, TxKind::Read, 0, 11);
    let c = push(&mut ssd, &mut s, TxKind::Read, 2, 12);
    s.prepare(&ctx(&ssd));
    assert_eq!(wakes(&mut s), vec![0, 1], "A (die 0) and C (die 1) issued");
    let d = push(&mut ssd, &mut s, TxKind::Read, 4, 13); // chip 1, die 2
    s.prepare(&ctx(&ssd));
    assert_eq!(
        s.pick(2, &ctx(&ssd)),
        None,
        "D waits: B still holds the set"
    );
    assert_eq!(s.pick(0, &ctx(&ssd)), Some(a));
    assert_eq!(
        s.pick(0, &ctx(&ssd)),
        None,
        "B not issued while A's round runs"
    );
    assert_eq!(s.pick(1, &ctx(&ssd)), Some(c));
    // The controller emptied: round 2 issues B, and the set is empty.
    assert_eq!(wakes(&mut s), vec![0]);
    assert_eq!(s.pick(0, &ctx(&ssd)), Some(b));
    assert_eq!(s.pick(2, &ctx(&ssd)), Some(d), "refilled once empty");
    assert_eq!(s.pending(), 0);

    // Top-up: D enters the set as soon as die 2 finds no work.
    let mut ssd = device();
    let mut s = aos(&ssd, |p| p.refill = Refill::TopUp);
    push(&mut ssd, &mut s, TxKind::Read, 0, 10);
    push(&mut ssd, &mut s, TxKind::Read, 0, 11);
    s.prepare(&ctx(&ssd));
    let d = push(&mut ssd, &mut s, TxKind::Read, 4, 13);
    assert_eq!(s.pick(2, &ctx(&ssd)), Some(d));
}

/// Programs on planes 0 and 1 of die 0 share the re-ordering set (Eq. 4:
/// same type, different planes) and leave it as one two-plane command: the
/// controller offers the second as the first's companion. Without
/// multi-plane sharing the second conflicts and waits for the next fill.
#[test]
fn same_die_programs_on_two_planes_form_one_command() {
    let mut ssd = device();
    let mut s = aos(&ssd, |_| {});
    let p0 = push(&mut ssd, &mut s, TxKind::Program, 0, 20);
    let p1 = push(&mut ssd, &mut s, TxKind::Program, 1, 21);
    s.prepare(&ctx(&ssd));
    let lead = s.pick(0, &ctx(&ssd)).unwrap();
    assert_eq!(lead, p0);
    let lt = *ssd.txs.get(lead);
    assert_eq!(s.pick_companion(0, &lt, 1, &ctx(&ssd)), Some(p1));
    assert_eq!(s.pending(), 0);

    let mut ssd = device();
    let mut s = aos(&ssd, |p| p.multiplane = false);
    let p0 = push(&mut ssd, &mut s, TxKind::Program, 0, 20);
    let p1 = push(&mut ssd, &mut s, TxKind::Program, 1, 21);
    s.prepare(&ctx(&ssd));
    assert_eq!(s.pick(0, &ctx(&ssd)), Some(p0));
    let lt = *ssd.txs.get(p0);
    assert_eq!(s.pick_companion(0, &lt, 1, &ctx(&ssd)), None);
    assert_eq!(s.pick(0, &ctx(&ssd)), Some(p1), "next fill");
}

/// With a pending-queue window of 2, only the two oldest reads are looked
/// at by a fill: the third (on an idle chip) waits for the next fill.
#[test]
fn queue_limit_bounds_what_a_fill_looks_at() {
    for (limit, want) in [(2u32, vec![0, 4]), (0, vec![0, 4, 2])] {
        let mut ssd = device();
        let mut s = aos(&ssd, |p| p.queue_limit = limit);
        for (chip, lpn) in [(0u32, 0u32), (2, 1), (1, 2)] {
            push(&mut ssd, &mut s, TxKind::Read, chip * 4, lpn);
        }
        s.prepare(&ctx(&ssd));
        assert_eq!(wakes(&mut s), want, "queue_limit = {limit}");
    }
}

/// SSDsim's FCFS on chip 0 in arrival order: program P0 (die 0, plane 0),
/// read R (die 1), program P1 (die 0, plane 1). P0 leads; with `pairing =
/// "queue"` (SSDsim's two-plane search) P1 joins it past the older R, one
/// two-plane command; with `pairing = "head"` (AOS §II-C: "all requests are
/// executed in FIFO order") the queue's next transaction is R, which cannot
/// join a program, so P0 runs alone and R is next.
#[test]
fn fcfs_pairs_past_the_head_only_with_queue_pairing() {
    for (pairing, companion) in [(Pairing::Queue, true), (Pairing::Head, false)] {
        let mut ssd = device();
        let p = SsdsimParams {
            order: FcfsOrder::Arrival,
            pairing,
        };
        let mut s = SsdsimFcfs::new(p, &ssd.geo);
        let p0 = push_to(&mut ssd, &mut s, TxKind::Program, 0, 30);
        let r = push_to(&mut ssd, &mut s, TxKind::Read, 2, 31);
        let p1 = push_to(&mut ssd, &mut s, TxKind::Program, 1, 32);
        assert_eq!(s.pick_chip(0, 0b11, &ctx(&ssd)), Some(p0));
        let lead = *ssd.txs.get(p0);
        let got = s.pick_companion(0, &lead, 1, &ctx(&ssd));
        assert_eq!(got, companion.then_some(p1), "{pairing:?}");
        assert_eq!(s.pick_chip(0, 0b10, &ctx(&ssd)), Some(r), "{pairing:?}");
    }
}

/// VIOS's channel barrier (§3.3, Fig. 3). R0 (chip 0) is released and not
/// started yet. Then R1 (chip 0, channel 0), R2 (chip 1, channel 0) and R3
/// (chip 2, channel 1) arrive: one chip batch, channel batches [R1, R3] and
/// [R2] (R2 shares channel 0 with R1). R1 cannot go (chip 0 still holds
/// R0), R3 goes. With the barrier R2 waits for R1 although chip 1 is idle
/// (wakes: die 4 only); without it R2 goes at once, as PIQ would send it
/// (wakes: dies 4, 2). Once die 0 starts R0, R1 goes and, its channel
/// batch now empty, R2 follows.
#[test]
fn vios_channel_barrier_holds_later_channel_batches() {
    for (barrier, want) in [(true, vec![4]), (false, vec![4, 2])] {
        let mut ssd = device();
        let p = ViosParams {
            channel_barrier: barrier,
            ..ViosParams::default()
        };
        let mut s = Vios::new(p, &ssd.geo);
        let r0 = push_to(&mut ssd, &mut s, TxKind::Read, 0, 40);
        s.prepare(&ctx(&ssd));
        let mut w = Vec::new();
        s.wakes(&mut w);
        assert_eq!(w, vec![0]);
        let r1 = push_to(&mut ssd, &mut s, TxKind::Read, 0, 41);
        let r2 = push_to(&mut ssd, &mut s, TxKind::Read, 4, 42);
        let r3 = push_to(&mut ssd, &mut s, TxKind::Read, 8, 43);
        s.prepare(&ctx(&ssd));
        w.clear();
        s.wakes(&mut w);
        assert_eq!(w, want, "barrier = {barrier}");
        if barrier {
            assert_eq!(s.pick(2, &ctx(&ssd)), None, "R2 held behind R1");
        }
        assert_eq!(s.pick(4, &ctx(&ssd)), Some(r3));
        assert_eq!(s.pick(0, &ctx(&ssd)), Some(r0));
        assert_eq!(s.pick(0, &ctx(&ssd)), Some(r1));
        assert_eq!(s.pick(2, &ctx(&ssd)), Some(r2));
        assert_eq!(s.pending(), 0);
    }
}

fn push_to(ssd: &mut Ssd, s: &mut dyn TxScheduler, kind: TxKind, plane: u32, lpn: u32) -> TxId {
    let t = tx(ssd, kind, plane, lpn);
    let id = ssd.txs.insert(t);
    s.push(id, &t, 0);
    id
}

/// The device's pre-check before it asks for a companion
/// (`PickCtx::companion_possible`) rules out exactly the commands no
/// transaction could join. Under ONFI a program's companion needs its
/// plane's open block at the lead's page offset: with one user page written
/// on plane 0 (offset 1) and none on plane 1 (offset 0 in both streams), a
/// program on plane 0 can have no companion; after one page on plane 1 it
/// can. A read may always look; with both planes taken nothing may; and the
/// relaxed rule never rules a program out.
#[test]
fn companion_precheck_follows_the_onfi_page_offsets() {
    use crate::ftl::Stream;
    let mut ssd = device_with("onfi");
    let lead = tx(&ssd, TxKind::Program, 0, 40);
    assert!(
        ctx(&ssd).companion_possible(&lead, 0b01),
        "fresh: both at 0"
    );
    assert!(!ctx(&ssd).companion_possible(&lead, 0b11), "no free plane");
    ssd.ftl.alloc(0, Stream::User).unwrap();
    assert_eq!(ssd.ftl.next_page_offset(0, Stream::User), 1);
    assert!(!ctx(&ssd).companion_possible(&lead, 0b01));
    let read = tx(&ssd, TxKind::Read, 0, 41);
    assert!(ctx(&ssd).companion_possible(&read, 0b01));
    ssd.ftl.alloc(1, Stream::User).unwrap();
    assert!(ctx(&ssd).companion_possible(&lead, 0b01));

    let mut ssd = device_with("relaxed");
    ssd.ftl.alloc(0, Stream::User).unwrap();
    assert!(ctx(&ssd).companion_possible(&lead, 0b01));
    let ssd = device_with("off");
    assert!(!ctx(&ssd).companion_possible(&read, 0b01));
}

/// PIQ or VIOS with start order `order`.
fn batched(ssd: &Ssd, vios: bool, order: StartOrder) -> Box<dyn TxScheduler> {
    if vios {
        let p = ViosParams {
            order,
            ..ViosParams::default()
        };
        Box::new(Vios::new(p, &ssd.geo))
    } else {
        let p = PiqParams {
            order,
            ..PiqParams::default()
        };
        Box::new(Piq::new(p, &ssd.geo))
    }
}

/// `controller.{piq,vios}.order`, one die. Program W (die 0) is released
/// and waits (its chip is busy); then read R arrives for the same die.
/// In order, R is not even released while W waits, and starts second; reads
/// first, R is released past W and starts first (SSDsim's controller: a
/// chip's queued reads before its writes).
#[test]
fn batched_reads_first_starts_a_read_before_a_released_write() {
    for vios in [false, true] {
        for (order, first) in [(StartOrder::InOrder, 'W'), (StartOrder::ReadsFirst, 'R')] {
            let mut ssd = device_busy("off", "chip");
            let mut s = batched(&ssd, vios, order);
            let w = push_to(&mut ssd, s.as_mut(), TxKind::Program, 0, 50);
            s.prepare(&ctx(&ssd));
            let r = push_to(&mut ssd, s.as_mut(), TxKind::Read, 1, 51);
            s.prepare(&ctx(&ssd));
            let want = if first == 'R' { [r, w] } else { [w, r] };
            let got = [s.pick(0, &ctx(&ssd)), s.pick(0, &ctx(&ssd))];
            assert_eq!(got, want.map(Some), "vios = {vios}, {order:?}");
            assert_eq!(s.pending(), 0);
        }
    }
}

/// The same across the dies of one chip. Program W (die 1) is released,
/// then read R (die 0), while chip 0 is busy; when it frees, the
/// device offers die 1 first (round-robin after a command on die 0). In
/// order die 1 takes W. Reads first under chip-level busy, die 1 declines
/// and wakes die 0, which takes R; W follows. Under per-die busy the dies
/// do not compete, and die 1 takes W at once either way.
#[test]
fn batched_reads_first_holds_a_chips_write_for_its_read() {
    for vios in [false, true] {
        for busy in ["chip", "die"] {
            for order in [StartOrder::InOrder, StartOrder::ReadsFirst] {
                let mut ssd = device_busy("off", busy);
                let mut s = batched(&ssd, vios, order);
                let w = push_to(&mut ssd, s.as_mut(), TxKind::Program, 2, 60);
                s.prepare(&ctx(&ssd));
                let r = push_to(&mut ssd, s.as_mut(), TxKind::Read, 0, 61);
                s.prepare(&ctx(&ssd));
                let mut woken = Vec::new();
                s.wakes(&mut woken);
                assert_eq!(woken, vec![1, 0], "both released");
                let label = format!("vios = {vios}, busy = {busy}, {order:?}");
                if busy == "chip" && order == StartOrder::ReadsFirst {
                    assert_eq!(s.pick(1, &ctx(&ssd)), None, "{label}");
                    woken.clear();
                    s.wakes(&mut woken);
                    assert_eq!(woken, vec![0], "{label}: R's die woken");
                    assert_eq!(s.pick(0, &ctx(&ssd)), Some(r), "{label}");
                    assert_eq!(s.pick(1, &ctx(&ssd)), Some(w), "{label}");
                } else {
                    assert_eq!(s.pick(1, &ctx(&ssd)), Some(w), "{label}");
                    assert_eq!(s.pick(0, &ctx(&ssd)), Some(r), "{label}");
                }
                assert_eq!(s.pending(), 0);
            }
        }
    }
}

/// A release scan that visits only the batches where something can happen
/// (`batch/release.rs`) releases what walking every batch releases: PIQ
/// and VIOS, with and without its channel barrier (without it, a scan can
/// stop inside a batch it emptied, which a later scan drops), driven
/// through the same random arrivals and picks, with long batch lists (most
/// requests span several chips), give the same wakes and picks either way.
#[test]
fn batched_release_visits_only_where_something_can_happen() {
    for variant in ["piq", "vios", "vios-no-barrier"] {
        let mut runs = Vec::new();
        for walk_whole in [usize::MAX, 0, 2] {
            let mut ssd = device();
            let mut s: Box<dyn TxScheduler> = if variant == "piq" {
                let mut p = Piq::new(PiqParams::default(), &ssd.geo);
                p.walk_whole(walk_whole);
                Box::new(p)
            } else {
                let p = ViosParams {
                    channel_barrier: variant == "vios",
                    ..ViosParams::default()
                };
                let mut v = Vios::new(p, &ssd.geo);
                v.walk_whole(walk_whole);
                Box::new(v)
            };
            let mut rng = crate::rng::Rng::new(7);
            let mut log = Vec::new();
            let mut lpn = 0;
            let mut queued = 0usize;
            for step in 0..600 {
                // Arrivals for a while, then a drain (lists run short and
                // empty, where scans stop early).
                let arriving = step % 60 < 30;
                if arriving {
                    // A request: 1-4 pages on random planes, all reads or
                    // all writes (one owner).
                    let kind = if rng.below(2) == 0 {
                        TxKind::Read
                    } else {
                        TxKind::Program
                    };
                    for _ in 0..1 + rng.below(4) {
                        let plane = rng.below(16) as u32;
                        let mut t = tx(&ssd, kind, plane, lpn);
                        t.owner = step as u32;
                        lpn += 1;
                        let id = ssd.txs.insert(t);
                        s.push(id, &t, 0);
                        queued += 1;
                    }
                }
                s.prepare(&ctx(&ssd));
                let mut w = Vec::new();
                s.wakes(&mut w);
                log.push(format!("wakes {w:?}"));
                // Fewer picks than arrivals: the lists grow long.
                let picks = if arriving {
                    rng.below(3)
                } else {
                    1 + rng.below(4)
                };
                for _ in 0..picks {
                    let die = rng.below(8) as u32;
                    let got = s.pick(die, &ctx(&ssd));
                    if let Some(id) = got {
                        queued -= 1;
                        ssd.txs.remove(id);
                    }
                    log.push(format!("pick {die} {got:?}"));
                }
            }
            assert_eq!(s.pending(), queued);
            runs.push(log);
        }
        assert_eq!(runs[0], runs[1], "{variant}: stops only");
        assert_eq!(runs[0], runs[2], "{variant}: two batches walked");
    }
}
