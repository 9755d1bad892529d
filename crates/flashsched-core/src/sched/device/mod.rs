//! Device-level transaction schedulers (below the FTL).
//!
//! The device offers work to a scheduler die by die (`pick`, when a die is
//! idle). Schedulers that hold transactions back (batching, re-ordering sets)
//! or that preempt running operations use the optional hooks below; their
//! defaults leave a plain per-die scheduler such as `fifo` unchanged:
//! - `prepare` runs once at the start of every decide phase (batch forming,
//!   dispatching into a re-ordering set);
//! - `wakes` names dies that now have releasable work (they are offered work
//!   in the order given, which is how a scheduler orders issue to the dies of
//!   a channel and hence bus grants);
//! - `preempt` lets a scheduler run a queued transaction on a die that is
//!   busy with (or has suspended) a program/erase — P/E suspension;
//! - `alloc_pref` asks which block speed a starting user program should get
//!   (variation-aware allocation, VIOS §3.3).

mod aos;
mod batch;
mod fifo;
mod pe_suspend;
mod piq;
mod vios;

use super::Registry;
use crate::config::ControllerConfig;
use crate::device::tx::{Origin, Tx, TxArena, TxId, TxKind};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::flash::Geometry;
use crate::ftl::{Ftl, SpeedPref, Stream};

pub use aos::Aos;
pub use batch::{BatchQueue, ChipSet};
pub use fifo::Fifo;
pub use pe_suspend::PeSuspend;
pub use piq::Piq;
pub use vios::Vios;

/// What a scheduler may consult when choosing work for a die.
pub struct PickCtx<'a> {
    pub now: Ns,
    pub txs: &'a TxArena,
    /// Free-page state, for [`PickCtx::can_issue`].
    pub ftl: &'a Ftl,
}

impl PickCtx<'_> {
    /// Whether `tx` can start now: a program needs a free page, and GC may
    /// hold the last free block. Schedulers must skip ones that cannot. Only
    /// programs (and copyback moves, which program) can be blocked on space.
    #[inline]
    pub fn can_issue(&self, tx: &Tx) -> bool {
        match (tx.kind, tx.origin, tx.copyback) {
            (TxKind::Program, Origin::User, _) => self.ftl.can_alloc(tx.plane, Stream::User),
            (TxKind::Program, Origin::Gc, _) | (TxKind::Read, Origin::Gc, true) => {
                self.ftl.can_alloc(tx.plane, Stream::Gc)
            }
            _ => true,
        }
    }
}

/// A flash transaction scheduler.
pub trait TxScheduler: Send {
    fn name(&self) -> &'static str;
    /// A new transaction is ready (its die is `tx.die`).
    fn push(&mut self, id: TxId, tx: &Tx, now: Ns);
    /// Choose the next transaction to start on idle `die`, removing it from
    /// the scheduler's queues.
    fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId>;
    /// Transactions queued (not yet started).
    fn pending(&self) -> usize;
    /// Whether `pick(die)` only looks at `die`'s own transactions and does
    /// nothing when it has none: the device then skips asking for a die with
    /// no queued work.
    fn per_die(&self) -> bool {
        false
    }
    /// Whether this scheduler uses `prepare` and `wakes` (schedulers that
    /// plan across dies); the device skips both calls otherwise.
    fn coordinates(&self) -> bool {
        false
    }
    /// Called once per decide phase before any die is offered work.
    fn prepare(&mut self, _ctx: &PickCtx) {}
    /// Append dies that should be offered work (and clear the list).
    fn wakes(&mut self, _out: &mut Vec<u32>) {}
    /// Whether `preempt` may ever return work (lets the device skip the
    /// suspension path entirely otherwise).
    fn suspends(&self) -> bool {
        false
    }
    /// `die` runs (or has suspended) `running`, a program or erase with
    /// `remaining` ns left after its next phase boundary: return a queued
    /// transaction to run in a suspension, removing it from the queues.
    fn preempt(
        &mut self,
        _die: u32,
        _running: &Tx,
        _remaining: Ns,
        _ctx: &PickCtx,
    ) -> Option<TxId> {
        None
    }
    /// Block speed for user program `id`, which `pick` just returned.
    fn alloc_pref(&mut self, _id: TxId, _tx: &Tx) -> SpeedPref {
        SpeedPref::InOrder
    }
}

type Ctor = fn(&Geometry, &ControllerConfig) -> Box<dyn TxScheduler>;

/// The registry: name → constructor.
const REGISTRY: Registry<Ctor> = Registry {
    kind: "device scheduler",
    entries: &[
        ("fifo", |g, _| Box::new(Fifo::new(g))),
        ("piq", |g, c| Box::new(Piq::new(g, c))),
        ("pe-suspend", |g, c| Box::new(PeSuspend::new(g, c))),
        ("aos", |g, c| Box::new(Aos::new(g, c))),
        ("vios", |g, c| Box::new(Vios::new(g, c))),
    ],
};

/// Names of all registered transaction schedulers.
pub fn names() -> Vec<&'static str> {
    REGISTRY.names()
}

/// Error unless `name` is registered.
pub fn check_name(name: &str) -> SimResult<()> {
    REGISTRY.get(name).map(|_| ())
}

/// Build the scheduler called `name`.
pub fn build(
    name: &str,
    geo: &Geometry,
    cfg: &ControllerConfig,
) -> SimResult<Box<dyn TxScheduler>> {
    Ok(REGISTRY.get(name)?(geo, cfg))
}
