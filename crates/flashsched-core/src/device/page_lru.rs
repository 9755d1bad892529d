//! Logical pages in recency order, each with a small value: the DRAM data
//! caches' contents (`buffer.rs`, `hot_cold.rs`) and the cached mapping
//! table's entries (`mapping.rs`), which touch, look up and evict a page on
//! every page written or translated.
//!
//! One index lookup per operation: the pages live in a slab linked in
//! recency order (the least recently used at the front), found through an
//! [`LpnIndex`]. A queue of (page, stamp) pairs beside a hash map, which
//! this replaces, needed two or three hashed lookups per page and left
//! stale entries to skip on eviction.

use std::mem::size_of;

use super::lpn_index::LpnIndex;
use crate::ftl::footprint::grown_vec;

/// No slab entry.
const NIL: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct Node<V> {
    lpn: u32,
    /// Neighbours: `prev` towards the least recently used end.
    prev: u32,
    next: u32,
    value: V,
}

/// Where a page is held: valid until the page is removed (it saves a
/// second lookup when a caller reads an entry and then moves it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Held(u32);

/// Pages (logical page numbers) with a value each, least recently used
/// first.
#[derive(Debug, Clone)]
pub(super) struct PageLru<V> {
    index: LpnIndex,
    nodes: Vec<Node<V>>,
    free: Vec<u32>,
    /// Least and most recently used entries.
    lru: u32,
    mru: u32,
}

impl<V: Copy> Default for PageLru<V> {
    fn default() -> Self {
        PageLru {
            index: LpnIndex::default(),
            nodes: Vec::new(),
            free: Vec::new(),
            lru: NIL,
            mru: NIL,
        }
    }
}

impl<V: Copy> PageLru<V> {
    /// Bytes a table of `entries` pages holds at most (its slab and index).
    pub(super) fn footprint(entries: u64) -> u64 {
        grown_vec(entries, size_of::<Node<V>>() as u64) + LpnIndex::footprint(entries)
    }

    /// Pages held.
    #[inline]
    pub(super) fn len(&self) -> usize {
        self.index.len()
    }

    #[inline]
    pub(super) fn contains(&self, lpn: u32) -> bool {
        self.index.get(lpn).is_some()
    }

    /// Where `lpn` is held, if it is.
    #[inline]
    pub(super) fn find(&self, lpn: u32) -> Option<Held> {
        self.index.get(lpn).map(Held)
    }

    /// The value of a held page.
    #[inline]
    pub(super) fn value(&self, h: Held) -> &V {
        &self.nodes[h.0 as usize].value
    }

    /// The value of a held page, to change.
    #[inline]
    pub(super) fn value_mut(&mut self, h: Held) -> &mut V {
        &mut self.nodes[h.0 as usize].value
    }

    /// Make a held page the most recently used.
    #[inline]
    pub(super) fn touch_held(&mut self, h: Held) {
        self.make_mru(h.0);
    }

    /// Hold `lpn`, which is not held, as the most recently used.
    #[inline]
    pub(super) fn insert(&mut self, lpn: u32, value: V) -> Held {
        debug_assert!(!self.contains(lpn), "page {lpn} is held already");
        Held(self.insert_new(lpn, value))
    }

    /// The value of `lpn`, if held (its recency unchanged).
    #[inline]
    pub(super) fn get(&self, lpn: u32) -> Option<V> {
        self.index.get(lpn).map(|n| self.nodes[n as usize].value)
    }

    /// The value of `lpn`, if held, to change (its recency unchanged).
    #[inline]
    pub(super) fn get_mut(&mut self, lpn: u32) -> Option<&mut V> {
        let n = self.index.get(lpn)?;
        Some(&mut self.nodes[n as usize].value)
    }

    /// Make `lpn`, if held, the most recently used; its value to change.
    #[inline]
    pub(super) fn touch(&mut self, lpn: u32) -> Option<&mut V> {
        let n = self.index.get(lpn)?;
        self.make_mru(n);
        Some(&mut self.nodes[n as usize].value)
    }

    /// Hold `lpn` as the most recently used, with `value` if it is new;
    /// returns where it is held and whether it was new.
    #[inline]
    pub(super) fn touch_or_insert(&mut self, lpn: u32, value: V) -> (Held, bool) {
        match self.index.get(lpn) {
            Some(n) => {
                self.make_mru(n);
                (Held(n), false)
            }
            None => (Held(self.insert_new(lpn, value)), true),
        }
    }

    /// Drop `lpn`, returning its value.
    #[inline]
    pub(super) fn remove(&mut self, lpn: u32) -> Option<V> {
        let n = self.index.remove(lpn)?;
        self.unlink(n);
        self.free.push(n);
        Some(self.nodes[n as usize].value)
    }

    /// Take the least recently used page out.
    #[inline]
    pub(super) fn pop_lru(&mut self) -> Option<(u32, V)> {
        self.pop_lru_where(|_| true)
    }

    /// Take out the least recently used page whose value `may_go`.
    #[inline]
    pub(super) fn pop_lru_where(&mut self, may_go: impl Fn(&V) -> bool) -> Option<(u32, V)> {
        let mut n = self.lru;
        while n != NIL && !may_go(&self.nodes[n as usize].value) {
            n = self.nodes[n as usize].next;
        }
        if n == NIL {
            return None;
        }
        let Node { lpn, value, .. } = self.nodes[n as usize];
        self.remove(lpn);
        Some((lpn, value))
    }

    /// Start fetching where `lpn` is looked up (a hint only).
    #[inline]
    pub(super) fn prefetch(&self, lpn: u32) {
        self.index.prefetch(lpn);
    }

    /// Start fetching what the next eviction reads: the least recently
    /// used page's index bucket and the entry after it (its own entry the
    /// eviction before fetched). A hint only.
    #[inline]
    pub(super) fn prefetch_next_lru(&self) {
        if let Some(n) = self.nodes.get(self.lru as usize) {
            self.index.prefetch(n.lpn);
            if let Some(after) = self.nodes.get(n.next as usize) {
                crate::engine::prefetch(after);
            }
        }
    }

    /// A new entry for `lpn` (not held) at the most recently used end.
    fn insert_new(&mut self, lpn: u32, value: V) -> u32 {
        let node = Node {
            lpn,
            prev: NIL,
            next: NIL,
            value,
        };
        let n = match self.free.pop() {
            Some(n) => {
                self.nodes[n as usize] = node;
                n
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        };
        self.index.insert(lpn, n);
        self.link_mru(n);
        n
    }

    #[inline]
    fn make_mru(&mut self, n: u32) {
        if self.mru != n {
            self.unlink(n);
            self.link_mru(n);
        }
    }

    #[inline]
    fn unlink(&mut self, n: u32) {
        let Node { prev, next, .. } = self.nodes[n as usize];
        match prev {
            NIL => self.lru = next,
            p => self.nodes[p as usize].next = next,
        }
        match next {
            NIL => self.mru = prev,
            x => self.nodes[x as usize].prev = prev,
        }
    }

    #[inline]
    fn link_mru(&mut self, n: u32) {
        let old = self.mru;
        let node = &mut self.nodes[n as usize];
        node.prev = old;
        node.next = NIL;
        match old {
            NIL => self.lru = n,
            o => self.nodes[o as usize].next = n,
        }
        self.mru = n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// The structure this replaces, kept as the reference: a queue of
    /// (page, value) in recency order, searched linearly.
    #[derive(Default)]
    struct Model(VecDeque<(u32, u64)>);

    impl Model {
        fn pos(&self, lpn: u32) -> Option<usize> {
            self.0.iter().position(|e| e.0 == lpn)
        }
        fn touch(&mut self, lpn: u32) -> Option<u64> {
            let e = self.0.remove(self.pos(lpn)?)?;
            self.0.push_back(e);
            Some(e.1)
        }
    }

    #[test]
    fn a_worked_example() {
        let mut l = PageLru::default();
        for p in [5, 7, 9] {
            assert!(l.touch_or_insert(p, p as u64 * 10).1);
        }
        // 7 becomes the most recent: 5 9 7.
        *l.touch(7).unwrap() += 1;
        let (h, new) = l.touch_or_insert(9, 0);
        assert_eq!((*l.value(h), new), (90, false), "9 kept its value");
        // 5 7 9 now; the least recent leaves first.
        assert_eq!(l.pop_lru(), Some((5, 50)));
        assert_eq!(l.remove(9), Some(90));
        assert_eq!(l.get(7), Some(71));
        assert_eq!(l.len(), 1);
        assert_eq!(l.pop_lru(), Some((7, 71)));
        assert_eq!(l.pop_lru(), None);
        assert!(!l.contains(7));
    }

    #[test]
    fn agrees_with_a_recency_queue() {
        let mut ours = PageLru::default();
        let mut model = Model::default();
        let mut rng = crate::rng::Rng::new(7);
        for step in 0..100_000u64 {
            // Few pages, so most operations find theirs.
            let lpn = rng.below(300) as u32;
            match rng.below(7) {
                0 => assert_eq!(
                    ours.remove(lpn),
                    model
                        .0
                        .remove(model.pos(lpn).unwrap_or(usize::MAX))
                        .map(|e| e.1),
                    "step {step}"
                ),
                1 => assert_eq!(ours.pop_lru(), model.0.pop_front(), "step {step}"),
                2 => assert_eq!(ours.touch(lpn).copied(), model.touch(lpn), "step {step}"),
                3 => {
                    // The least recent page with an even value leaves.
                    let at = model.0.iter().position(|e| e.1 % 2 == 0);
                    let want = at.and_then(|i| model.0.remove(i));
                    assert_eq!(ours.pop_lru_where(|v| v % 2 == 0), want, "step {step}");
                }
                4 => {
                    // Read by handle, then moved: one lookup.
                    let h = ours.find(lpn);
                    assert_eq!(h.map(|h| *ours.value(h)), model.touch(lpn), "step {step}");
                    if let Some(h) = h {
                        ours.touch_held(h);
                        *ours.value_mut(h) += 2;
                        if let Some(e) = model.0.back_mut() {
                            e.1 += 2;
                        }
                    } else {
                        let h = ours.insert(lpn, step);
                        assert_eq!(*ours.value(h), step);
                        model.0.push_back((lpn, step));
                    }
                }
                _ => {
                    let (h, new) = ours.touch_or_insert(lpn, step);
                    let v = ours.value(h);
                    let want = match model.touch(lpn) {
                        Some(v) => (v, false),
                        None => {
                            model.0.push_back((lpn, step));
                            (step, true)
                        }
                    };
                    assert_eq!((*v, new), want, "step {step}");
                }
            }
            assert_eq!(ours.len(), model.0.len());
        }
        while let Some(e) = model.0.pop_front() {
            assert_eq!(ours.pop_lru(), Some(e));
        }
        assert_eq!(ours.pop_lru(), None);
    }
}
