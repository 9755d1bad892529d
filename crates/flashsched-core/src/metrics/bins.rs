//! Sparse per-bin series over simulated time: only bins that received
//! something are stored, as (bin index, value) in index order. Idle time
//! costs nothing, so a trace with a years-long gap (a stray zero timestamp,
//! `--intensity 1e-9`) needs memory for the bins it fills, not for its span.
//!
//! Values arrive in (nearly) time order: appending to the last bin or
//! opening a later one is O(1); an earlier bin is found by binary search
//! (and inserted if new, which moves the bins after it; rare by the above).

/// Per-bin values, stored for non-empty bins only.
#[derive(Debug, Clone, PartialEq)]
pub struct SparseBins<T> {
    bins: Vec<u64>,
    vals: Vec<T>,
}

impl<T> Default for SparseBins<T> {
    fn default() -> Self {
        SparseBins {
            bins: Vec::new(),
            vals: Vec::new(),
        }
    }
}

impl<T: Default> SparseBins<T> {
    /// The value of `bin`, created (as `T::default()`) if absent.
    #[inline]
    pub fn at(&mut self, bin: u64) -> &mut T {
        let n = self.bins.len();
        match self.bins.last() {
            Some(&last) if last == bin => return &mut self.vals[n - 1],
            Some(&last) if last > bin => {
                let i = match self.bins.binary_search(&bin) {
                    Ok(i) => i,
                    Err(i) => {
                        self.bins.insert(i, bin);
                        self.vals.insert(i, T::default());
                        i
                    }
                };
                return &mut self.vals[i];
            }
            _ => {}
        }
        self.bins.push(bin);
        self.vals.push(T::default());
        &mut self.vals[n]
    }
}

impl<T> SparseBins<T> {
    /// Number of non-empty bins.
    pub fn len(&self) -> usize {
        self.bins.len()
    }

    /// No bin holds anything.
    pub fn is_empty(&self) -> bool {
        self.bins.is_empty()
    }

    /// Indices of the non-empty bins, ascending.
    pub fn bins(&self) -> &[u64] {
        &self.bins
    }

    /// Values of the non-empty bins, in the order of [`bins`](Self::bins).
    pub fn values(&self) -> &[T] {
        &self.vals
    }

    /// The value of `bin`, if it received anything.
    pub fn get(&self, bin: u64) -> Option<&T> {
        self.bins.binary_search(&bin).ok().map(|i| &self.vals[i])
    }

    /// (bin, value) pairs, ascending by bin.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &T)> + '_ {
        self.bins.iter().copied().zip(self.vals.iter())
    }

    /// Bytes held (for memory accounting).
    pub fn heap_bytes(&self) -> usize {
        self.bins.capacity() * 8 + self.vals.capacity() * std::mem::size_of::<T>()
    }
}

/// A value sampled at the end of every bin, stored as change points: bin
/// `b`'s value is that of the last change point at or before `b` (before
/// the first one: the initial value).
#[derive(Debug, Clone, PartialEq)]
pub struct StepSeries<T> {
    initial: T,
    changes: Vec<(u64, T)>,
}

impl<T: Default> Default for StepSeries<T> {
    fn default() -> Self {
        StepSeries::starting_at(T::default())
    }
}

impl<T> StepSeries<T> {
    /// A series that holds `initial` until its first change.
    pub fn starting_at(initial: T) -> Self {
        StepSeries {
            initial,
            changes: Vec::new(),
        }
    }
}

impl<T: Copy + PartialEq> StepSeries<T> {
    /// The value is `v` from `bin` on (`bin` at or after the last change).
    pub fn set_from(&mut self, bin: u64, v: T) {
        match self.changes.last_mut() {
            Some(&mut (_, last)) if last == v => {}
            Some(last) if last.0 == bin => last.1 = v,
            None if v == self.initial => {}
            _ => self.changes.push((bin, v)),
        }
    }

    /// The value at the end of `bin`.
    pub fn at(&self, bin: u64) -> T {
        match self.changes.partition_point(|c| c.0 <= bin) {
            0 => self.initial,
            i => self.changes[i - 1].1,
        }
    }

    /// Bins where the value changed, ascending.
    pub fn change_bins(&self) -> impl Iterator<Item = u64> + '_ {
        self.changes.iter().map(|c| c.0)
    }
}

/// The union of ascending bin lists, ascending and without duplicates.
pub fn union_bins<'a>(lists: impl IntoIterator<Item = &'a [u64]>) -> Vec<u64> {
    let mut all: Vec<u64> = lists.into_iter().flatten().copied().collect();
    all.sort_unstable();
    all.dedup();
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_only_filled_bins_in_order() {
        let mut s = SparseBins::<u64>::default();
        *s.at(5) += 1;
        *s.at(5) += 2;
        *s.at(1 << 40) += 7; // a gap of 10^12 bins costs one entry
        *s.at(3) += 4; // earlier bin: inserted in order
        *s.at(5) += 1;
        assert_eq!(s.bins(), &[3, 5, 1 << 40]);
        assert_eq!(s.values(), &[4, 4, 7]);
        assert_eq!(s.get(5), Some(&4));
        assert_eq!(s.get(6), None);
        assert!(s.heap_bytes() < 1000);
    }

    #[test]
    fn step_series_keeps_change_points() {
        let mut s = StepSeries::<u64>::default();
        s.set_from(0, 0); // the default: nothing stored
        s.set_from(2, 3);
        s.set_from(4, 3); // unchanged
        s.set_from(9, 5);
        s.set_from(9, 6); // same bin: replaced
        assert_eq!(s.change_bins().collect::<Vec<_>>(), vec![2, 9]);
        let at: Vec<u64> = (0..11).map(|b| s.at(b)).collect();
        assert_eq!(at, vec![0, 0, 3, 3, 3, 3, 3, 3, 3, 6, 6]);
        assert_eq!(s.at(u64::MAX), 6);
        let mut f = StepSeries::starting_at(-1i32);
        f.set_from(0, -1);
        f.set_from(3, 0);
        assert_eq!((f.at(2), f.at(3)), (-1, 0));
    }

    #[test]
    fn union_is_sorted_and_unique() {
        let a = [1u64, 4, 9];
        let b = [0u64, 4, 10];
        assert_eq!(union_bins([&a[..], &b[..]]), vec![0, 1, 4, 9, 10]);
    }
}
