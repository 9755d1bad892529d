//! SSDsim's fully dynamic allocation (`ftl.allocation = "dynamic:idle-chip"`):
//! a host write is not placed when it arrives. It waits in one device-wide
//! queue, oldest first, until a chip (a die, under die-level busy) that has
//! nothing else it can start takes as many writes as one command can hold:
//! SSDsim keeps them on `ssd->subs_w_head`, and `services_2_write` hands
//! them to an idle chip on an idle channel after that channel's reads,
//! spreading them over the chip's dies and then its planes
//! (`get_ppn_for_advanced_commands`). A write thus goes where the work is
//! not, instead of to a chip that later fills with reads.

use super::tx::{Tx, TxId};
use super::{pick_ctx, Ssd};
use crate::device::config::{BusyUnit, MultiPlane};
use crate::divisor::{add_mod, inc_mod};
use crate::engine::Ns;
use crate::flash::Geometry;
use crate::ftl::Stream;

/// Lists [`Ssd::place_pooled`] reuses: the dies it fills, and each die's
/// open planes.
#[derive(Debug, Default)]
pub(super) struct PoolScratch {
    dies: Vec<u32>,
    planes: Vec<u32>,
    spans: Vec<usize>,
}

/// The plane of a write still in the pool.
pub(super) const UNPLACED: u32 = u32::MAX;

/// SSDsim's round-robin tokens above the die: the channel to place in
/// next, and per channel its next chip (the die and plane tokens are the
/// device's `chip_next` and `rr_plane`, which its run-time writes share).
#[derive(Debug, Clone)]
pub(super) struct Tokens {
    channel: u32,
    chip: Vec<u32>,
}

impl Tokens {
    pub(super) fn new(geo: &Geometry) -> Tokens {
        Tokens {
            channel: 0,
            chip: vec![0; geo.channels as usize],
        }
    }
}

impl Ssd {
    /// The plane SSDsim's pre-pass places the next page read before it is
    /// written on (`get_ppn_for_pre_process` under fully dynamic
    /// allocation): the channel token, that channel's chip token, the
    /// chip's die token and the die's plane token, each advanced by one.
    pub(super) fn token_plane(&mut self) -> u32 {
        let g = self.geo;
        let ch = self.tokens.channel;
        self.tokens.channel = inc_mod(ch, g.channels);
        let way = self.tokens.chip[ch as usize];
        self.tokens.chip[ch as usize] = inc_mod(way, g.chips_per_channel);
        let chip = ch * g.chips_per_channel + way;
        let die = self.cmds.chip_next[chip as usize];
        self.cmds.chip_next[chip as usize] = inc_mod(die, g.dies_per_chip);
        let d = chip * g.dies_per_chip + die;
        let plane = inc_mod(self.rr_plane[d as usize], g.planes_per_die);
        self.rr_plane[d as usize] = plane;
        g.plane_index(ch, way, die, plane)
    }

    /// Queue host write `tx` (plane [`UNPLACED`]) in the pool and offer the
    /// idle chips work.
    pub(super) fn pool_write(&mut self, tx: Tx, now: Ns) {
        let id = self.txs.insert(tx);
        self.write_pool.push_back((id, now));
        self.decide_stamp += 1;
        let dpc = self.geo.dies_per_chip;
        for chip in 0..self.geo.chips() {
            match self.cmds.unit {
                BusyUnit::Chip if self.cmds.chip_active[chip as usize] == 0 => {
                    self.mark(chip * dpc + self.cmds.chip_next[chip as usize]);
                }
                BusyUnit::Chip => {}
                BusyUnit::Die => {
                    for die in chip * dpc..(chip + 1) * dpc {
                        if self.dies[die as usize].is_idle() {
                            self.mark(die);
                        }
                    }
                }
            }
        }
    }

    /// Place the oldest pooled writes on the idle dies in `dies` (bit `k` =
    /// die `k` of `chip`), which have nothing else they can start: with die
    /// interleaving on every idle die of the chip, else the first; with
    /// multi-plane commands up to a write per plane. Write `k` goes to die
    /// `k mod n` of the `n` taken, as SSDsim deals them out. Returns whether
    /// any write was placed.
    /// The pool must not be empty.
    pub(super) fn place_pooled(&mut self, chip: u32, dies: u64, now: Ns) -> bool {
        // Reused lists (this runs for every idle chip a write may take).
        let mut s = std::mem::take(&mut self.pool_scratch);
        let placed = self.place_pooled_in(&mut s, chip, dies, now);
        self.pool_scratch = s;
        placed
    }

    fn place_pooled_in(&mut self, s: &mut PoolScratch, chip: u32, dies: u64, now: Ns) -> bool {
        let dpc = self.geo.dies_per_chip;
        let first = self.cmds.chip_next[chip as usize];
        s.dies.clear();
        // With interleaving every idle die of the chip, else the first.
        let most = match self.cmds.unit == BusyUnit::Chip && self.cmds.interleave {
            true => dpc as usize,
            false => 1,
        };
        for k in 0..dpc {
            let k = add_mod(first, k, dpc);
            if dies & (1 << k) != 0 && s.dies.len() < most {
                s.dies.push(chip * dpc + k);
            }
        }
        let per_die = match self.cmds.multiplane {
            MultiPlane::Off => 1,
            _ => self.geo.planes_per_die,
        };
        // Each die's planes that can take a write now, in round-robin
        // order: die `i`'s are `planes[spans[i]..spans[i + 1]]`.
        s.planes.clear();
        s.spans.clear();
        s.spans.push(0);
        for i in 0..s.dies.len() {
            self.open_planes(s.dies[i], per_die, now, &mut s.planes);
            s.spans.push(s.planes.len());
        }
        if s.planes.is_empty() {
            // No room here: GC must make some (a placed write would have
            // asked for it when queued, `note_queued`).
            let ppd = self.geo.planes_per_die;
            for &d in &s.dies {
                for p in d * ppd..(d + 1) * ppd {
                    if !self.ftl.can_alloc(p, Stream::User) {
                        self.ftl.add_gc_check(p);
                        self.maybe_start_gc(p, now);
                    }
                }
            }
            return false;
        }
        let mut placed = false;
        // The request whose writes, pooled at this instant, may join.
        let mut owner = None;
        for round in 0..per_die as usize {
            for (i, &die) in s.dies.iter().enumerate() {
                let (lo, hi) = (s.spans[i], s.spans[i + 1]);
                if lo + round >= hi {
                    continue;
                }
                let plane = s.planes[lo + round];
                let Some(&(id, at)) = self.write_pool.front() else {
                    return placed;
                };
                if at == now {
                    let o = self.txs.get(id).owner;
                    if *owner.get_or_insert(o) != o {
                        return placed;
                    }
                }
                self.write_pool.pop_front();
                self.place(id, die, plane, now);
                placed = true;
            }
        }
        placed
    }

    /// Up to `n` planes of `die` a user write could start on now (room for
    /// it beside those queued, a page now where GC is stuck, and allowed by
    /// the GC gate), from the one after the last chosen, appended to `out`.
    fn open_planes(&mut self, die: u32, n: u32, now: Ns, out: &mut Vec<u32>) {
        let ppd = self.geo.planes_per_die;
        let start = self.rr_plane[die as usize];
        let probe = match self.write_pool.front() {
            Some(&(id, _)) => *self.txs.get(id),
            None => return,
        };
        let ctx = pick_ctx!(self, now);
        let before = out.len();
        // The oldest pooled write, as if queued on each plane in turn.
        let mut t = Tx { die, ..probe };
        for i in 1..=ppd {
            if out.len() - before == n as usize {
                break;
            }
            let p = die * ppd + add_mod(start, i, ppd);
            t.plane = p;
            // A plane where GC found nothing to reclaim takes a write only
            // while it has a page for it now.
            if (!self.ftl.is_starved(p) || self.ftl.can_alloc(p, Stream::User))
                && self.ftl.user_room_for(p, self.queued_user_programs(p))
                && ctx.can_issue(&t)
            {
                out.push(p);
            }
        }
        if out.len() > before {
            self.rr_plane[die as usize] = self.geo.plane_in_die(out[out.len() - 1]);
        }
    }

    /// Queue pooled write `id` on `plane` of `die`.
    fn place(&mut self, id: TxId, die: u32, plane: u32, now: Ns) {
        let t = self.txs.get_mut(id);
        t.plane = plane;
        t.die = die;
        let tx = *t;
        // Offered work, the die is idle: it is marked.
        debug_assert!(self.dies[die as usize].is_idle());
        self.enqueue_stored(id, &tx, now);
    }
}
