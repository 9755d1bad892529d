//! The event queue: `(time, rank)`-ordered; while few events are pending
//! (the usual case), one sorted run, else a timing wheel for the near
//! future and a heap beyond it.

use super::sorted_run::SortedRun;
use super::Ns;

/// Ranks at or above this order by insertion: `push` gives each event
/// `FIFO_RANK + seq` (`seq` counts those pushes), so they come after every
/// explicitly ranked event of the same instant and FIFO among themselves.
pub const FIFO_RANK: u64 = 1 << 63;

/// Min-queue of `(time, payload)` with a defined order among equal times.
///
/// Every event carries the key `time << 64 | rank` and pops come out in key
/// order. Flash events are pushed with an explicit rank that names what they
/// are (`push_ranked`, e.g. "bus transfer of channel 3"), so events at the
/// same nanosecond apply in an order that does not depend on when they were
/// scheduled: a model may then schedule an event earlier or fold one away
/// without changing what happens. Other events rank FIFO (`push`).
///
/// One device rarely has more than a few hundred events pending (13 on
/// average replaying MQSim's trace case, 5 on SSDsim's, 80 under GC at queue
/// depth 64, 320-640 with 512 requests of mixed I/O in flight). Up to
/// `SMALL_MAX` of them are one sorted run: most pushes land near one end
/// (due soon, or after everything), one in the middle moves the events on
/// its shorter side by one place, and a pop takes the front. More go to a
/// timing wheel: `WHEEL` buckets of `2^BUCKET_SHIFT` ns, each a sorted run,
/// with a bitmap of the non-empty ones, and a 4-ary heap for events beyond
/// the wheel's horizon (host timers, sparse arrivals, long erases); a pop
/// takes the smaller of the two fronts. The wheel costs few instructions at
/// any size, but its buckets are spread over hundreds of KiB, so each push
/// and pop touches lines long gone from the cache: with up to 640 events
/// pending one run is faster (BENCHMARKS.md, session 56: -9 % core time on
/// the GC case at queue depth 64, -15 % at 320-640 pending; the wheel was
/// used from 48 on before). The queue moves back to one run when fewer than
/// `SMALL_LOW` remain. Either way, pops come out in key order; equal keys
/// within the wheel's horizon in the order they were pushed, in both forms.
#[derive(Debug)]
pub struct EventQueue<E> {
    /// Every pending event while `small`.
    run: SortedRun<E>,
    small: bool,
    buckets: Box<[SortedRun<E>]>,
    /// Bit `i` set iff `buckets[i]` is non-empty.
    occupied: [u64; WHEEL / 64],
    /// Bucket number (`time >> BUCKET_SHIFT`) the wheel starts at: every
    /// wheel event lies in `[base, base + WHEEL)`; `base` never decreases and
    /// never passes the earliest wheel event (it follows the last pop, in
    /// both modes).
    base: u64,
    in_wheel: usize,
    far: Heap<E>,
    seq: u64,
    processed: u64,
}

const BUCKET_SHIFT: u32 = 10;
const WHEEL: usize = 4096;
/// Pending events beyond which the queue moves to the wheel.
const SMALL_MAX: usize = 640;
/// Pending events below which it moves back to one run.
const SMALL_LOW: usize = 256;

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        EventQueue {
            run: SortedRun::default(),
            small: true,
            buckets: (0..WHEEL).map(|_| SortedRun::default()).collect(),
            occupied: [0; WHEEL / 64],
            base: 0,
            in_wheel: 0,
            far: Heap::default(),
            seq: 0,
            processed: 0,
        }
    }

    /// Schedule `payload` at absolute time `at`, after every event already
    /// pushed for that instant.
    #[inline(always)]
    pub fn push(&mut self, at: Ns, payload: E) {
        let rank = FIFO_RANK | self.seq;
        self.seq += 1;
        self.push_ranked(at, rank, payload);
    }

    /// Schedule `payload` at absolute time `at`; among events at `at` it pops
    /// in `rank` order (ranks below `FIFO_RANK`; equal ranks in an order
    /// fixed by the pushes: as pushed, within the wheel's horizon).
    #[inline(always)]
    pub fn push_ranked(&mut self, at: Ns, rank: u64, payload: E) {
        debug_assert!(rank < FIFO_RANK || rank - FIFO_RANK < self.seq);
        let key = ((at as u128) << 64) | rank as u128;
        if self.small {
            self.run.insert(key, payload);
            if self.run.len() > SMALL_MAX {
                self.spread_to_wheel();
            }
        } else {
            self.wheel_push(key, payload);
        }
    }

    #[inline(always)]
    fn wheel_push(&mut self, key: u128, payload: E) {
        let bucket = ((key >> 64) as u64) >> BUCKET_SHIFT;
        if bucket >= self.base && bucket - self.base < WHEEL as u64 {
            let i = bucket as usize & (WHEEL - 1);
            self.buckets[i].insert(key, payload);
            self.occupied[i >> 6] |= 1 << (i & 63);
            self.in_wheel += 1;
        } else {
            self.far.push(key, payload);
        }
    }

    /// Too many pending for one run: every event into the wheel or heap.
    #[cold]
    fn spread_to_wheel(&mut self) {
        self.small = false;
        while let Some((key, payload)) = self.run.pop_front() {
            self.wheel_push(key, payload);
        }
    }

    /// Few left: back to one run, in the order the wheel would pop them.
    #[cold]
    fn gather_to_run(&mut self) {
        while let Some((_, at)) = self.wheel_front() {
            if let Some((key, payload)) = self.wheel_take(at) {
                self.run.insert(key, payload);
            }
        }
        self.small = true;
    }

    /// The first non-empty wheel bucket.
    #[inline]
    fn first_bucket(&self) -> Option<usize> {
        if self.in_wheel == 0 {
            return None;
        }
        let start = self.base as usize & (WHEEL - 1);
        let w0 = start >> 6;
        let m = self.occupied[w0] & (!0u64 << (start & 63));
        if m != 0 {
            return Some((w0 << 6) | m.trailing_zeros() as usize);
        }
        // Wrap around: the words after w0, then w0's low bits.
        for k in 1..=WHEEL / 64 {
            let w = (w0 + k) & (WHEEL / 64 - 1);
            let m = self.occupied[w];
            if m != 0 {
                return Some((w << 6) | m.trailing_zeros() as usize);
            }
        }
        None
    }

    /// In wheel mode: key of the earliest event, and the wheel bucket
    /// holding it (`None` if it is in the far heap).
    #[inline]
    fn wheel_front(&self) -> Option<(u128, Option<usize>)> {
        let far = self.far.peek_key();
        match self.first_bucket() {
            Some(i) => {
                let k = self.buckets[i].front_key();
                match far {
                    Some(f) if f < k => Some((f, None)),
                    _ => Some((k, Some(i))),
                }
            }
            None => far.map(|f| (f, None)),
        }
    }

    /// In wheel mode: remove the front of bucket `at` (or of the far heap).
    #[inline]
    fn wheel_take(&mut self, at: Option<usize>) -> Option<(u128, E)> {
        match at {
            Some(i) => {
                let b = &mut self.buckets[i];
                let e = b.pop_front()?;
                if b.is_empty() {
                    self.occupied[i >> 6] &= !(1 << (i & 63));
                }
                self.in_wheel -= 1;
                Some(e)
            }
            None => self.far.pop(),
        }
    }

    /// Key of the earliest pending event.
    #[inline]
    fn front_key(&self) -> Option<u128> {
        if self.small {
            (!self.run.is_empty()).then(|| self.run.front_key())
        } else {
            self.wheel_front().map(|(k, _)| k)
        }
    }

    /// Book a pop of `key`.
    #[inline]
    fn popped(&mut self, key: u128) {
        self.base = self.base.max(((key >> 64) as u64) >> BUCKET_SHIFT);
        self.processed += 1;
        if !self.small && self.in_wheel + self.far.heap.len() < SMALL_LOW {
            self.gather_to_run();
        }
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Ns> {
        self.front_key().map(|k| (k >> 64) as Ns)
    }

    /// Pop the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        let (key, payload) = if self.small {
            self.run.pop_front()?
        } else {
            let (_, at) = self.wheel_front()?;
            self.wheel_take(at)?
        };
        self.popped(key);
        Some(((key >> 64) as Ns, payload))
    }

    /// Pop the earliest event only if it is at time `t`, which must not
    /// be before the last pop's (the driver drains the instant it just
    /// popped). The wheel then starts at `t`'s bucket, so the earliest wheel
    /// event, if it is at `t`, is the front of that bucket: no scan for the
    /// first non-empty bucket.
    #[inline]
    pub fn pop_at(&mut self, t: Ns) -> Option<E> {
        debug_assert!(self.base >= t >> BUCKET_SHIFT, "pop_at before the last pop");
        let (key, payload) = if self.small {
            if self.run.is_empty() || (self.run.front_key() >> 64) as Ns != t {
                return None;
            }
            self.run.pop_front()?
        } else {
            let i = (t >> BUCKET_SHIFT) as usize & (WHEEL - 1);
            let wheel = self.buckets[i].front_key();
            let far = self.far.peek_key().unwrap_or(u128::MAX);
            let (key, at) = if wheel < far {
                (wheel, Some(i))
            } else {
                (far, None)
            };
            if key == u128::MAX || (key >> 64) as Ns != t {
                return None;
            }
            self.wheel_take(at)?
        };
        self.popped(key);
        Some(payload)
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.run.len() + self.in_wheel + self.far.heap.len()
    }

    /// No event pending.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }
}

/// 4-ary implicit min-heap of `(key, payload)`: the far events.
#[derive(Debug)]
struct Heap<E> {
    heap: Vec<(u128, E)>,
}

impl<E> Default for Heap<E> {
    fn default() -> Self {
        Heap { heap: Vec::new() }
    }
}

const ARITY: usize = 4;

impl<E> Heap<E> {
    fn push(&mut self, key: u128, payload: E) {
        self.heap.push((key, payload));
        let mut i = self.heap.len() - 1;
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if self.heap[parent].0 <= key {
                break;
            }
            self.heap.swap(i, parent);
            i = parent;
        }
    }

    #[inline]
    fn peek_key(&self) -> Option<u128> {
        self.heap.first().map(|e| e.0)
    }

    fn pop(&mut self) -> Option<(u128, E)> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let top = self.heap.swap_remove(0);
        let n = n - 1;
        if n > 1 {
            let moved = self.heap[0].0;
            let mut i = 0;
            loop {
                let first = i * ARITY + 1;
                if first >= n {
                    break;
                }
                let last = (first + ARITY).min(n);
                let mut best = first;
                let mut best_key = self.heap[first].0;
                for c in first + 1..last {
                    let k = self.heap[c].0;
                    if k < best_key {
                        best = c;
                        best_key = k;
                    }
                }
                if best_key >= moved {
                    break;
                }
                self.heap.swap(i, best);
                i = best;
            }
        }
        Some(top)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_fifo() {
        let mut q = EventQueue::new();
        q.push(10, "c");
        q.push(5, "a");
        q.push(10, "d");
        q.push(5, "b");
        q.push(u64::MAX, "z");
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![(5, "a"), (5, "b"), (10, "c"), (10, "d"), (u64::MAX, "z")]
        );
        assert_eq!(q.processed(), 5);
    }

    #[test]
    fn every_pop_is_the_minimum_of_a_reference_set() {
        use std::collections::BTreeSet;
        let mut rng = crate::rng::Rng::new(5);
        let mut q = EventQueue::new();
        // Reference keyed like the queue: (time, insertion number).
        let mut reference = BTreeSet::new();
        let mut inserted = 0u64;
        for _ in 0..50_000 {
            if rng.below(5) < 3 {
                let t = rng.below(300);
                q.push(t, inserted);
                reference.insert((t, inserted));
                inserted += 1;
            } else {
                let expected = reference.pop_first();
                assert_eq!(q.pop(), expected);
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(expected) = reference.pop_first() {
            assert_eq!(q.pop(), Some(expected));
        }
        assert!(q.is_empty());
    }

    /// Like the simulator: pushes at or after the last pop, spread from the
    /// same instant to far beyond the wheel's horizon, with many ties, half of
    /// them ranked and half FIFO; plus a few pushes into the past, which must
    /// still pop first.
    #[test]
    fn wheel_and_far_heap_pop_in_key_order() {
        use std::collections::BTreeSet;
        let mut rng = crate::rng::Rng::new(11);
        let mut q = EventQueue::new();
        let mut reference = BTreeSet::new();
        let (mut now, mut inserted, mut fifo) = (0u64, 0u64, 0u64);
        let horizon = (WHEEL as u64) << BUCKET_SHIFT;
        for _ in 0..200_000 {
            if rng.below(100) < 55 {
                let at = match rng.below(10) {
                    0 => now,
                    1..=4 => now + 1_000 * rng.below(80),
                    5..=7 => now + rng.below(horizon),
                    8 => now + horizon - 1 + rng.below(3),
                    _ => {
                        if rng.below(20) == 0 {
                            now.saturating_sub(rng.below(horizon * 2))
                        } else {
                            now + rng.below(horizon * 50)
                        }
                    }
                };
                // The payload is the rank the event should sort by.
                let rank = if rng.below(2) == 0 {
                    let r = rng.below(4) << 40 | inserted;
                    q.push_ranked(at, r, r);
                    r
                } else {
                    q.push(at, FIFO_RANK | fifo);
                    fifo += 1;
                    FIFO_RANK | (fifo - 1)
                };
                reference.insert((at, rank));
                inserted += 1;
            } else {
                let expected = reference.pop_first();
                assert_eq!(q.peek_time(), expected.map(|e| e.0));
                let got = q.pop();
                assert_eq!(got, expected);
                if let Some((t, _)) = got {
                    now = now.max(t);
                    // Drain the instant as the driver does, half the time.
                    while rng.below(2) == 0 {
                        let same = reference.first().filter(|e| e.0 == t).copied();
                        assert_eq!(q.pop_at(t), same.map(|e| e.1));
                        match same {
                            Some(e) => reference.remove(&e),
                            None => break,
                        };
                    }
                }
            }
            assert_eq!(q.len(), reference.len());
        }
        while let Some(expected) = reference.pop_first() {
            assert_eq!(q.pop(), Some(expected));
        }
        assert!(q.is_empty());
        assert_eq!(q.pop(), None);
    }

    /// Pending counts that swing across both thresholds, so the queue moves
    /// between one run and the wheel many times, with instants drained by
    /// `pop_at` as the driver does.
    #[test]
    fn order_holds_across_moves_between_run_and_wheel() {
        use std::collections::BTreeSet;
        let mut rng = crate::rng::Rng::new(23);
        let mut q = EventQueue::new();
        let mut reference = BTreeSet::new();
        let (mut now, mut moves, mut was_small) = (0u64, 0, true);
        for step in 0..300_000u64 {
            // Grow for a while, then shrink: 0 .. ~800 pending, across
            // SMALL_MAX and back below SMALL_LOW.
            let grow = (step / 2_000) % 2 == 0;
            if rng.below(100) < if grow { 70 } else { 30 } {
                let at = now + rng.below(8_000_000);
                let rank = rng.below(8) << 40 | step;
                q.push_ranked(at, rank, rank);
                reference.insert((at, rank));
            } else if let Some(expected) = reference.pop_first() {
                assert_eq!(q.pop(), Some(expected));
                now = expected.0;
                while let Some(&e) = reference.first().filter(|e| e.0 == now) {
                    assert_eq!(q.pop_at(now), Some(e.1));
                    reference.remove(&e);
                }
                assert_eq!(q.pop_at(now), None);
            }
            assert_eq!(q.len(), reference.len());
            moves += (q.small != was_small) as u32;
            was_small = q.small;
        }
        assert!(moves > 20, "only {moves} moves between run and wheel");
    }

    #[test]
    fn equal_keys_near_now_pop_in_push_order_in_either_form() {
        let mut q = EventQueue::new();
        for i in 0..SMALL_MAX as u64 + 50 {
            q.push_ranked(1_000 + (i % 3) * 2_000_000, 7, i);
        }
        assert!(!q.small);
        let mut last = [None::<u64>; 3];
        while let Some((t, i)) = q.pop() {
            let k = ((t - 1_000) / 2_000_000) as usize;
            assert!(last[k].is_none_or(|p| p < i), "{i} after {last:?}");
            last[k] = Some(i);
        }
        assert!(q.small);
    }

    #[test]
    fn ranked_events_pop_by_rank_before_fifo_ones() {
        let mut q = EventQueue::new();
        q.push(7, "fifo-1");
        q.push_ranked(7, 5, "rank-5");
        q.push(7, "fifo-2");
        q.push_ranked(7, 2, "rank-2");
        q.push_ranked(6, 9, "earlier");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|e| e.1)).collect();
        assert_eq!(order, ["earlier", "rank-2", "rank-5", "fifo-1", "fifo-2"]);
    }

    #[test]
    fn pop_at_only_takes_that_instant() {
        let mut q = EventQueue::new();
        q.push(3, 1);
        q.push(4, 2);
        assert_eq!(q.pop_at(4), None);
        assert_eq!(q.pop_at(3), Some(1));
        assert_eq!(q.pop_at(3), None);
        assert_eq!(q.peek_time(), Some(4));
    }
}
