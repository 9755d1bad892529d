//! The event queue: `(time, rank)`-ordered, a timing wheel for the near
//! future and a heap beyond it.

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
/// Flash events fall within a few milliseconds of now, so most live in a
/// timing wheel: `WHEEL` buckets of `2^BUCKET_SHIFT` ns, each kept sorted by
/// key, with a bitmap of the non-empty ones. A push is a bucket append (events
/// usually arrive in key order within a bucket) and a pop takes the front of
/// the first non-empty bucket: no sift through a heap whose comparisons a CPU
/// cannot predict. Events beyond the wheel's horizon (host timers, sparse
/// arrivals, long erases) go to a 4-ary heap; a pop takes the smaller of the
/// two fronts, so the order is exactly the heap's alone.
#[derive(Debug)]
pub struct EventQueue<E> {
    buckets: Box<[Bucket<E>]>,
    /// Bit `i` set iff `buckets[i]` is non-empty.
    occupied: [u64; WHEEL / 64],
    /// Bucket number (`time >> BUCKET_SHIFT`) the wheel starts at: every
    /// wheel event lies in `[base, base + WHEEL)`; `base` never decreases and
    /// never passes the earliest wheel event.
    base: u64,
    in_wheel: usize,
    far: Heap<E>,
    seq: u64,
    processed: u64,
}

const BUCKET_SHIFT: u32 = 10;
const WHEEL: usize = 4096;

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E: Copy> EventQueue<E> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        EventQueue {
            buckets: (0..WHEEL).map(|_| Bucket::default()).collect(),
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
    /// in `rank` order (ranks below `FIFO_RANK`; equal ranks in any order).
    #[inline(always)]
    pub fn push_ranked(&mut self, at: Ns, rank: u64, payload: E) {
        debug_assert!(rank < FIFO_RANK || rank - FIFO_RANK < self.seq);
        let key = ((at as u128) << 64) | rank as u128;
        let bucket = at >> BUCKET_SHIFT;
        if bucket >= self.base && bucket - self.base < WHEEL as u64 {
            let i = bucket as usize & (WHEEL - 1);
            self.buckets[i].insert(key, payload);
            self.occupied[i >> 6] |= 1 << (i & 63);
            self.in_wheel += 1;
        } else {
            self.far.push(key, payload);
        }
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

    /// Key of the earliest event, and the wheel bucket holding it (`None` if
    /// it is in the far heap).
    #[inline]
    fn front(&self) -> Option<(u128, Option<usize>)> {
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

    #[inline]
    fn take(&mut self, at: Option<usize>) -> Option<(u128, E)> {
        let (key, payload) = match at {
            Some(i) => {
                let b = &mut self.buckets[i];
                let e = b.pop_front()?;
                if b.is_empty() {
                    self.occupied[i >> 6] &= !(1 << (i & 63));
                }
                self.in_wheel -= 1;
                e
            }
            None => self.far.pop()?,
        };
        self.base = self.base.max(((key >> 64) as u64) >> BUCKET_SHIFT);
        self.processed += 1;
        Some((key, payload))
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Ns> {
        self.front().map(|(k, _)| (k >> 64) as Ns)
    }

    /// Pop the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        let (_, at) = self.front()?;
        self.take(at).map(|(k, e)| ((k >> 64) as Ns, e))
    }

    /// Pop the earliest event only if it is at time `t`, which must not
    /// be before the last pop's (the driver drains the instant it just
    /// popped). The wheel then starts at `t`'s bucket, so the earliest wheel
    /// event, if it is at `t`, is the front of that bucket: no scan for the
    /// first non-empty bucket.
    #[inline]
    pub fn pop_at(&mut self, t: Ns) -> Option<E> {
        debug_assert!(self.base >= t >> BUCKET_SHIFT, "pop_at before the last pop");
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
        self.take(at).map(|(_, e)| e)
    }

    /// Events pending.
    pub fn len(&self) -> usize {
        self.in_wheel + self.far.heap.len()
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

/// One wheel bucket: events sorted by key, consumed from `head`.
#[derive(Debug)]
struct Bucket<E> {
    items: Vec<(u128, E)>,
    head: usize,
}

impl<E> Default for Bucket<E> {
    fn default() -> Self {
        Bucket {
            items: Vec::new(),
            head: 0,
        }
    }
}

impl<E> Bucket<E> {
    #[inline(always)]
    fn insert(&mut self, key: u128, payload: E) {
        // Events are mostly pushed in time order, so the new one usually
        // goes last (an empty bucket's stale `items` are cleared on its last
        // pop).
        match self.items.last() {
            Some(last) if last.0 > key => self.insert_before_end(key, payload),
            _ => self.items.push((key, payload)),
        }
    }

    /// Out of order: rarely more than a place or two from the end.
    #[inline(never)]
    fn insert_before_end(&mut self, key: u128, payload: E) {
        let mut pos = self.items.len() - 1;
        while pos > self.head && self.items[pos - 1].0 > key {
            pos -= 1;
        }
        self.items.insert(pos, (key, payload));
    }

    #[inline]
    fn front_key(&self) -> u128 {
        self.items.get(self.head).map_or(u128::MAX, |e| e.0)
    }

    #[inline]
    fn is_empty(&self) -> bool {
        self.head == self.items.len()
    }

    #[inline]
    fn pop_front(&mut self) -> Option<(u128, E)>
    where
        E: Copy,
    {
        let e = *self.items.get(self.head)?;
        self.head += 1;
        if self.head == self.items.len() {
            self.items.clear();
            self.head = 0;
        }
        Some(e)
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
