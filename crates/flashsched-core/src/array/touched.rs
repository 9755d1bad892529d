//! The SSDs that may have something to report or decide at this instant.
//!
//! An SSD's state changes only when one of its events is handled or the
//! array gives it work; the decide phase visits just those SSDs instead of
//! asking all of them at every instant (with 16 SSDs the asking alone cost
//! more than the SSDs' own work). Visits go in ascending SSD order and see
//! SSDs marked during the pass, exactly as a full ascending scan would.

/// A set of SSD indices, iterated in ascending order.
#[derive(Debug, Clone)]
pub(super) struct Touched {
    words: Vec<u64>,
}

impl Touched {
    /// Every one of `n` SSDs marked (a fresh array is decided once in full).
    pub(super) fn all(n: usize) -> Touched {
        let mut words = vec![u64::MAX; n.div_ceil(64)];
        if !n.is_multiple_of(64) {
            if let Some(last) = words.last_mut() {
                *last = (1u64 << (n % 64)) - 1;
            }
        }
        Touched { words }
    }

    #[inline]
    pub(super) fn mark(&mut self, i: u32) {
        self.words[(i / 64) as usize] |= 1 << (i % 64);
    }

    #[inline]
    pub(super) fn unmark(&mut self, i: u32) {
        self.words[(i / 64) as usize] &= !(1 << (i % 64));
    }

    /// The smallest marked index ≥ `from`.
    #[inline]
    pub(super) fn next_from(&self, from: u32) -> Option<u32> {
        let mut w = (from / 64) as usize;
        let mut bits = *self.words.get(w)? & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return Some(w as u32 * 64 + bits.trailing_zeros());
            }
            w += 1;
            bits = *self.words.get(w)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visits_in_ascending_order_and_sees_later_marks() {
        let mut t = Touched::all(130);
        for i in 0..130 {
            if i % 7 != 0 {
                t.unmark(i);
            }
        }
        let mut seen = vec![];
        let mut at = 0;
        while let Some(i) = t.next_from(at) {
            seen.push(i);
            if i == 14 {
                t.mark(100); // marked during the pass, above the cursor: visited
                t.mark(3); // below it: left for the next pass
            }
            at = i + 1;
        }
        assert_eq!(
            seen,
            vec![0, 7, 14, 21, 28, 35, 42, 49, 56, 63, 70, 77, 84, 91, 98, 100, 105, 112, 119, 126]
        );
        assert_eq!(t.next_from(0), Some(0));
        assert_eq!(t.next_from(1), Some(3));
        assert_eq!(t.next_from(127), None);
    }

    #[test]
    fn all_marks_exactly_n() {
        let t = Touched::all(65);
        assert_eq!(t.next_from(64), Some(64));
        assert_eq!(t.next_from(65), None);
        assert_eq!(Touched::all(64).next_from(63), Some(63));
        assert_eq!(Touched::all(64).next_from(64), None);
    }
}
