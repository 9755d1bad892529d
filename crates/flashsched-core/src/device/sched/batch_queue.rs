//! Hierarchical batch lists of PIQ and VIOS (VIOS §3.3, Fig. 3): chip
//! batches with disjoint chip sets, each split into channel batches with
//! disjoint channel sets. Sets are bit masks (`ChipSet`): intersection and
//! union are word-wise AND/OR, O(1) for up to 64 units (§3.3 "Overhead
//! Analysis"). The scheduling on top of them is `batch.rs`.

use std::collections::VecDeque;

/// Members a set holds without a heap allocation: every chip of the
/// presets (and the dies of most). A release scan reads the sets of many
/// requests and batches; inline, each read is one cache line fewer.
const INLINE_WORDS: usize = 2;

/// A set of chips (or channels) as a bit mask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChipSet {
    /// The words of a set of up to `INLINE_WORDS * 64` members (beyond
    /// what it was made for, zero)...
    inline: [u64; INLINE_WORDS],
    /// ...or, for a larger one, all its words (else empty).
    heap: Vec<u64>,
}

impl Default for ChipSet {
    fn default() -> Self {
        ChipSet::with_capacity(0)
    }
}

impl ChipSet {
    /// An empty set with room for members `0..n`.
    pub fn with_capacity(n: u32) -> Self {
        let words = n.div_ceil(64) as usize;
        ChipSet {
            inline: [0; INLINE_WORDS],
            heap: match words > INLINE_WORDS {
                true => vec![0; words],
                false => Vec::new(),
            },
        }
    }
    /// The mask's words.
    #[inline]
    pub(super) fn words(&self) -> &[u64] {
        match self.heap.is_empty() {
            true => &self.inline,
            false => &self.heap,
        }
    }
    #[inline]
    fn words_mut(&mut self) -> &mut [u64] {
        match self.heap.is_empty() {
            true => &mut self.inline,
            false => &mut self.heap,
        }
    }
    /// Add `i`.
    #[inline]
    pub fn insert(&mut self, i: u32) {
        self.words_mut()[(i / 64) as usize] |= 1 << (i % 64);
    }
    /// Remove `i`.
    #[inline]
    pub fn remove(&mut self, i: u32) {
        self.words_mut()[(i / 64) as usize] &= !(1 << (i % 64));
    }
    /// Whether `i` is a member.
    #[inline]
    pub fn contains(&self, i: u32) -> bool {
        self.words()[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
    /// Whether the sets share a member.
    #[inline]
    pub fn intersects(&self, o: &ChipSet) -> bool {
        self.words().iter().zip(o.words()).any(|(a, b)| a & b != 0)
    }
    /// Add every member of `o`.
    #[inline]
    pub fn union_with(&mut self, o: &ChipSet) {
        for (a, b) in self.words_mut().iter_mut().zip(o.words()) {
            *a |= b;
        }
    }
    /// Remove every member.
    pub fn clear(&mut self) {
        self.words_mut().fill(0);
    }
    /// Number of members.
    pub fn len(&self) -> u32 {
        self.words().iter().map(|w| w.count_ones()).sum()
    }
    /// Every member is one of `o`'s.
    #[inline]
    pub fn is_subset(&self, o: &ChipSet) -> bool {
        self.words().iter().zip(o.words()).all(|(a, b)| a & !b == 0)
    }
    /// No member.
    pub fn is_empty(&self) -> bool {
        self.words().iter().all(|&w| w == 0)
    }
    /// Members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        super::bits::ones(self.words().iter().copied()).map(|i| i as u32)
    }
}

#[derive(Debug, Clone)]
pub(super) struct ChannelBatch {
    pub(super) channels: ChipSet,
    pub(super) reqs: Vec<usize>,
}

#[derive(Debug, Clone)]
pub(super) struct ChipBatch {
    /// Its place among the batches ever made (ids increase along the list).
    pub(super) id: u64,
    pub(super) chips: ChipSet,
    pub(super) groups: Vec<ChannelBatch>,
}

/// Chip batches (each split into channel batches when `channel_level`).
#[derive(Debug, Clone, Default)]
pub struct BatchQueue {
    pub(super) batches: VecDeque<ChipBatch>,
    channel_level: bool,
    /// Batches made so far (the next one's id).
    made: u64,
    /// Per unit: the batches with a request holding it unreleased, in
    /// list order (a batch's requests hold disjoint units, so at most one
    /// each). A unit is released by its first holder only
    /// ([`BatchQueue::released`]).
    pub(super) holders: Vec<VecDeque<u64>>,
    /// Batches a release scan emptied and then stopped inside of, before
    /// the batch's end where it is dropped (a later scan passing them
    /// drops them). Rare, and few.
    pub(super) ghosts: Vec<u64>,
}

impl BatchQueue {
    /// An empty queue; `channel_level` splits chip batches into channel
    /// batches.
    pub fn new(channel_level: bool) -> Self {
        BatchQueue {
            batches: VecDeque::new(),
            channel_level,
            made: 0,
            holders: Vec::new(),
            ghosts: Vec::new(),
        }
    }

    /// Add a request touching `chips` / `channels`: into the first chip batch
    /// with no common chip (else a new one), and inside it into the first
    /// channel batch with no common channel (else a new one). Returns the
    /// (chip batch, channel batch) positions.
    pub fn insert(&mut self, req: usize, chips: &ChipSet, channels: &ChipSet) -> (usize, usize) {
        let pos = match self.batches.iter().position(|b| !b.chips.intersects(chips)) {
            Some(p) => p,
            None => {
                self.batches.push_back(ChipBatch {
                    id: self.made,
                    chips: ChipSet::with_capacity(chips.words().len() as u32 * 64),
                    groups: Vec::new(),
                });
                self.made += 1;
                self.batches.len() - 1
            }
        };
        let b = &mut self.batches[pos];
        for c in chips.iter() {
            if c as usize >= self.holders.len() {
                self.holders.resize_with(c as usize + 1, VecDeque::new);
            }
            let h = &mut self.holders[c as usize];
            // Mostly the last batch or a new one: found from the back.
            match h.back() {
                Some(&last) if last > b.id => {
                    let at = h.len() - h.iter().rev().take_while(|&&x| x > b.id).count();
                    h.insert(at, b.id);
                }
                _ => h.push_back(b.id),
            }
        }
        b.chips.union_with(chips);
        let g = if self.channel_level {
            b.groups
                .iter()
                .position(|g| !g.channels.intersects(channels))
        } else if b.groups.is_empty() {
            None
        } else {
            Some(0)
        };
        let g = match g {
            Some(g) => g,
            None => {
                b.groups.push(ChannelBatch {
                    channels: ChipSet::with_capacity(channels.words().len() as u32 * 64),
                    reqs: Vec::new(),
                });
                b.groups.len() - 1
            }
        };
        b.groups[g].channels.union_with(channels);
        b.groups[g].reqs.push(req);
        (pos, g)
    }

    /// No batch left.
    pub fn is_empty(&self) -> bool {
        self.batches.is_empty()
    }

    /// The batches a release scan has to visit: for each unit in `live`
    /// not in `claimed`, the first batch holding it, and the ghosts;
    /// their ids into `out`, in list order. A scan passing any other batch
    /// would find every unit its requests hold claimed already, and so
    /// change nothing.
    pub(super) fn stops(&self, live: &ChipSet, claimed: &ChipSet, out: &mut Vec<u64>) {
        out.clear();
        let unclaimed = live
            .words()
            .iter()
            .zip(claimed.words())
            .map(|(&l, &c)| l & !c);
        for u in super::bits::ones(unclaimed) {
            if let Some(&id) = self.holders.get(u).and_then(|h| h.front()) {
                out.push(id);
            }
        }
        out.extend_from_slice(&self.ghosts);
        out.sort_unstable();
        out.dedup();
    }

    /// Unit `unit` of a request of batch `id`, its first holder, is
    /// released.
    #[inline]
    pub(super) fn released(holders: &mut [VecDeque<u64>], unit: u32, id: u64) {
        let first = holders[unit as usize].pop_front();
        debug_assert_eq!(first, Some(id), "a unit released by a later holder");
    }

    /// Batch `id`, emptied, is left in the list by a scan that stopped
    /// inside it.
    pub(super) fn ghost(&mut self, id: u64) {
        if !self.ghosts.contains(&id) {
            self.ghosts.push(id);
        }
    }

    /// Where batch `id` is in the list, if it still is.
    pub(super) fn position(&self, id: u64) -> Option<usize> {
        let p = self.batches.partition_point(|b| b.id < id);
        (self.batches.get(p)?.id == id).then_some(p)
    }

    /// Drop the batch at `pos` (its requests are all released).
    pub(super) fn remove_batch(&mut self, pos: usize) {
        if let Some(b) = self.batches.remove(pos) {
            self.ghosts.retain(|&g| g != b.id);
            debug_assert!(
                self.holders.iter().all(|h| !h.contains(&b.id)),
                "a dropped batch still holds a unit"
            );
        }
    }

    /// Requests per chip batch (for tests and diagnostics), each as its
    /// channel batches.
    pub fn layout(&self) -> Vec<Vec<Vec<usize>>> {
        self.batches
            .iter()
            .map(|b| b.groups.iter().map(|g| g.reqs.clone()).collect())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(n: u32, xs: &[u32]) -> ChipSet {
        let mut s = ChipSet::with_capacity(n);
        for &x in xs {
            s.insert(x);
        }
        s
    }

    /// VIOS Fig. 3 rule: a request on chips {6, 7} joins the first chip batch
    /// (A_chip becomes {0,1,2,4,5,6,7}) and, inside it, the second channel
    /// batch (A_channel becomes {0,1,2,3}). Chips are striped over 4
    /// channels (channel = chip % 4).
    #[test]
    fn hierarchical_insert_follows_fig3_rule() {
        let ch = |cs: &[u32]| set(4, &cs.iter().map(|c| c % 4).collect::<Vec<_>>());
        let mut q = BatchQueue::new(true);
        let reqs: [&[u32]; 5] = [&[0, 1], &[2], &[4, 5], &[0, 2], &[1]];
        for (i, r) in reqs.iter().enumerate() {
            q.insert(i, &set(8, r), &ch(r));
        }
        assert_eq!(
            q.layout(),
            vec![vec![vec![0, 1], vec![2]], vec![vec![3, 4]]]
        );
        let (b, g) = q.insert(5, &set(8, &[6, 7]), &ch(&[6, 7]));
        assert_eq!((b, g), (0, 1));
        assert_eq!(q.batches[0].chips, set(8, &[0, 1, 2, 4, 5, 6, 7]));
        assert_eq!(q.batches[0].groups[1].channels, set(4, &[0, 1, 2, 3]));
    }

    #[test]
    fn no_chip_batch_holds_conflicting_requests() {
        let mut rng = crate::rng::Rng::new(3);
        let mut q = BatchQueue::new(true);
        let mut sets = Vec::new();
        for i in 0..500 {
            let mut s = set(64, &[]);
            for _ in 0..1 + rng.below(4) {
                s.insert(rng.below(64) as u32);
            }
            let chans = set(8, &s.iter().map(|c| c / 8).collect::<Vec<_>>());
            q.insert(i, &s, &chans);
            sets.push(s);
        }
        for batch in q.layout() {
            let members: Vec<usize> = batch.iter().flatten().copied().collect();
            for (a, &x) in members.iter().enumerate() {
                for &y in &members[a + 1..] {
                    assert!(
                        !sets[x].intersects(&sets[y]),
                        "requests {x} and {y} share a chip"
                    );
                }
            }
        }
    }
}
