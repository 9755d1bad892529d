//! Request merging shared by the schedulers that merge (the Linux elevator
//! core's back merge, and the front merge of sector-sorted schedulers;
//! baselines.md §1.0). Only queued, not yet dispatched requests merge; a
//! merged request is sent as one device request and completes all members.

use rustc_hash::FxHashMap;

use crate::host::HostRequest;
use crate::workload::Op;

#[derive(Debug, Clone, Default)]
struct Group {
    offset: u64,
    end: u64,
    op: u8,
    members: Vec<u32>,
}

/// Queued merge groups, indexed by start and end byte offset per direction.
#[derive(Default)]
pub struct Merger {
    /// Largest merged request in bytes.
    max_bytes: u64,
    /// Keep the start-offset index (only schedulers that front-merge pay for it).
    front: bool,
    groups: Vec<Group>,
    by_end: FxHashMap<(u8, u64), u32>,
    by_start: FxHashMap<(u8, u64), u32>,
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
    pub fn new(max_bytes: u64) -> Self {
        Merger {
            max_bytes,
            ..Default::default()
        }
    }

    /// Back and front merges.
    pub fn with_front_merges(max_bytes: u64) -> Self {
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
    pub fn insert(&mut self, r: &HostRequest) {
        let op = op_key(r.op);
        let end = r.offset + r.size as u64;
        let g = self.group(r.id);
        g.offset = r.offset;
        g.end = end;
        g.op = op;
        g.members.clear();
        self.by_end.insert((op, end), r.id);
        if self.front {
            self.by_start.insert((op, r.offset), r.id);
        }
    }

    /// Append `r` to a queued group that ends where `r` starts; returns the lead.
    pub fn try_back(&mut self, r: &HostRequest) -> Option<u32> {
        if r.op == Op::Trim || self.max_bytes == 0 {
            return None;
        }
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
    pub fn try_front(&mut self, r: &HostRequest) -> Option<u32> {
        if r.op == Op::Trim || self.max_bytes == 0 || !self.front {
            return None;
        }
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
    pub fn range(&self, lead: u32) -> (u64, u64) {
        let g = &self.groups[lead as usize];
        (g.offset, g.end - g.offset)
    }

    /// Remove the group led by `lead` (it is being dispatched) and push its
    /// other members into `out`.
    pub fn take(&mut self, lead: u32, out: &mut Vec<u32>) {
        let g = &mut self.groups[lead as usize];
        let (op, s, e) = (g.op, g.offset, g.end);
        out.append(&mut g.members);
        if self.by_end.get(&(op, e)) == Some(&lead) {
            self.by_end.remove(&(op, e));
        }
        if self.front && self.by_start.get(&(op, s)) == Some(&lead) {
            self.by_start.remove(&(op, s));
        }
    }
}
