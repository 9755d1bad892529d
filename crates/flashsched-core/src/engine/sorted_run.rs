//! A short run of events sorted by key, consumed from the front: a timing
//! wheel bucket, and the whole queue while few events are pending.

/// Events sorted by key, stored latest first: the next event to pop is the
/// last element (equal keys pop in the order they came, so among them the
/// earliest pushed is nearest the end).
///
/// Latest first because of where events land: a new event is usually due
/// before most of those pending (a quarter of them before all of them).
/// Measured on the MQSim trace (~13 pending), an insertion had ~9.5 events
/// after it but only ~3 before: stored earliest first, each insertion
/// moved ~9.5 events; stored this way ~3, and a new earliest event is a
/// plain push (BENCHMARKS.md, session 43).
///
/// The other common landing place is after every pending event: a
/// program's or an erase's end, the workload's next arrival. Such an
/// event would move all the others along, so the live events sit at the
/// end of the buffer (`buf[lo..]`) with free slots before them, and a new
/// latest event takes the slot before the first (BENCHMARKS.md, session
/// 54).
#[derive(Debug)]
pub(super) struct SortedRun<E> {
    buf: Vec<(u128, E)>,
    /// Where the live events start: `buf[..lo]` are free slots.
    lo: usize,
}

/// Events nearest the end (due next) an insertion looks through one by one
/// before it bisects the run.
const NEAR: usize = 8;

impl<E> Default for SortedRun<E> {
    fn default() -> Self {
        SortedRun {
            buf: Vec::new(),
            lo: 0,
        }
    }
}

impl<E: Copy> SortedRun<E> {
    #[inline(always)]
    pub(super) fn insert(&mut self, key: u128, payload: E) {
        let n = self.buf.len();
        if n > self.lo && self.buf[n - 1].0 <= key {
            self.insert_after_next(key, payload);
        } else {
            // Due before every pending event: it pops next.
            self.buf.push((key, payload));
        }
    }

    /// Before (nearer the start than) every event with a key at most `key`,
    /// so it pops after them: in the free slot before the first event when
    /// it is due after all of them, else in the middle, where the events on
    /// the shorter side move one place (towards the end, or into a free
    /// slot before the first).
    #[inline(never)]
    fn insert_after_next(&mut self, key: u128, payload: E) {
        if self.buf[self.lo].0 <= key {
            if self.lo == 0 {
                self.make_room();
            }
            self.lo -= 1;
            self.buf[self.lo] = (key, payload);
            return;
        }
        let (lo, n) = (self.lo, self.buf.len());
        // The place: the first event due at or before `key` (one exists, at
        // the end; `buf[lo]` is due after it). Most new events land among
        // the few due next: those are looked at one by one, from the end.
        let p = if n - lo <= NEAR || self.buf[n - NEAR].0 > key {
            let mut j = n - 1;
            while self.buf[j - 1].0 <= key {
                j -= 1;
            }
            j
        } else {
            lo + self.buf[lo..n].partition_point(|e| e.0 > key)
        };
        if lo > 0 && p - lo < n - p {
            self.buf.copy_within(lo..p, lo - 1);
            self.lo -= 1;
            self.buf[p - 1] = (key, payload);
        } else {
            self.buf.push(self.buf[n - 1]);
            self.buf.copy_within(p..n - 1, p + 1);
            self.buf[p] = (key, payload);
        }
    }

    /// Free slots before the first event, as many as there are events (at
    /// least 4): the events move once for that many new latest events.
    #[cold]
    fn make_room(&mut self) {
        let n = self.buf.len();
        let room = n.max(4);
        let fill = self.buf[0];
        self.buf.resize(n + room, fill);
        self.buf.copy_within(0..n, room);
        self.lo = room;
    }

    /// The least key (`u128::MAX` when empty).
    #[inline]
    pub(super) fn front_key(&self) -> u128 {
        if self.buf.len() > self.lo {
            self.buf[self.buf.len() - 1].0
        } else {
            u128::MAX
        }
    }

    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.buf.len() == self.lo
    }

    #[inline]
    pub(super) fn len(&self) -> usize {
        self.buf.len() - self.lo
    }

    #[inline]
    pub(super) fn pop_front(&mut self) -> Option<(u128, E)> {
        if self.buf.len() == self.lo {
            return None;
        }
        // Emptied, the run keeps its free slots for the next latest events.
        self.buf.pop()
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
            assert_eq!(r.len(), 10);
            assert!(r.buf.len() <= 2 * 10 + 4, "free slots stay bounded");
        }
        assert_eq!(r.len(), 10);
    }

    #[test]
    fn runs_that_empty_and_refill_latest_first_reuse_their_free_slots() {
        let mut r = SortedRun::default();
        for round in 0..1_000u128 {
            // Each event due after all the others: the free slots' case.
            for k in 0..7u128 {
                r.insert(round * 10 + k, k);
            }
            for k in 0..7u128 {
                assert_eq!(r.pop_front(), Some((round * 10 + k, k)));
            }
            assert!(r.is_empty() && r.front_key() == u128::MAX);
            assert!(r.buf.len() <= 2 * 7 + 4, "free slots stay bounded");
        }
    }

    /// Against a stable sort, on keys drawn so that ties, new earliest
    /// events and new latest events all happen, pops interleaved; the run
    /// grows to thousands of events, so insertions land in its middle,
    /// nearer either end (keys spread over 8 values: ties everywhere; over
    /// 2^20: few).
    #[test]
    fn matches_a_stable_sort_with_interleaved_pops() {
        for spread in [8u64, 1 << 20] {
            let mut r = SortedRun::default();
            let mut reference: Vec<(u128, u32)> = Vec::new();
            let mut x = 12345u64;
            let mut now = 0u128;
            for i in 0..20_000u32 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if x >> 62 == 0 && !reference.is_empty() {
                    let want = reference.remove(0);
                    assert_eq!(r.pop_front(), Some(want));
                    now = want.0;
                } else {
                    let key = now + ((x >> 33) % spread) as u128;
                    r.insert(key, i);
                    // After every pending event with a key at most `key`.
                    let at = reference.partition_point(|e| e.0 <= key);
                    reference.insert(at, (key, i));
                }
                assert_eq!(r.front_key(), reference.first().map_or(u128::MAX, |e| e.0));
            }
            assert!(r.len() > 5_000, "the run stayed short");
            while let Some(want) = (!reference.is_empty()).then(|| reference.remove(0)) {
                assert_eq!(r.pop_front(), Some(want));
            }
            assert!(r.is_empty());
        }
    }
}
