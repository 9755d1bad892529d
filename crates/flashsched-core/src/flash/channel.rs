//! A channel bus shared by the chips wired to it. Transfers (each of its
//! own length: a page, or the sectors a host request moves) run one at a
//! time in the order they are asked for, so when one runs follows from the
//! transfers asked for before it: the channel is a reservation timeline and
//! no event marks the bus changing hands.
//!
//! Order of requests: by time; at one instant, reads' data-out (their sense
//! ends then; by die) before programs' data-in (asked for by the decide
//! phase, in the order it serves dies). A read's data-out is known when its
//! sense starts, so it is entered then as *pending*, with the end it would
//! have if nothing else asked first; a program asked for before its sense
//! ends can still delay it. Pending ends are recomputed (`retime`) whenever
//! the timeline changes. With `by_class` (MQSim's controller), data-outs
//! waiting when the bus frees go by class first (translation, user, then GC
//! reads).
//!
//! Data-outs end one at a time, in the order they run, so the device keeps
//! one completion event per channel, for the next to end (`arm`): a change
//! of plan moves that one event, not one per data-out it delays.

use std::collections::VecDeque;

use crate::engine::Ns;

/// A read's data-out that is not yet fixed in the timeline.
#[derive(Debug, Clone, Copy)]
struct Pending {
    /// When the read's sense ends (it asks for the bus then).
    ready: Ns,
    die: u32,
    /// Which transfer this is (the caller's id; a multi-plane read has one
    /// per plane, in the order they were added).
    slot: u32,
    /// End if nothing else is asked for before it.
    end: Ns,
    /// Its length.
    dur: Ns,
    /// Its class, when waiting data-outs go by class (lower first).
    class: u8,
}

/// One channel.
#[derive(Debug, Default, Clone)]
pub struct Channel {
    /// When the last fixed transfer ends.
    pub free_at: Ns,
    /// Pending data-outs in request order (`ready`, then die).
    pending: Vec<Pending>,
    /// Data-outs fixed in the timeline that have not ended yet, in order:
    /// (slot, end). They end before any pending one.
    fixed_outs: VecDeque<(u32, Ns)>,
    /// The data-out whose completion event is queued (`arm`): (slot, end).
    armed: Option<(u32, Ns)>,
    /// Total time of fixed transfers.
    pub busy_ns: Ns,
    /// Transfers that had to wait because the bus was busy.
    pub conflicts: u64,
    /// Transfers carried (data-ins and data-outs).
    pub transfers: u64,
    /// Data-outs waiting for the bus go by class, then by when they asked
    /// (MQSim: translation reads, then user reads, then GC reads); else
    /// by when they asked. `pending` is then kept in the order they will
    /// run.
    pub by_class: bool,
}

impl Channel {
    /// An idle channel; `by_class`: see the field.
    pub fn new(by_class: bool) -> Self {
        Channel {
            by_class,
            ..Channel::default()
        }
    }

    /// Fix a transfer of `dur` ns asked for at `ready`; returns its end. It
    /// starts at `ready` if the bus is free by then (a transfer ending
    /// exactly at `ready` has freed it), else when the last one ends.
    #[inline]
    fn fix(&mut self, ready: Ns, dur: Ns) -> Ns {
        self.transfers += 1;
        let start = if self.free_at > ready {
            self.conflicts += 1;
            self.free_at
        } else {
            ready
        };
        self.busy_ns += dur;
        self.free_at = start + dur;
        self.free_at
    }

    /// Fix every pending data-out asked for by `t` (they come first).
    #[inline]
    fn fix_pending_until(&mut self, t: Ns) {
        let n = self.pending.iter().take_while(|p| p.ready <= t).count();
        self.fix_pending_first(n);
    }

    /// Fix the first `n` pending data-outs (they still have to end).
    #[inline]
    fn fix_pending_first(&mut self, n: usize) {
        for i in 0..n {
            let Pending {
                ready, dur, slot, ..
            } = self.pending[i];
            let end = self.fix(ready, dur);
            debug_assert_eq!(end, self.pending[i].end);
            self.fixed_outs.push_back((slot, end));
        }
        self.pending.drain(..n);
    }

    /// Recompute pending ends.
    fn retime(&mut self) {
        // One data-out is in its place whatever its class.
        if self.by_class && self.pending.len() > 1 {
            self.order_by_class();
        }
        let mut t = self.free_at;
        for p in &mut self.pending {
            p.end = p.ready.max(t) + p.dur;
            t = p.end;
        }
    }

    /// Put `pending` in the order the transfers will run when waiting ones
    /// go by class: each time the bus frees, the lowest class among those
    /// that have asked (ties: the earliest to ask, then die, then the order
    /// added); if none has, the next to ask. A transfer added later asks
    /// later than any that has started, so none that started moves.
    fn order_by_class(&mut self) {
        let mut t = self.free_at;
        for i in 0..self.pending.len() {
            let rest = &self.pending[i..];
            let next = rest.iter().map(|p| p.ready).min().unwrap_or(t);
            let at = t.max(next);
            let mut best = 0;
            for (j, p) in rest.iter().enumerate() {
                let b = &rest[best];
                let before = (p.class, p.ready, p.die) < (b.class, b.ready, b.die);
                if p.ready <= at && (b.ready > at || before) {
                    best = j;
                }
            }
            self.pending[i..=i + best].rotate_right(1);
            let p = &self.pending[i];
            t = p.ready.max(t) + p.dur;
        }
    }

    /// A program's data-in of `dur` ns asked for at `now`; returns its end
    /// (pending data-outs it delays move: `next_readout`).
    pub fn reserve(&mut self, now: Ns, dur: Ns) -> Ns {
        self.fix_pending_until(now);
        let end = self.fix(now, dur);
        if !self.pending.is_empty() {
            self.retime();
        }
        end
    }

    /// A command's command and address cycles (`dur` ns) asked for at
    /// `now`; returns their end. They hold the bus as a data-in does but
    /// move no data, so they count as busy time, not as a transfer or a
    /// conflict (a program's cycles travel with its data-in instead:
    /// `reserve` of their sum).
    pub fn reserve_command(&mut self, now: Ns, dur: Ns) -> Ns {
        self.fix_pending_until(now);
        self.hold_for_cycles(now, dur)
    }

    /// As [`Channel::reserve_command`], but the cycles wait only for the
    /// transfer under way at `now` and go before data-outs still waiting
    /// (SSDsim's step loop: at each step a channel sends a waiting read's
    /// command before it starts a data-out; ties go to the command).
    pub fn reserve_command_first(&mut self, now: Ns, dur: Ns) -> Ns {
        // The data-outs that start before `now` (by their planned ends, in
        // the order they run) stay ahead of the cycles.
        let n = self
            .pending
            .iter()
            .take_while(|p| p.end - p.dur < now)
            .count();
        self.fix_pending_first(n);
        self.hold_for_cycles(now, dur)
    }

    /// Command cycles of `dur` ns from `now` or when the fixed transfers
    /// end; the pending data-outs move behind them. Returns their end.
    fn hold_for_cycles(&mut self, now: Ns, dur: Ns) -> Ns {
        let start = self.free_at.max(now);
        self.busy_ns += dur;
        self.free_at = start + dur;
        if !self.pending.is_empty() {
            self.retime();
        }
        self.free_at
    }

    /// Transfer `slot` (`dur` ns, of class `class`: see `by_class`) of a
    /// read on `die` will ask for its data-out at `ready` (at one instant,
    /// dies in index order; one die's transfers in the order added).
    pub fn add_readout(&mut self, ready: Ns, dur: Ns, die: u32, slot: u32, class: u8) {
        let pos = if self.by_class {
            self.pending.len() // `retime` puts it in its place
        } else {
            self.pending
                .iter()
                .position(|p| (p.ready, p.die) > (ready, die))
                .unwrap_or(self.pending.len())
        };
        self.pending.insert(
            pos,
            Pending {
                ready,
                die,
                slot,
                end: Ns::MAX,
                dur,
                class,
            },
        );
        self.retime();
    }

    /// Whether nothing holds or asks for the bus at `now`: every transfer
    /// asked for by then has ended (`controller.dispatch = "channel-idle"`
    /// offers chips work only then). Data-outs that ended at `now` must
    /// have been finished first.
    #[inline]
    pub fn idle_at(&self, now: Ns) -> bool {
        self.free_at <= now && self.pending.first().is_none_or(|p| p.ready > now)
    }

    /// When the bus, busy at `now`, goes idle next as far as it is known
    /// now: the end of the run of transfers holding or asking for it then
    /// (a data-out asked for before the bus frees joins the run).
    pub fn busy_until(&self, now: Ns) -> Ns {
        let mut t = self.free_at;
        for p in &self.pending {
            if p.ready > t.max(now) {
                break;
            }
            t = p.end;
        }
        t.max(now)
    }

    /// The data-out that ends next as planned now, fixed or pending: (slot,
    /// end).
    #[inline]
    pub fn next_readout(&self) -> Option<(u32, Ns)> {
        match self.fixed_outs.front() {
            Some(&f) => Some(f),
            None => self.pending.first().map(|p| (p.slot, p.end)),
        }
    }

    /// When the completion event of the next data-out must be queued: its
    /// end, if it is not the one whose event is queued already (an event
    /// queued for a data-out that has since moved goes stale:
    /// `finish_readout` finds nothing ending then).
    #[inline]
    pub fn arm(&mut self) -> Option<Ns> {
        let next = self.next_readout()?;
        if self.armed == Some(next) {
            return None;
        }
        self.armed = Some(next);
        Some(next.1)
    }

    /// A completion event fired at `now`: the data-out ending then, if any
    /// (its slot), is done. Anything asked for before it has ended already.
    #[inline]
    pub fn finish_readout(&mut self, now: Ns) -> Option<u32> {
        let (slot, end) = self.next_readout()?;
        debug_assert!(end >= now, "a data-out's end passed unseen");
        if end != now {
            return None;
        }
        if self.fixed_outs.pop_front().is_none() {
            let p = self.pending.remove(0);
            let end = self.fix(p.ready, p.dur);
            debug_assert_eq!(end, now);
        }
        self.armed = None;
        Some(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every data-out still to end, in order: (slot, end).
    fn outs(c: &Channel) -> Vec<(u32, Ns)> {
        let pending = c.pending.iter().map(|p| (p.slot, p.end));
        c.fixed_outs.iter().copied().chain(pending).collect()
    }

    #[test]
    fn programs_run_back_to_back_in_request_order() {
        let mut c = Channel::default();
        assert_eq!(c.reserve(0, 10), 10);
        assert_eq!(c.reserve(5, 10), 20);
        assert_eq!(c.reserve(6, 10), 30);
        // Free exactly when asked: no wait, no conflict.
        assert_eq!(c.reserve(30, 10), 40);
        // Idle gap: starts when asked.
        assert_eq!(c.reserve(100, 10), 110);
        assert_eq!(c.next_readout(), None);
        assert_eq!(c.busy_ns, 50);
        assert_eq!(c.conflicts, 2);
        assert_eq!(c.transfers, 5);
    }

    /// A command's cycles hold the bus like a transfer (a pending data-out
    /// behind them moves) but count as busy time only.
    #[test]
    fn command_cycles_hold_the_bus_without_counting_as_a_transfer() {
        let mut c = Channel::default();
        c.add_readout(100, 10, 1, 1, 0);
        assert_eq!(c.reserve_command(0, 30), 30);
        assert_eq!(outs(&c), [(1, 110)], "ends before the data-out asks");
        // Asked at 95 while nothing holds the bus: 95..125; the data-out
        // asked at 100 waits until 125.
        assert_eq!(c.reserve_command(95, 30), 125);
        assert_eq!(outs(&c), [(1, 135)]);
        assert_eq!((c.transfers, c.conflicts, c.busy_ns), (0, 0, 60));
    }

    /// Data-out 1 runs 0..100; data-out 2, asked at 50, waits for it. Cycles
    /// asked at 60 go after both in request order (200..210), but before
    /// data-out 2 with `reserve_command_first` (100..110; it moves to
    /// 110..210). Asked at 100, when data-out 2 would start, they still go
    /// first.
    #[test]
    fn read_commands_first_wait_only_for_the_transfer_under_way() {
        let two_readouts = || {
            let mut c = Channel::default();
            c.add_readout(0, 100, 1, 1, 0);
            c.add_readout(50, 100, 2, 2, 0);
            assert_eq!(outs(&c), [(1, 100), (2, 200)]);
            c
        };
        let mut c = two_readouts();
        assert_eq!(c.reserve_command(60, 10), 210);
        assert_eq!(outs(&c), [(1, 100), (2, 200)], "both fixed, unmoved");
        for now in [60, 100] {
            let mut c = two_readouts();
            assert_eq!(c.reserve_command_first(now, 10), 110);
            assert_eq!(outs(&c), [(1, 100), (2, 210)]);
            assert_eq!((c.transfers, c.busy_ns), (1, 110), "data-out 1 fixed");
        }
    }

    /// The completion event follows the next data-out: queued once, moved
    /// when a program delays it (the old one then finds nothing ending), and
    /// a data-out fixed by a later request still ends by its event.
    #[test]
    fn a_program_asked_for_first_delays_a_pending_readout() {
        let mut c = Channel::default();
        // Die 3's sense ends at 50: data out 50..60 if nothing comes first.
        c.add_readout(50, 10, 3, 3, 0);
        assert_eq!(c.arm(), Some(60));
        assert_eq!(c.arm(), None, "already queued");
        // A program asked for at 45 takes 45..55; the data-out moves to 55..65.
        assert_eq!(c.reserve(45, 10), 55);
        assert_eq!(c.arm(), Some(65));
        // A program asked for at 50 comes after the data-out asked at 50
        // (which is fixed now, still to end at 65).
        assert_eq!(c.reserve(50, 10), 75);
        assert_eq!((c.arm(), outs(&c)), (None, vec![(3, 65)]));
        assert_eq!(c.conflicts, 2);
        assert_eq!(c.finish_readout(60), None, "the moved event is stale");
        assert_eq!(c.finish_readout(65), Some(3));
        assert_eq!((c.arm(), c.next_readout()), (None, None));
        assert_eq!((c.transfers, c.busy_ns), (3, 30));
    }

    /// Against a reference that knows every request up front: transfers
    /// (of mixed lengths) run in request order (time; at one instant
    /// data-outs by die, then programs in the order asked), each from
    /// max(request, previous end).
    /// The timeline, told of data-outs early and of programs only when they
    /// are asked for, and ending data-outs only by the one event it keeps
    /// queued (`arm`), must give every transfer the same end.
    #[test]
    fn online_timeline_matches_the_offline_order() {
        use std::collections::{BTreeMap, HashMap};
        for seed in 0..20 {
            let mut rng = crate::rng::Rng::new(seed);
            let mut c = Channel::default();
            // (request time, class, key) -> transfer id.
            let mut requests: Vec<(Ns, u8, u64, usize)> = Vec::new();
            // Die -> its data-out still to end (transfer id = slot).
            let mut planned: HashMap<u32, usize> = HashMap::new();
            let mut ends: Vec<Ns> = Vec::new();
            // Each transfer's length: a page (7) or part of one.
            let mut durs: Vec<Ns> = Vec::new();
            // Queued completion events: time -> how many.
            let mut events: BTreeMap<Ns, u32> = BTreeMap::new();
            let arm = |c: &mut Channel, events: &mut BTreeMap<Ns, u32>| {
                if let Some(at) = c.arm() {
                    *events.entry(at).or_default() += 1;
                }
            };
            let mut fixed_programs = 0u64;
            let mut t = 0;
            while t < 3_000 || !events.is_empty() {
                // Completion events due now fire first.
                for _ in 0..events.remove(&t).unwrap_or(0) {
                    if let Some(slot) = c.finish_readout(t) {
                        ends[slot as usize] = t;
                        planned.retain(|_, &mut id| id != slot as usize);
                        arm(&mut c, &mut events);
                    }
                }
                assert!(events.keys().all(|&e| e > t), "seed {seed}: event missed");
                if t < 3_000 {
                    // Programs asked for now (load from light to overloaded).
                    let n = u64::from(rng.below(60) < 2 + seed);
                    for _ in 0..n {
                        let id = ends.len();
                        let dur = [7, 7, 3, 5][rng.below(4) as usize];
                        durs.push(dur);
                        ends.push(c.reserve(t, dur));
                        requests.push((t, 1, fixed_programs, id));
                        fixed_programs += 1;
                        arm(&mut c, &mut events);
                    }
                    // Reads starting now on idle dies: data-out after the sense.
                    for die in 0..6u32 {
                        if !planned.contains_key(&die) && rng.below(8) == 0 {
                            let ready = t + 1 + rng.below(40);
                            let id = ends.len();
                            let dur = [7, 7, 2, 4][rng.below(4) as usize];
                            durs.push(dur);
                            ends.push(Ns::MAX);
                            requests.push((ready, 0, die as u64, id));
                            planned.insert(die, id);
                            c.add_readout(ready, dur, die, id as u32, 0);
                            arm(&mut c, &mut events);
                        }
                    }
                }
                t += 1;
            }
            assert!(planned.is_empty() && c.next_readout().is_none());
            requests.sort();
            let mut free = 0;
            for &(at, _, _, id) in &requests {
                free = at.max(free) + durs[id];
                assert_eq!(ends[id], free, "seed {seed}: transfer {id} asked at {at}");
            }
            assert_eq!(c.free_at, free);
            assert_eq!(c.transfers, requests.len() as u64);
        }
    }

    #[test]
    fn idle_only_when_no_transfer_holds_or_asks_for_the_bus() {
        let mut c = Channel::default();
        assert!(c.idle_at(0));
        // A data-in 0..10, a data-out asked at 5 (10..20), one at 30 (30..40).
        c.reserve(0, 10);
        c.add_readout(5, 10, 1, 1, 0);
        c.add_readout(30, 10, 2, 2, 0);
        assert!(!c.idle_at(0) && !c.idle_at(9));
        assert_eq!(c.busy_until(0), 20);
        assert_eq!(c.finish_readout(20), Some(1));
        assert!(c.idle_at(20) && c.idle_at(29));
        // At 30 the second data-out asks for the bus: busy again.
        assert!(!c.idle_at(30));
        assert_eq!(c.busy_until(30), 40);
        assert_eq!(c.finish_readout(40), Some(2));
        assert!(c.idle_at(40));
        // A data-out asked at 55 after an idle gap: at 57 the bus is busy
        // until 65 (not idle since 40, when the last fixed one ended).
        c.add_readout(55, 10, 3, 3, 0);
        assert!(!c.idle_at(57));
        assert_eq!(c.busy_until(57), 65);
    }

    /// By class: at 20 the bus frees with a user data-out (class 1, asked
    /// at 12) and a translation one (class 0, asked at 15) waiting; the
    /// translation one goes first (20–30), then the user one (30–40). A GC
    /// data-out (class 2) asked at 5 waited longest but goes last (40–50).
    #[test]
    fn waiting_readouts_go_by_class_when_asked() {
        let mut c = Channel {
            by_class: true,
            ..Channel::default()
        };
        c.reserve(0, 20);
        c.add_readout(5, 10, 1, 1, 2);
        c.add_readout(12, 10, 2, 2, 1);
        c.add_readout(15, 10, 3, 3, 0);
        assert_eq!(outs(&c), [(3, 30), (2, 40), (1, 50)]);
        for (t, s) in [(30, 3), (40, 2), (50, 1)] {
            assert_eq!(c.finish_readout(t), Some(s));
        }
        assert_eq!((c.free_at, c.transfers), (50, 4));
        // Asked after the bus freed: a lower class does not jump ahead of
        // one that asked while it was free.
        c.add_readout(60, 10, 1, 4, 2);
        c.add_readout(65, 10, 2, 5, 0);
        assert_eq!(outs(&c), [(4, 70), (5, 80)]);
    }

    #[test]
    fn readouts_order_by_ready_time_then_die() {
        let mut c = Channel::default();
        c.add_readout(20, 10, 5, 5, 0);
        c.add_readout(20, 10, 2, 2, 0);
        c.add_readout(15, 10, 7, 7, 0);
        // 7: 15..25, 2: 25..35, 5: 35..45.
        let ends: Vec<_> = c.pending.iter().map(|p| (p.die, p.end)).collect();
        assert_eq!(ends, [(7, 25), (2, 35), (5, 45)]);
        for (t, s) in [(25, 7), (35, 2), (45, 5)] {
            assert_eq!(c.finish_readout(t), Some(s));
        }
        assert_eq!((c.free_at, c.conflicts, c.transfers), (45, 2, 3));
    }
}
