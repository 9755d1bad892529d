//! Discrete-event engine: integer-nanosecond time and a priority queue with
//! FIFO order among equal timestamps (a sequence number breaks ties), so a run
//! is a pure function of its inputs.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Simulated time in nanoseconds.
pub type Ns = u64;

pub const NS_PER_US: Ns = 1_000;
pub const NS_PER_MS: Ns = 1_000_000;
pub const NS_PER_S: Ns = 1_000_000_000;

/// Min-queue of `(time, payload)`; equal times pop in insertion order.
#[derive(Debug)]
pub struct EventQueue<E> {
    heap: BinaryHeap<Reverse<Entry<E>>>,
    seq: u64,
    processed: u64,
}

#[derive(Debug)]
struct Entry<E> {
    key: u128, // time << 64 | seq: one integer compare per heap step
    payload: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl<E> Ord for Entry<E> {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            heap: BinaryHeap::with_capacity(1024),
            seq: 0,
            processed: 0,
        }
    }

    /// Schedule `payload` at absolute time `at`.
    #[inline]
    pub fn push(&mut self, at: Ns, payload: E) {
        let key = ((at as u128) << 64) | self.seq as u128;
        self.seq += 1;
        self.heap.push(Reverse(Entry { key, payload }));
    }

    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Ns> {
        self.heap.peek().map(|Reverse(e)| (e.key >> 64) as Ns)
    }

    /// Pop the earliest event.
    #[inline]
    pub fn pop(&mut self) -> Option<(Ns, E)> {
        self.heap.pop().map(|Reverse(e)| {
            self.processed += 1;
            ((e.key >> 64) as Ns, e.payload)
        })
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
