//! The events a device schedules for itself, how they are ordered at one
//! instant, and their packed form in an event queue.

use crate::engine::Ns;

/// Events a device schedules for itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DevEvent {
    /// The cell operation on `die` finished (ignored if `gen` is stale).
    DieDone {
        /// Global die index.
        die: u32,
        /// The die's generation when the operation was scheduled.
        gen: u32,
    },
    /// The next data-out on channel `ch` may have ended (ignored if none
    /// ends now: it was delayed, and a new event queued for it).
    BusDone {
        /// Channel index.
        ch: u32,
    },
    /// The bus of channel `ch` may be idle now: offer its chips work
    /// (`controller.dispatch = "channel-idle"`).
    ChannelFree {
        /// Channel index.
        ch: u32,
    },
    /// A front-end step (host link, DRAM) planned in `slot` is due.
    Front {
        /// Host slot of the request the step belongs to.
        slot: u32,
        /// Plan order (wrapping): steps due at one instant run in it.
        seq: u32,
    },
}

impl DevEvent {
    /// Order among device events at the same nanosecond (`EventQueue::
    /// push_ranked`): bus transfers before cell operations, each by index,
    /// as firmware polling channels then dies in a fixed order would see them
    /// (channel wake-ups between the two); front-end steps last, in the
    /// order they were planned (their slots are reused, so ranking them by
    /// slot would reorder simultaneous host requests; the order wraps every
    /// 2^31 steps). Below 2^33.
    #[inline]
    pub fn rank(self) -> u64 {
        match self {
            DevEvent::BusDone { ch, .. } => ch as u64,
            DevEvent::ChannelFree { ch } => 1 << 31 | ch as u64,
            DevEvent::DieDone { die, .. } => 1 << 32 | die as u64,
            DevEvent::Front { seq, .. } => 3 << 31 | (seq & 0x7fff_ffff) as u64,
        }
    }

    /// The event packed: tag in bits 0-7, fields from bit 8, 32 bits each
    /// (bits 104-127 are the owner's: `PackedEvent::with_owner`).
    #[inline(always)]
    pub fn pack(self) -> PackedEvent {
        let f = |tag: u8, a: u32, b: u32, c: u32| {
            PackedEvent(tag as u128 | (a as u128) << 8 | (b as u128) << 40 | (c as u128) << 72)
        };
        match self {
            DevEvent::DieDone { die, gen } => f(0, die, gen, 0),
            DevEvent::BusDone { ch } => f(1, ch, 0, 0),
            DevEvent::ChannelFree { ch } => f(2, ch, 0, 0),
            DevEvent::Front { slot, seq } => f(3, slot, seq, 0),
        }
    }
}

/// An event as queued: packed into one integer, which is built and stored
/// in registers. Queued as an enum, an event's fields were written to the
/// stack one by one and then read back at once to be copied into the
/// queue, a load the CPU cannot forward from those stores: a stall on
/// every push (BENCHMARKS.md, session 42). Tags 0-3 are the device's;
/// its owner (a simulation) uses the others for its own events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedEvent(u128);

impl PackedEvent {
    /// Tags the device's events do not use.
    pub const FIRST_FREE_TAG: u8 = 4;

    /// An event of the owner's with `tag` (at least `FIRST_FREE_TAG`) and
    /// one field.
    #[inline(always)]
    pub fn other(tag: u8, a: u32) -> PackedEvent {
        debug_assert!(tag >= Self::FIRST_FREE_TAG);
        PackedEvent(tag as u128 | (a as u128) << 8)
    }

    /// With `owner` (below 2^24, e.g. the SSD of an array) in the top bits.
    #[inline(always)]
    pub fn with_owner(self, owner: u32) -> PackedEvent {
        debug_assert!(owner < 1 << 24);
        PackedEvent(self.0 | (owner as u128) << 104)
    }

    /// Which event it is (0-3: a device event).
    #[inline(always)]
    pub fn tag(self) -> u8 {
        self.0 as u8
    }

    /// Field `i` (0-2).
    #[inline(always)]
    pub fn field(self, i: u32) -> u32 {
        (self.0 >> (8 + 32 * i)) as u32
    }

    /// The owner set by `with_owner` (0 if none).
    #[inline(always)]
    pub fn owner(self) -> u32 {
        (self.0 >> 104) as u32
    }

    /// The device event packed here, if the tag is one.
    #[inline(always)]
    pub fn device(self) -> Option<DevEvent> {
        let f = |i| self.field(i);
        Some(match self.tag() {
            0 => DevEvent::DieDone {
                die: f(0),
                gen: f(1),
            },
            1 => DevEvent::BusDone { ch: f(0) },
            2 => DevEvent::ChannelFree { ch: f(0) },
            3 => DevEvent::Front {
                slot: f(0),
                seq: f(1),
            },
            _ => return None,
        })
    }
}

/// Where a device puts its future events.
pub trait EventSink {
    /// Schedule `ev` at time `at`.
    fn push(&mut self, at: Ns, ev: DevEvent);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_unpack_as_packed_whatever_their_owner() {
        let evs = [
            DevEvent::DieDone {
                die: 7,
                gen: u32::MAX,
            },
            DevEvent::BusDone { ch: u32::MAX },
            DevEvent::ChannelFree { ch: 3 },
            DevEvent::Front {
                slot: 12,
                seq: u32::MAX - 1,
            },
        ];
        for e in evs {
            for owner in [0, 1, (1 << 24) - 1] {
                let p = e.pack().with_owner(owner);
                assert_eq!(p.device(), Some(e));
                assert_eq!(p.owner(), owner);
            }
        }
        let o = PackedEvent::other(PackedEvent::FIRST_FREE_TAG + 1, u32::MAX).with_owner(5);
        assert_eq!(
            (o.device(), o.tag(), o.field(0), o.owner()),
            (None, 5, u32::MAX, 5)
        );
    }
}
