//! A map from logical page to a small index (`u32 → u32`), open-addressed
//! with linear probing, for tables looked up at random on every request
//! (the cached mapping table's index, `mapping.rs`).
//!
//! Why not a general hash map: the simulator knows which pages the next
//! request will touch before it arrives, and a lookup here is one cache
//! line whose address is a function of the key alone, so it can be fetched
//! ahead of time (`prefetch`); a general map hides where a key lives. On
//! the 1M-request trace with MQSim's 2 MiB mapping cache the index's loads
//! were a fifth of the run's time, nearly all waiting on memory.
//!
//! Removal shifts later entries of the probe run back (no tombstones), so
//! lookups stay short however many entries come and go.

use crate::engine::prefetch;

/// Key of an empty bucket (no logical page has it).
const EMPTY: u32 = u32::MAX;
/// Buckets of a fresh index (grows by doubling, kept at most half full).
const MIN_BUCKETS: usize = 16;

#[derive(Debug, Clone)]
pub(crate) struct LpnIndex {
    /// (key, value) pairs; `EMPTY` keys are free.
    buckets: Vec<(u32, u32)>,
    /// 32 − log2(buckets): a key's home bucket is its Fibonacci hash's
    /// top bits.
    shift: u32,
    len: usize,
}

impl Default for LpnIndex {
    fn default() -> Self {
        LpnIndex {
            buckets: vec![(EMPTY, 0); MIN_BUCKETS],
            shift: 32 - MIN_BUCKETS.trailing_zeros(),
            len: 0,
        }
    }
}

impl LpnIndex {
    /// Bytes an index of `entries` keys holds at most (its buckets at the
    /// half-full limit, rounded up to a power of two).
    pub(crate) fn footprint(entries: u64) -> u64 {
        (entries * 2).next_power_of_two().max(MIN_BUCKETS as u64) * 8
    }

    #[inline]
    fn mask(&self) -> usize {
        self.buckets.len() - 1
    }

    #[inline]
    fn home(&self, key: u32) -> usize {
        (key.wrapping_mul(0x9E37_79B9) >> self.shift) as usize
    }

    /// Bucket holding `key`, or the empty bucket ending its probe run.
    #[inline]
    fn find(&self, key: u32) -> usize {
        let mask = self.mask();
        let mut i = self.home(key);
        loop {
            let k = self.buckets[i].0;
            if k == key || k == EMPTY {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(crate) fn get(&self, key: u32) -> Option<u32> {
        let (k, v) = self.buckets[self.find(key)];
        (k == key).then_some(v)
    }

    /// Start fetching `key`'s home bucket into the CPU cache (a hint only).
    #[inline]
    pub(crate) fn prefetch(&self, key: u32) {
        prefetch(&self.buckets[self.home(key)]);
    }

    /// Map `key` to `value` (replacing any value it had).
    pub(crate) fn insert(&mut self, key: u32, value: u32) {
        debug_assert_ne!(key, EMPTY, "key reserved for empty buckets");
        if (self.len + 1) * 2 > self.buckets.len() {
            self.grow();
        }
        let i = self.find(key);
        if self.buckets[i].0 == EMPTY {
            self.len += 1;
        }
        self.buckets[i] = (key, value);
    }

    /// Remove `key`, returning its value.
    pub(crate) fn remove(&mut self, key: u32) -> Option<u32> {
        let mut hole = self.find(key);
        let (k, v) = self.buckets[hole];
        if k != key {
            return None;
        }
        // Shift back each later entry of the run whose home is not between
        // the hole and itself (it could not be found past the hole).
        let mask = self.mask();
        let mut j = hole;
        loop {
            j = (j + 1) & mask;
            let kj = self.buckets[j].0;
            if kj == EMPTY {
                break;
            }
            let from_home = j.wrapping_sub(self.home(kj)) & mask;
            if from_home >= j.wrapping_sub(hole) & mask {
                self.buckets[hole] = self.buckets[j];
                hole = j;
            }
        }
        self.buckets[hole] = (EMPTY, 0);
        self.len -= 1;
        Some(v)
    }

    fn grow(&mut self) {
        let n = self.buckets.len() * 2;
        let old = std::mem::replace(&mut self.buckets, vec![(EMPTY, 0); n]);
        self.shift -= 1;
        for (k, v) in old {
            if k != EMPTY {
                let i = self.find(k);
                self.buckets[i] = (k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashMap;

    #[test]
    fn agrees_with_a_hash_map_through_inserts_and_removals() {
        // Keys drawn from a small range so runs collide, wrap around the
        // table's end and get removed from their middle.
        let mut ours = LpnIndex::default();
        let mut theirs: FxHashMap<u32, u32> = FxHashMap::default();
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        for step in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let key = (x % 3000) as u32;
            if x & (1 << 40) == 0 || theirs.len() > 2000 {
                assert_eq!(ours.remove(key), theirs.remove(&key), "step {step}");
            } else {
                ours.insert(key, step);
                theirs.insert(key, step);
            }
            assert_eq!(ours.len(), theirs.len());
            let probe = ((x >> 20) % 3000) as u32;
            assert_eq!(ours.get(probe), theirs.get(&probe).copied(), "step {step}");
        }
        for (k, v) in &theirs {
            assert_eq!(ours.get(*k), Some(*v));
        }
    }

    #[test]
    fn stays_at_most_half_full() {
        let mut m = LpnIndex::default();
        for k in 0..1000 {
            m.insert(k * 7919, k);
        }
        assert_eq!(m.len(), 1000);
        assert!(m.buckets.len() >= 2000);
        assert!(m.buckets.len() as u64 * 8 <= LpnIndex::footprint(1000));
    }
}
