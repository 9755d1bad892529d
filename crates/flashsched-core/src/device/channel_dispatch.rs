//! `controller.dispatch = "channel-idle"`: chips are offered work only at
//! instants their channel is idle, as MQSim's transaction scheduling unit
//! does (its TSU runs when a channel-idle signal fires; a chip that frees
//! while its channel is busy waits for it).
//!
//! - The bus is idle at an instant when every transfer asked for by then has
//!   ended. A read whose sense has ended asks for the bus at once, so read
//!   data-outs waiting for the bus always go before new commands: a new
//!   command is never issued while one waits.
//! - At an idle instant the channel's chips are offered work round robin,
//!   starting after the chip the last pass stopped at, until a transfer
//!   takes the bus (a program's data-in, or any command's cycles when they
//!   take bus time, `timing.*_command_ns`; without them a read's command
//!   takes none, so reads go to every idle chip with work at that instant).
//! - When the bus is busy, a wake-up is set for the end of the current run
//!   of back-to-back transfers, if an idle chip of the channel has work;
//!   the pass runs then (or is put off again if more data-outs joined the
//!   run).
//!
//! - Data-outs waiting when the bus frees go by class, as MQSim's
//!   controller takes them: translation reads, then user reads, then GC
//!   reads (`Channel::by_class`).

use super::{DevEvent, EventSink, Ssd};
use crate::divisor::{add_mod, inc_mod};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::flash::Geometry;

/// Per-channel state of channel-idle dispatch.
#[derive(Debug)]
pub(super) struct ChannelDispatch {
    /// The chip (index within its channel) the next pass offers work first.
    next: Vec<u32>,
    /// When the wake-up set for each channel fires (`Ns::MAX`: none set).
    wake_at: Vec<Ns>,
    /// Per channel, its chips holding queued or running transactions (bit
    /// `k`: chip `k` of the channel), so a pass steps over the others at
    /// once instead of testing each (an unpredictable branch per chip).
    /// Kept with up to 64 chips per channel (else empty).
    loaded: Vec<u64>,
    /// Chips per channel.
    cpc: u32,
}

impl ChannelDispatch {
    pub(super) fn new(geo: &Geometry) -> Self {
        let masked = geo.chips_per_channel <= 64;
        ChannelDispatch {
            next: vec![0; geo.channels as usize],
            wake_at: vec![Ns::MAX; geo.channels as usize],
            loaded: vec![0; if masked { geo.channels as usize } else { 0 }],
            cpc: geo.chips_per_channel,
        }
    }

    /// Chip `way` of channel `ch` became loaded (`on`) or unloaded.
    #[inline]
    pub(super) fn set_loaded(&mut self, ch: u32, way: u32, on: bool) {
        if let Some(m) = self.loaded.get_mut(ch as usize) {
            if on {
                *m |= 1 << way;
            } else {
                *m &= !(1 << way);
            }
        }
    }

    /// How many chips of channel `ch`, from chip `way` on (round robin, at
    /// most `left`), hold nothing: a pass that may step over unloaded chips
    /// (`may_skip`) passes them without a visit. 0 without the masks.
    #[inline]
    fn unloaded_run(&self, ch: u32, way: u32, left: u32, may_skip: bool) -> u32 {
        let Some(&m) = self.loaded.get(ch as usize).filter(|_| may_skip) else {
            return 0;
        };
        let cpc = self.cpc;
        // The channel's chips from `way` on, as bits from bit 0.
        let rot = if way == 0 {
            m
        } else {
            (m >> way) | (m << (cpc - way))
        };
        let rot = if cpc == 64 {
            rot
        } else {
            rot & ((1 << cpc) - 1)
        };
        rot.trailing_zeros().min(left)
    }

    /// The loaded chips of channel `ch` (indices within it), if kept.
    #[inline]
    fn loaded_ways(&self, ch: u32) -> Option<u64> {
        self.loaded.get(ch as usize).copied()
    }
}

impl Ssd {
    /// Offer the chips of channel `ch` work if its bus is idle at `now`;
    /// otherwise (and when a pass leaves it busy) wake it when it frees.
    pub(super) fn serve_channel<S: EventSink>(
        &mut self,
        ch: u32,
        now: Ns,
        sink: &mut S,
    ) -> SimResult<()> {
        let cpc = self.geo.chips_per_channel;
        let mut left = cpc;
        while left > 0 {
            if !self.channels[ch as usize].idle_at(now) {
                break;
            }
            // A chip that holds nothing is passed by (`nothing_for_chip`):
            // the pass only moves on. Runs of them are stepped over at once
            // (asked each time: a visit may pool a write).
            let may_skip = self.idle_chips_pass();
            let Some(cd) = self.chan_dispatch.as_mut() else {
                return Ok(());
            };
            let first = cd.next[ch as usize];
            let skip = cd.unloaded_run(ch, first, left, may_skip);
            let way = add_mod(first, skip, cpc);
            left -= skip;
            if left == 0 {
                cd.next[ch as usize] = way;
                break;
            }
            left -= 1;
            cd.next[ch as usize] = inc_mod(way, cpc);
            let chip = ch * cpc + way;
            if self.nothing_for_chip(chip) {
                continue;
            }
            self.visit_chip(chip, now, sink)?;
        }
        let c = &self.channels[ch as usize];
        if !c.idle_at(now) && self.channel_has_idle_work(ch, now) {
            let at = c.busy_until(now);
            debug_assert!(at > now, "a busy bus frees in the future");

            if let Some(cd) = self.chan_dispatch.as_mut() {
                // One wake-up per channel: a later end is seen when it fires.
                if cd.wake_at[ch as usize] == Ns::MAX {
                    cd.wake_at[ch as usize] = at;
                    sink.push(at, DevEvent::ChannelFree { ch });
                }
            }
        }
        Ok(())
    }

    /// Whether a chip of channel `ch` that is idle at `now` has work queued
    /// (or pooled writes wait): only then must the channel wake when its
    /// bus frees. A busy chip is offered work when it frees, and a chip
    /// given work later asks then; a pass that finds nothing leaves the
    /// round-robin start where it was (it visits every chip once), so
    /// leaving it out changes nothing. (Each read command's bus time would
    /// otherwise cost a wake-up.)
    fn channel_has_idle_work(&self, ch: u32, now: Ns) -> bool {
        if !self.write_pool.is_empty() {
            return true;
        }
        let cpc = self.geo.chips_per_channel;
        let unblocked = |chip| self.chip_loaded(chip) && !self.cmds.chip_blocked(chip, now);
        match self
            .chan_dispatch
            .as_ref()
            .and_then(|cd| cd.loaded_ways(ch))
        {
            Some(mut m) => {
                while m != 0 {
                    if unblocked(ch * cpc + m.trailing_zeros()) {
                        return true;
                    }
                    m &= m - 1;
                }
                false
            }
            None => (ch * cpc..(ch + 1) * cpc).any(unblocked),
        }
    }

    /// The wake-up of channel `ch` fired: its chips are offered work in the
    /// decide phase of this instant (through one of its dies).
    pub(super) fn channel_free(&mut self, ch: u32) {
        let Some(cd) = self.chan_dispatch.as_mut() else {
            return;
        };
        cd.wake_at[ch as usize] = Ns::MAX;
        let chip = ch * self.geo.chips_per_channel + cd.next[ch as usize];
        self.mark(chip * self.geo.dies_per_chip);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flash::GeometryConfig;

    fn dispatch(cpc: u32) -> ChannelDispatch {
        ChannelDispatch::new(&Geometry::new(&GeometryConfig {
            channels: 2,
            chips_per_channel: cpc,
            dies_per_chip: 1,
            planes_per_die: 1,
            blocks_per_plane: 2,
            pages_per_block: 1,
            page_size: 4096,
        }))
    }

    /// The run of unloaded chips a pass steps over, counted round robin
    /// from its first chip, by hand.
    #[test]
    fn a_pass_steps_over_the_unloaded_chips_round_robin() {
        let mut cd = dispatch(4);
        assert_eq!(cd.unloaded_run(1, 0, 4, true), 4, "nothing loaded: all");
        cd.set_loaded(1, 2, true);
        assert_eq!(cd.unloaded_run(0, 0, 4, true), 4, "another channel's chip");
        // From chip 3: chips 3, 0, 1 hold nothing, chip 2 is next.
        assert_eq!(cd.unloaded_run(1, 3, 4, true), 3);
        assert_eq!(cd.unloaded_run(1, 3, 2, true), 2, "at most what is left");
        assert_eq!(cd.unloaded_run(1, 2, 4, true), 0);
        assert_eq!(cd.unloaded_run(1, 3, 4, false), 0, "no skipping asked");
        cd.set_loaded(1, 2, false);
        assert_eq!(cd.unloaded_run(1, 3, 4, true), 4);

        // 64 chips (the widest kept): chip 0 seen from chip 63 is one on.
        let mut cd = dispatch(64);
        cd.set_loaded(0, 0, true);
        assert_eq!(cd.unloaded_run(0, 63, 64, true), 1);
        assert_eq!(cd.unloaded_run(0, 1, 64, true), 63);
        // Wider channels keep no masks: every chip is visited.
        let cd = dispatch(65);
        assert_eq!(
            (cd.unloaded_run(0, 5, 65, true), cd.loaded_ways(0)),
            (0, None)
        );
    }
}
