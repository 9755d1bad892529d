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
//!
//! A pass steps over the chips a visit would leave as they are at once:
//! those holding nothing (when no pooled write waits) and those busy with
//! a command no new one may join (`Commands::chip_blocked`), as masks per
//! channel; the round robin ends where visiting them would leave it.

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
    /// Kept with up to 64 chips per channel (else empty), as are the next
    /// two.
    loaded: Vec<u64>,
    /// Per channel, its chips running a command under chip-level busy.
    active: Vec<u64>,
    /// Per channel, (when, chips): its chips whose command started then
    /// and may be joined at that instant (die interleaving), so are not
    /// blocked then.
    joinable: Vec<(Ns, u64)>,
    /// Chips per channel.
    cpc: u32,
}

impl ChannelDispatch {
    pub(super) fn new(geo: &Geometry) -> Self {
        let masks = if geo.chips_per_channel <= 64 {
            geo.channels as usize
        } else {
            0
        };
        ChannelDispatch {
            next: vec![0; geo.channels as usize],
            wake_at: vec![Ns::MAX; geo.channels as usize],
            loaded: vec![0; masks],
            active: vec![0; masks],
            joinable: vec![(Ns::MAX, 0); masks],
            cpc: geo.chips_per_channel,
        }
    }

    /// Chip `way` of channel `ch` started a command at `now` after being
    /// idle (`joinable`: others may join it at this instant), under
    /// chip-level busy.
    #[inline]
    pub(super) fn set_active(&mut self, ch: u32, way: u32, now: Ns, joinable: bool) {
        let c = ch as usize;
        if let Some(m) = self.active.get_mut(c) {
            *m |= 1 << way;
            let j = &mut self.joinable[c];
            if j.0 != now {
                *j = (now, 0);
            }
            if joinable {
                j.1 |= 1 << way;
            }
        }
    }

    /// Chip `way` of channel `ch` has no command running any more.
    #[inline]
    pub(super) fn set_inactive(&mut self, ch: u32, way: u32) {
        let c = ch as usize;
        if let Some(m) = self.active.get_mut(c) {
            *m &= !(1 << way);
            self.joinable[c].1 &= !(1 << way);
        }
    }

    /// The chips of channel `ch` that may not take a command at `now`
    /// (`Commands::chip_blocked`), if the masks are kept.
    #[inline]
    fn blocked(&self, ch: u32, now: Ns) -> Option<u64> {
        let c = ch as usize;
        let active = *self.active.get(c)?;
        let (at, j) = self.joinable[c];
        Some(if at == now { active & !j } else { active })
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
    /// most `left`), a visit at `now` would leave as they are: blocked
    /// ones, and those holding nothing when a pass may step over unloaded
    /// chips (`may_skip`). A pass passes them without a visit. 0 without
    /// the masks.
    #[inline]
    fn passed_run(&self, ch: u32, way: u32, left: u32, may_skip: bool, now: Ns) -> u32 {
        let Some(blocked) = self.blocked(ch, now) else {
            return 0;
        };
        let loaded = match may_skip {
            true => self.loaded[ch as usize],
            false => u64::MAX,
        };
        let cpc = self.cpc;
        let ways = if cpc == 64 { u64::MAX } else { (1 << cpc) - 1 };
        // The chips a visit may change something on.
        let m = loaded & !blocked & ways;
        // The channel's chips from `way` on, as bits from bit 0.
        let rot = if way == 0 {
            m
        } else {
            (m >> way) | (m << (cpc - way))
        };
        (rot & ways).trailing_zeros().min(left)
    }

    /// The chips of channel `ch` holding work that may take a command at
    /// `now` (indices within it), if the masks are kept.
    #[inline]
    fn unblocked_loaded(&self, ch: u32, now: Ns) -> Option<u64> {
        Some(self.loaded.get(ch as usize)? & !self.blocked(ch, now)?)
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
            // A chip that holds nothing is passed by (`nothing_for_chip`),
            // as is a blocked one: the pass only moves on. Runs of them are
            // stepped over at once (asked each time: a visit may pool a
            // write).
            let may_skip = self.idle_chips_pass();
            let Some(cd) = self.chan_dispatch.as_mut() else {
                return Ok(());
            };
            let first = cd.next[ch as usize];
            let skip = cd.passed_run(ch, first, left, may_skip, now);
            let way = add_mod(first, skip, cpc);
            left -= skip;
            cd.next[ch as usize] = if left == 0 { way } else { inc_mod(way, cpc) };
            debug_assert!(
                (0..skip).all(|k| {
                    let chip = ch * cpc + add_mod(first, k, cpc);
                    self.nothing_for_chip(chip) || self.cmds.chip_blocked(chip, now)
                }),
                "a pass stepped over a chip a visit could change"
            );
            if left == 0 {
                break;
            }
            left -= 1;
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
            .and_then(|cd| cd.unblocked_loaded(ch, now))
        {
            Some(m) => m != 0,
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
        let run = |cd: &ChannelDispatch, ch, way, left, may_skip| {
            cd.passed_run(ch, way, left, may_skip, 0)
        };
        assert_eq!(run(&cd, 1, 0, 4, true), 4, "nothing loaded: all");
        cd.set_loaded(1, 2, true);
        assert_eq!(run(&cd, 0, 0, 4, true), 4, "another channel's chip");
        // From chip 3: chips 3, 0, 1 hold nothing, chip 2 is next.
        assert_eq!(run(&cd, 1, 3, 4, true), 3);
        assert_eq!(run(&cd, 1, 3, 2, true), 2, "at most what is left");
        assert_eq!(run(&cd, 1, 2, 4, true), 0);
        assert_eq!(run(&cd, 1, 3, 4, false), 0, "no skipping asked");
        cd.set_loaded(1, 2, false);
        assert_eq!(run(&cd, 1, 3, 4, true), 4);

        // 64 chips (the widest kept): chip 0 seen from chip 63 is one on.
        let mut cd = dispatch(64);
        cd.set_loaded(0, 0, true);
        assert_eq!(run(&cd, 0, 63, 64, true), 1);
        assert_eq!(run(&cd, 0, 1, 64, true), 63);
        // Wider channels keep no masks: every chip is visited.
        let cd = dispatch(65);
        assert_eq!(
            (run(&cd, 0, 5, 65, true), cd.unblocked_loaded(0, 0)),
            (0, None)
        );
    }

    /// Busy chips are stepped over too, unless their command started at
    /// this instant and may be joined (die interleaving); with pooled
    /// writes waiting (no skipping of unloaded chips) only busy ones are.
    #[test]
    fn a_pass_steps_over_the_blocked_chips() {
        let mut cd = dispatch(4);
        for way in 0..4 {
            cd.set_loaded(0, way, true);
        }
        // Chips 1 and 2 busy since 10; chip 2's command may be joined then.
        cd.set_active(0, 1, 10, false);
        cd.set_active(0, 2, 10, true);
        assert_eq!(cd.passed_run(0, 1, 4, true, 10), 1, "chip 2 is joinable");
        assert_eq!(cd.passed_run(0, 1, 4, true, 11), 2, "not any more");
        assert_eq!(cd.passed_run(0, 1, 4, false, 11), 2);
        assert_eq!(cd.unblocked_loaded(0, 11), Some(0b1001));
        // A later start clears the joinable set of the earlier instant.
        cd.set_active(0, 3, 12, false);
        assert_eq!(cd.passed_run(0, 1, 4, true, 12), 3, "1, 2, 3 blocked");
        assert_eq!(cd.unblocked_loaded(0, 12), Some(0b0001));
        cd.set_inactive(0, 1);
        assert_eq!(cd.passed_run(0, 1, 4, true, 12), 0);
        // All blocked or unloaded: the whole channel is passed.
        cd.set_active(0, 1, 12, false);
        cd.set_loaded(0, 0, false);
        assert_eq!(cd.passed_run(0, 2, 4, true, 12), 4);
        assert_eq!(cd.passed_run(0, 2, 4, false, 12), 2, "chip 0 may pool");
    }
}
