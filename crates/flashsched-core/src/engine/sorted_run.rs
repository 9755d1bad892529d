//! A short run of events sorted by key, consumed from the front: a timing
//! wheel bucket, and the whole queue while few events are pending.

/// Events sorted by key (equal keys in insertion order), consumed from
/// `head`; the consumed prefix is dropped when the run empties, or moved
/// out when it outgrows what is left.
#[derive(Debug)]
pub(super) struct SortedRun<E> {
    items: Vec<(u128, E)>,
    head: usize,
}

impl<E> Default for SortedRun<E> {
    fn default() -> Self {
        SortedRun {
            items: Vec::new(),
            head: 0,
        }
    }
}

impl<E: Copy> SortedRun<E> {
    #[inline(always)]
    pub(super) fn insert(&mut self, key: u128, payload: E) {
        // Mostly in key order: the new event goes last.
        match self.items.last() {
            Some(last) if last.0 > key => self.insert_before_end(key, payload),
            _ => self.items.push((key, payload)),
        }
    }

    /// After every event with a key at most `key` (so equal keys pop in
    /// the order they came): the later events move up one place, from the
    /// end (a run is short, and a new event is rarely far from its end).
    #[inline(never)]
    fn insert_before_end(&mut self, key: u128, payload: E) {
        let n = self.items.len();
        self.items.push(self.items[n - 1]);
        let mut j = n - 1;
        while j > self.head && self.items[j - 1].0 > key {
            self.items[j] = self.items[j - 1];
            j -= 1;
        }
        self.items[j] = (key, payload);
    }

    /// The least key (`u128::MAX` when empty).
    #[inline]
    pub(super) fn front_key(&self) -> u128 {
        self.items.get(self.head).map_or(u128::MAX, |e| e.0)
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.head == self.items.len()
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.items.len() - self.head
    }

    #[inline]
    pub(super) fn pop_front(&mut self) -> Option<(u128, E)> {
        let e = *self.items.get(self.head)?;
        self.head += 1;
        if self.head == self.items.len() {
            self.items.clear();
            self.head = 0;
        } else if self.head >= 64 && self.head >= self.len() {
            // A run that never empties would grow without end.
            self.items.drain(..self.head);
            self.head = 0;
        }
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_pop_in_order_and_equal_keys_in_arrival_order() {
        let mut r = SortedRun::default();
        for (k, p) in [
            (5u128, 'a'),
            (3, 'b'),
            (5, 'c'),
            (9, 'd'),
            (1, 'e'),
            (5, 'f'),
        ] {
            r.insert(k, p);
        }
        assert_eq!(r.len(), 6);
        let order: Vec<char> = std::iter::from_fn(|| r.pop_front().map(|e| e.1)).collect();
        assert_eq!(order, ['e', 'b', 'a', 'c', 'f', 'd']);
        assert!(r.is_empty() && r.front_key() == u128::MAX);
    }

    #[test]
    fn a_run_that_never_empties_stays_small() {
        let mut r = SortedRun::default();
        for k in 0..10u128 {
            r.insert(k, k);
        }
        for k in 10..100_000u128 {
            r.insert(k, k);
            assert_eq!(r.pop_front(), Some((k - 10, k - 10)));
            assert!(
                r.items.len() <= 2 * 64 + 10,
                "{} held for 10 live",
                r.items.len()
            );
        }
        assert_eq!(r.len(), 10);
    }
}
