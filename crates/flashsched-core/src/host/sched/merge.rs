//! Request merging shared by the schedulers that merge (the Linux elevator
//! core's back merge, and the front merge of sector-sorted schedulers;
//! baselines.md §1.0). Only queued, not yet dispatched requests merge; a
//! merged request is sent as one device request and completes all members.

use rustc_hash::FxHashMap;

use crate::host::HostRequest;
use crate::io::Op;

#[derive(Debug, Clone, Default)]
struct Group {
    offset: u64,
    end: u64,
    op: u8,
    members: Vec<u32>,
}

/// Queued merge groups, indexed by start and end byte offset per direction.
///
/// Indexing is deferred: a new group waits in `pending` until the next
/// merge lookup (or the next insert) needs the index. When load is light a request is usually
/// dispatched before the next one arrives, and then it never touches the
/// hash maps. The maps always answer exactly as if every insert had been
/// applied at once (a deferred insert overwrites an older group's entry with
/// the same key, and dispatching it removes that key — see `take`).
#[derive(Default)]
pub(crate) struct Merger {
    /// Largest merged request in bytes.
    max_bytes: u64,
    /// Keep the start-offset index (only schedulers that front-merge pay for it).
    front: bool,
    groups: Vec<Group>,
    by_end: FxHashMap<(u8, u64), u32>,
    by_start: FxHashMap<(u8, u64), u32>,
    /// The newest group, not yet in the maps. Trims (which never merge) and
    /// groups of a merger with merging off are never indexed: no lookup can
    /// reach them.
    pending: Option<u32>,
}

fn op_key(op: Op) -> u8 {
    match op {
        Op::Read => 0,
        Op::Write => 1,
        Op::Trim => 2,
    }
}

impl Merger {
    /// Back merges only.
    pub(crate) fn new(max_bytes: u64) -> Self {
        Merger {
            max_bytes,
            ..Default::default()
        }
    }

    /// Back and front merges.
    pub(crate) fn with_front_merges(max_bytes: u64) -> Self {
        Merger {
            max_bytes,
            front: true,
            ..Default::default()
        }
    }

    fn group(&mut self, id: u32) -> &mut Group {
        let i = id as usize;
        if i >= self.groups.len() {
            self.groups.resize(i + 1, Group::default());
        }
        &mut self.groups[i]
    }

    /// Start a group led by `r`.
    pub(crate) fn insert(&mut self, r: &HostRequest) {
        let op = op_key(r.op);
        let end = r.offset + r.size as u64;
        let g = self.group(r.id);
        g.offset = r.offset;
        g.end = end;
        g.op = op;
        g.members.clear();
        if r.op != Op::Trim && self.max_bytes > 0 {
            self.flush();
            self.pending = Some(r.id);
        }
    }

    /// Apply the deferred insert.
    fn flush(&mut self) {
        if let Some(id) = self.pending.take() {
            let g = &self.groups[id as usize];
            self.by_end.insert((g.op, g.end), id);
            if self.front {
                self.by_start.insert((g.op, g.offset), id);
            }
        }
    }

    /// Append `r` to a queued group that ends where `r` starts; returns the lead.
    pub(crate) fn try_back(&mut self, r: &HostRequest) -> Option<u32> {
        if r.op == Op::Trim || self.max_bytes == 0 {
            return None;
        }
        self.flush();
        let op = op_key(r.op);
        let lead = *self.by_end.get(&(op, r.offset))?;
        let g = &self.groups[lead as usize];
        if g.end - g.offset + r.size as u64 > self.max_bytes {
            return None;
        }
        self.by_end.remove(&(op, r.offset));
        let end = r.offset + r.size as u64;
        let g = &mut self.groups[lead as usize];
        g.end = end;
        g.members.push(r.id);
        self.by_end.insert((op, end), lead);
        Some(lead)
    }

    /// Prepend `r` to a queued group that starts where `r` ends; returns the
    /// lead (whose start offset moved down to `r.offset`).
    pub(crate) fn try_front(&mut self, r: &HostRequest) -> Option<u32> {
        if r.op == Op::Trim || self.max_bytes == 0 || !self.front {
            return None;
        }
        self.flush();
        let op = op_key(r.op);
        let end = r.offset + r.size as u64;
        let lead = *self.by_start.get(&(op, end))?;
        let g = &self.groups[lead as usize];
        if g.end - g.offset + r.size as u64 > self.max_bytes {
            return None;
        }
        self.by_start.remove(&(op, end));
        let g = &mut self.groups[lead as usize];
        g.offset = r.offset;
        g.members.push(r.id);
        self.by_start.insert((op, r.offset), lead);
        Some(lead)
    }

    /// Start offset and byte length of the group led by `lead`.
    pub(crate) fn range(&self, lead: u32) -> (u64, u64) {
        let g = &self.groups[lead as usize];
        (g.offset, g.end - g.offset)
    }

    /// Remove the group led by `lead` (it is being dispatched) and push its
    /// other members into `out`.
    pub(crate) fn take(&mut self, lead: u32, out: &mut Vec<u32>) {
        let g = &mut self.groups[lead as usize];
        let (op, s, e) = (g.op, g.offset, g.end);
        out.append(&mut g.members);
        if self.max_bytes == 0 {
            return; // merging off: nothing was indexed
        }
        if self.pending == Some(lead) {
            // Never indexed (so never extended: its keys are as inserted).
            // Indexed, it would own its keys now (overwriting any older
            // group's entry), and dispatching it would remove them.
            self.pending = None;
            if !self.by_end.is_empty() {
                self.by_end.remove(&(op, e));
            }
            if self.front && !self.by_start.is_empty() {
                self.by_start.remove(&(op, s));
            }
            return;
        }
        if self.by_end.get(&(op, e)) == Some(&lead) {
            self.by_end.remove(&(op, e));
        }
        if self.front && self.by_start.get(&(op, s)) == Some(&lead) {
            self.by_start.remove(&(op, s));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use std::collections::HashMap;

    /// The index applied immediately (the semantics deferral must keep).
    #[derive(Default)]
    struct Eager {
        groups: HashMap<u32, (u8, u64, u64, Vec<u32>)>,
        by_end: HashMap<(u8, u64), u32>,
        by_start: HashMap<(u8, u64), u32>,
    }

    impl Eager {
        fn insert(&mut self, r: &HostRequest) {
            let (op, end) = (op_key(r.op), r.offset + r.size as u64);
            self.groups.insert(r.id, (op, r.offset, end, Vec::new()));
            self.by_end.insert((op, end), r.id);
            self.by_start.insert((op, r.offset), r.id);
        }
        fn try_back(&mut self, r: &HostRequest, max: u64) -> Option<u32> {
            if r.op == Op::Trim {
                return None;
            }
            let op = op_key(r.op);
            let lead = *self.by_end.get(&(op, r.offset))?;
            let g = self.groups.get_mut(&lead).unwrap();
            if g.2 - g.1 + r.size as u64 > max {
                return None;
            }
            self.by_end.remove(&(op, r.offset));
            g.2 = r.offset + r.size as u64;
            g.3.push(r.id);
            self.by_end.insert((op, g.2), lead);
            Some(lead)
        }
        fn try_front(&mut self, r: &HostRequest, max: u64) -> Option<u32> {
            if r.op == Op::Trim {
                return None;
            }
            let op = op_key(r.op);
            let end = r.offset + r.size as u64;
            let lead = *self.by_start.get(&(op, end))?;
            let g = self.groups.get_mut(&lead).unwrap();
            if g.2 - g.1 + r.size as u64 > max {
                return None;
            }
            self.by_start.remove(&(op, end));
            g.1 = r.offset;
            g.3.push(r.id);
            self.by_start.insert((op, r.offset), lead);
            Some(lead)
        }
        fn take(&mut self, lead: u32) -> Vec<u32> {
            let (op, s, e, members) = self.groups.remove(&lead).unwrap();
            if self.by_end.get(&(op, e)) == Some(&lead) {
                self.by_end.remove(&(op, e));
            }
            if self.by_start.get(&(op, s)) == Some(&lead) {
                self.by_start.remove(&(op, s));
            }
            members
        }
    }

    /// Random arrivals (many sharing offsets, so keys collide and groups
    /// overwrite each other's entries) and dispatches of random queued
    /// leads: deferred indexing merges exactly like immediate indexing.
    #[test]
    fn deferred_index_matches_immediate_index() {
        let max = 64 * 1024;
        let mut rng = Rng::new(3);
        for front in [false, true] {
            let mut m = if front {
                Merger::with_front_merges(max)
            } else {
                Merger::new(max)
            };
            let mut eager = Eager::default();
            let mut queued: Vec<u32> = Vec::new();
            let mut free: Vec<u32> = Vec::new();
            let mut next_id = 0;
            for step in 0..20_000 {
                if queued.is_empty() || rng.below(100) < 55 {
                    let id = free.pop().unwrap_or_else(|| {
                        next_id += 1;
                        next_id - 1
                    });
                    let r = HostRequest {
                        id,
                        seq: step,
                        arrival: 0,
                        // Trims never merge (and are never indexed).
                        op: [Op::Read, Op::Write, Op::Trim][rng.below(3) as usize],
                        offset: rng.below(8) * 4096,
                        size: 4096 * (1 + rng.below(2) as u32),
                        stream: 0,
                        priority: false,
                    };
                    let mut lead = m.try_back(&r);
                    assert_eq!(lead, eager.try_back(&r, max), "step {step} back");
                    if lead.is_none() && front {
                        lead = m.try_front(&r);
                        assert_eq!(lead, eager.try_front(&r, max), "step {step} front");
                    }
                    if lead.is_none() {
                        m.insert(&r);
                        eager.insert(&r);
                        queued.push(id);
                    }
                } else {
                    let lead = queued.remove(rng.below(queued.len() as u64) as usize);
                    let mut got = Vec::new();
                    m.take(lead, &mut got);
                    let want = eager.take(lead);
                    assert_eq!(got, want, "step {step} take {lead}");
                    free.push(lead);
                    free.extend(got);
                }
            }
        }
    }
}
