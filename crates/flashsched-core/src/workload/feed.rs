//! How a simulation asks a workload for requests: poll at each arrival
//! (open loop) or after a completion (closed loop), until it is done.

use std::collections::BTreeSet;

use super::{IoRecord, Poll, Workload};
use crate::engine::{EventQueue, Ns};
use crate::error::SimResult;

/// The poll state of one workload: the records of the last poll and what
/// the workload wants next.
#[derive(Debug, Default)]
pub struct Feed {
    buf: Vec<IoRecord>,
    next: Option<Poll>,
    blocked: bool,
    done: bool,
    /// Times of the poll events pushed for [`Poll::Wait`] and not yet
    /// reached: a time already pushed is not pushed again, so completions
    /// that re-poll a waiting workload do not pile up duplicate events.
    timers: BTreeSet<Ns>,
}

impl Feed {
    /// Take the records of `w` that arrive at `now`; returns how many
    /// (read them with [`Feed::record`], then call [`Feed::schedule`]).
    pub fn poll(&mut self, w: &mut dyn Workload, now: Ns) -> SimResult<usize> {
        self.buf.clear();
        if self.timers.first().is_some_and(|&t| t <= now) {
            self.timers = self.timers.split_off(&(now + 1));
        }
        self.next = Some(w.poll(now, &mut self.buf)?);
        Ok(self.buf.len())
    }

    /// Record `i` of the last poll.
    #[inline]
    pub fn record(&self, i: usize) -> IoRecord {
        self.buf[i]
    }

    /// After the last poll's records were handled: an open-loop workload's
    /// next poll is event `ev` at its next arrival; a closed-loop one waits
    /// for a completion ([`Feed::blocked`]).
    pub fn schedule<E: Copy>(&mut self, now: Ns, q: &mut EventQueue<E>, ev: E) {
        self.blocked = false;
        match self.next.take() {
            Some(Poll::At(t)) => q.push(t.max(now), ev),
            Some(Poll::Blocked) => self.blocked = true,
            Some(Poll::Wait(t)) => {
                self.blocked = true;
                let t = t.max(now);
                if self.timers.insert(t) {
                    q.push(t, ev);
                }
            }
            Some(Poll::Done) => self.done = true,
            None => {}
        }
    }

    /// The workload waits for a completion before it can issue more.
    #[inline]
    pub fn blocked(&self) -> bool {
        self.blocked
    }

    /// The workload has issued everything.
    #[inline]
    pub fn done(&self) -> bool {
        self.done
    }
}
