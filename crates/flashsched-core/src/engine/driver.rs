//! The simulation loop shared by every model (one SSD, an SSD array).
//!
//! Determinism rests on one contract: each step takes *all* events at the
//! earliest timestamp and applies them, and only then lets the model decide
//! (its schedulers see requests that arrive together, together). A model
//! decides again within its `settle` until nothing more happens at that
//! instant.

use std::time::{Duration, Instant};

use super::{EventQueue, Ns};
use crate::error::SimResult;

/// The driver's state inside a model: its event queue and clock.
#[derive(Debug)]
pub struct Clock<E> {
    /// The model's future events.
    pub q: EventQueue<E>,
    now: Ns,
    started: bool,
    finished: bool,
    wall: Duration,
}

impl<E: Copy> Default for Clock<E> {
    fn default() -> Self {
        Clock {
            q: EventQueue::new(),
            now: 0,
            started: false,
            finished: false,
            wall: Duration::ZERO,
        }
    }
}

impl<E> Clock<E> {
    /// Current simulated time.
    #[inline]
    pub fn now(&self) -> Ns {
        self.now
    }

    /// The event queue ran dry and the model has finished.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Wall-clock time spent in the model so far (building it included, if
    /// it adds that with `add_wall`).
    pub fn wall(&self) -> Duration {
        self.wall
    }

    /// Count `d` of wall-clock time spent outside the driver (building).
    pub fn add_wall(&mut self, d: Duration) {
        self.wall += d;
    }
}

/// What the driver runs. A model owns its [`Clock`] and pushes its own
/// future events into `clock().q`.
pub trait Model {
    /// The model's event type.
    type Ev: Copy;
    /// The model's event queue and clock.
    fn clock(&mut self) -> &mut Clock<Self::Ev>;
    /// Take the workload's requests that arrive now (and arrange the next
    /// poll).
    fn poll(&mut self) -> SimResult<()>;
    /// The first instant: the workload's first arrivals, then a decide phase.
    fn start(&mut self) -> SimResult<()> {
        self.poll()?;
        self.settle(0)
    }
    /// Called before the events of instant `t` apply (e.g. to close
    /// time-series bins that end before it).
    #[inline]
    fn before_instant(&mut self, _t: Ns) {}
    /// Apply one event of instant `now`.
    fn apply(&mut self, ev: Self::Ev, now: Ns) -> SimResult<()>;
    /// The decide phase, once every event of `now` has been applied.
    fn settle(&mut self, now: Ns) -> SimResult<()>;
    /// Check-mode audits after the instant.
    #[inline]
    fn check_instant(&mut self, _now: Ns) -> SimResult<()> {
        Ok(())
    }
    /// Nothing is left to happen: report a stall, run final audits.
    fn finish(&mut self) -> SimResult<()>;
    /// The driver returns to its caller (after any number of instants, or
    /// an error): whatever the model defers while it runs (rows staged for
    /// their columns) must be in place now.
    #[inline]
    fn pause(&mut self) {}
}

/// Run `m` for up to `max_steps` instants; true once it has finished.
pub fn advance<M: Model>(m: &mut M, max_steps: u64) -> SimResult<bool> {
    let t0 = Instant::now();
    let r = steps(m, max_steps);
    m.pause();
    m.clock().wall += t0.elapsed();
    r
}

fn steps<M: Model>(m: &mut M, max_steps: u64) -> SimResult<bool> {
    if m.clock().finished {
        return Ok(true);
    }
    if !m.clock().started {
        m.clock().started = true;
        m.start()?;
    }
    for _ in 0..max_steps {
        let Some((t, first)) = m.clock().q.pop() else {
            m.finish()?;
            m.clock().finished = true;
            return Ok(true);
        };
        m.before_instant(t);
        m.clock().now = t;
        let mut next = Some(first);
        while let Some(ev) = next {
            m.apply(ev, t)?;
            next = m.clock().q.pop_at(t);
        }
        m.settle(t)?;
        m.check_instant(t)?;
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model that records what the driver hands it.
    #[derive(Default)]
    struct Log {
        clock: Clock<u32>,
        seen: Vec<String>,
    }

    impl Model for Log {
        type Ev = u32;
        fn clock(&mut self) -> &mut Clock<u32> {
            &mut self.clock
        }
        fn poll(&mut self) -> SimResult<()> {
            self.clock.q.push(5, 1);
            self.clock.q.push(5, 2);
            self.clock.q.push(9, 3);
            self.seen.push("poll".into());
            Ok(())
        }
        fn apply(&mut self, ev: u32, now: Ns) -> SimResult<()> {
            self.seen.push(format!("{ev}@{now}"));
            Ok(())
        }
        fn settle(&mut self, now: Ns) -> SimResult<()> {
            self.seen.push(format!("settle@{now}"));
            Ok(())
        }
        fn finish(&mut self) -> SimResult<()> {
            self.seen.push("finish".into());
            Ok(())
        }
        fn pause(&mut self) {
            self.seen.push("pause".into());
        }
    }

    #[test]
    fn every_event_of_an_instant_applies_before_one_settle() {
        let mut m = Log::default();
        assert!(!advance(&mut m, 1).unwrap(), "one instant, not finished");
        assert_eq!(
            m.seen,
            ["poll", "settle@0", "1@5", "2@5", "settle@5", "pause"]
        );
        assert!(advance(&mut m, u64::MAX).unwrap());
        assert_eq!(&m.seen[6..], ["3@9", "settle@9", "finish", "pause"]);
        assert!(m.clock.is_finished());
        assert!(advance(&mut m, 1).unwrap(), "finished stays finished");
        // The model is paused at every return, with nothing else done.
        assert_eq!(&m.seen[10..], ["pause"]);
    }
}
