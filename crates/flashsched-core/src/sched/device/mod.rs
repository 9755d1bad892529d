//! Device-level transaction schedulers (below the FTL).

mod fifo;

use crate::device::tx::{Tx, TxArena, TxId};
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::flash::Geometry;

pub use fifo::Fifo;

/// What a scheduler may consult when choosing work for a die.
pub struct PickCtx<'a> {
    pub now: Ns,
    pub txs: &'a TxArena,
    /// Whether a transaction can start now (a program needs a free page; GC
    /// may hold the last free block). Schedulers must skip ones that cannot.
    pub issuable: &'a dyn Fn(&Tx) -> bool,
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
}

type Ctor = fn(&Geometry) -> Box<dyn TxScheduler>;

/// The registry: name → constructor.
const REGISTRY: &[(&str, Ctor)] = &[("fifo", |g| Box::new(Fifo::new(g)))];

/// Names of all registered transaction schedulers.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|(n, _)| *n).collect()
}

/// Error unless `name` is registered.
pub fn check_name(name: &str) -> SimResult<()> {
    if REGISTRY.iter().any(|(n, _)| *n == name) {
        Ok(())
    } else {
        Err(SimError::unknown("device scheduler", name, &names()))
    }
}

/// Build the scheduler called `name`.
pub fn build(name: &str, geo: &Geometry) -> SimResult<Box<dyn TxScheduler>> {
    REGISTRY
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, ctor)| ctor(geo))
        .ok_or_else(|| SimError::unknown("device scheduler", name, &names()))
}
