//! Discrete-event engine: integer-nanosecond time and a priority queue with
//! FIFO order among equal timestamps (a sequence number breaks ties), so a run
//! is a pure function of its inputs.

/// Simulated time in nanoseconds.
pub type Ns = u64;

pub const NS_PER_US: Ns = 1_000;
pub const NS_PER_MS: Ns = 1_000_000;
pub const NS_PER_S: Ns = 1_000_000_000;

/// Min-queue of `(time, payload)`; equal times pop in insertion order.
///
/// A 4-ary implicit heap keyed by one `u128` (`time << 64 | seq`): shallower
/// than a binary heap and its four children share a cache line or two, which
/// matters because every flash operation costs one push and one pop.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: Vec<(u128, E)>,
    seq: u64,
    processed: u64,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

const ARITY: usize = 4;

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: Vec::with_capacity(1024),
            seq: 0,
            processed: 0,
        }
    }

    /// Schedule `payload` at absolute time `at`.
    #[inline]
    pub fn push(&mut self, at: Ns, payload: E) {
        let key = ((at as u128) << 64) | self.seq as u128;
        self.seq += 1;
        self.heap.push((key, payload));
        // Sift up.
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

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Ns> {
        self.heap.first().map(|e| (e.0 >> 64) as Ns)
    }

    /// Pop the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        let n = self.heap.len();
        if n == 0 {
            return None;
        }
        let (key, payload) = self.heap.swap_remove(0);
        let n = n - 1;
        if n > 1 {
            // Sift the moved last element down.
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
        self.processed += 1;
        Some(((key >> 64) as Ns, payload))
    }

    /// Pop the earliest event only if it is at time `t`.
    #[inline]
    pub fn pop_at(&mut self, t: Ns) -> Option<E> {
        if self.peek_time() == Some(t) {
            self.pop().map(|(_, e)| e)
        } else {
            None
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
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
