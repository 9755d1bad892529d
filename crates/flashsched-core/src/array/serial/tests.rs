//! Worked examples of the serial log's xGC choices, computed by hand.

use super::*;

/// 5 SSDs of 16 one-page units (segments of 4), volume 48 units.
fn log(victim: Victim) -> SerialLog {
    let cfg = SerialConfig {
        unit: 4096,
        segment: 4 * 4096,
        victim,
        volume_fraction: 0.6,
        ..SerialConfig::default()
    };
    SerialLog::new(&cfg, 5, 16 * 4096, 4096).unwrap()
}

/// Write `units` in order; returns the SSD each went to.
fn write(l: &mut SerialLog, units: impl IntoIterator<Item = u32>) -> Vec<u32> {
    units
        .into_iter()
        .map(|u| l.write_unit(u).unwrap().0)
        .collect()
}

/// SSD 0 takes units 0..15; SSD 1 rewrites 0..3 and adds 16..27 (SSD 0:
/// 12 valid); SSD 2 rewrites 16..23 and adds 28..35 (SSD 1: 8 valid);
/// SSD 3 rewrites 28, 29 (SSD 2: 14 valid). Back-ends 0, 1, 2 retired in
/// that order, SSD 4 is the last clean SSD, so xGC may start:
/// retired → SSD 2 (retired last), fifo → SSD 0 (oldest), greedy → SSD 1
/// (fewest valid).
fn aged(victim: Victim) -> SerialLog {
    let mut l = log(victim);
    assert!(write(&mut l, 0..16).iter().all(|&s| s == 0));
    assert!(write(&mut l, (0..4).chain(16..28)).iter().all(|&s| s == 1));
    assert!(write(&mut l, (16..24).chain(28..36))
        .iter()
        .all(|&s| s == 2));
    assert!(write(&mut l, [28, 29]).iter().all(|&s| s == 3));
    assert_eq!(
        (0..5).map(|s| l.valid_units(s)).collect::<Vec<_>>(),
        vec![12, 8, 14, 2, 0]
    );
    assert_eq!(l.role[4], Role::Clean);
    l
}

#[test]
fn victim_policy_worked_example() {
    for (policy, want) in [(Victim::Retired, 2), (Victim::Fifo, 0), (Victim::Greedy, 1)] {
        let mut l = aged(policy);
        assert_eq!(l.pick_victim(), Some(want), "{policy:?}");
        // The first copy comes from that victim: its first valid slot.
        let (unit, src, off) = l.next_copy().unwrap();
        assert_eq!((src, l.source()), (want, Some(want)), "{policy:?}");
        assert_eq!(l.owner(src, off), Some(unit));
        l.check_invariants().unwrap();
    }
}

/// Copies start at the victim's first valid slot in segment order: SSD 2
/// (retired) holds unit 16 in slot 0; SSD 0 (fifo) lost units 0..3 (its
/// first segment), so slot 4, unit 4; SSD 1 (greedy: segments fewest valid
/// first, 4 = 4 valid in segments 0 and 3, lower first) slot 0, unit 0.
#[test]
fn first_copies_follow_write_order() {
    let mut r = aged(Victim::Retired);
    assert_eq!(r.next_copy(), Some((16, 2, 0)));
    let mut f = aged(Victim::Fifo);
    assert_eq!(f.next_copy(), Some((4, 0, 4)));
    let mut g = aged(Victim::Greedy);
    assert_eq!(g.next_copy(), Some((0, 1, 0)));
}

/// Copies alternate between `dests` destinations: the clean SSD 4 first,
/// then the back-end with the most room. Here SSD 3 (the front-end) is
/// excluded, SSD 1 is made a back-end with 8 free slots: copies go 4, 1, 4, 1.
#[test]
fn copies_go_to_several_destinations_round_robin() {
    let mut l = aged(Victim::Retired);
    l.wp[1] = 8; // pretend SSD 1 has 8 free slots (write pointers only)
    let mut got = Vec::new();
    for _ in 0..4 {
        let slot = l.gc_slot().unwrap();
        got.push(slot / l.cap);
    }
    assert_eq!(got, vec![4, 1, 4, 1]);
    assert_eq!(l.role[4], Role::Back);
    // One destination: everything to the clean SSD.
    let mut one = aged(Victim::Retired);
    one.dests = 1;
    one.wp[1] = 8;
    let got: Vec<u32> = (0..3).map(|_| one.gc_slot().unwrap() / one.cap).collect();
    assert_eq!(got, vec![4, 4, 4]);
}

/// A finished job is checked against v/(1−v) ≤ C/F: SSD 2 (14 of 16
/// valid, v = 0.875, needs C/F ≥ 7) copied in 1 s while the front wrote
/// 2 units in 1 s: C/F = 14/2 = 7: kept up. With the front writing 4
/// units C/F = 3.5 < 7: behind.
#[test]
fn keep_up_checked_when_a_job_ends() {
    for (written, behind) in [(2u32, 0u64), (4, 1)] {
        let mut l = aged(Victim::Retired);
        l.now = 1_000_000_000;
        let mut copies = Vec::new();
        while let Some(c) = l.next_copy() {
            copies.push(c);
        }
        assert_eq!(copies.len(), 14);
        for (u, s, o) in copies {
            let d = l.copy_read_done(u, s, o).unwrap();
            assert!(d.is_some());
            l.copy_write_done();
        }
        // The front-end writes new units meanwhile (units 36.. are unused).
        write(&mut l, 36..36 + written);
        assert_eq!(l.drained_source(), Some(2));
        l.now = 2_000_000_000;
        l.trimmed(2);
        let k = &l.stats.keep_up;
        assert_eq!((k.jobs, k.jobs_behind), (1, behind), "{written} written");
        assert!((k.max_valid_fraction - 0.875).abs() < 1e-12);
        assert!((k.max_needed_ratio - 7.0).abs() < 1e-9);
        l.check_invariants().unwrap();
    }
}
