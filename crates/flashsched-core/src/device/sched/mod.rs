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
mod batch_queue;
mod bits;
mod fifo;
#[cfg(test)]
mod hides_suspend;
mod lanes;
mod mqsim;
mod pe_suspend;
mod piq;
mod ssdsim;
#[cfg(test)]
mod tests;
mod vios;

use crate::device::config::MultiPlane;
use crate::device::gc_gate::GcGate;
use crate::device::tx::{Origin, Tx, TxArena, TxId, TxKind};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::flash::die::Die;
use crate::flash::Geometry;
use crate::ftl::{Ftl, SpeedPref, Stream, STREAMS};
use crate::registry::{self, Entry, Params, Registry, SchedTables};

pub use aos::{Aos, AosParams, Refill};
pub use batch::{StartOrder, Unit};
pub use batch_queue::{BatchQueue, ChipSet};
pub use fifo::Fifo;
pub use mqsim::MqsimPriority;
pub use pe_suspend::{PeSuspend, PeSuspendParams};
pub use piq::{Piq, PiqParams};
pub use ssdsim::{FcfsOrder, Pairing, SsdsimFcfs, SsdsimParams};
pub use vios::{FreeChoice, Vios, ViosParams};

/// What a scheduler may consult when choosing work for a die.
pub struct PickCtx<'a> {
    /// Current simulated time.
    pub now: Ns,
    /// Every live transaction (the queued ids point into it).
    pub txs: &'a TxArena,
    /// Free-page state, for [`PickCtx::can_issue`].
    pub ftl: &'a Ftl,
    /// The device's multi-plane rule, for [`PickCtx::companion_ok`].
    pub multiplane: MultiPlane,
    /// The GC-mode rule, for [`PickCtx::can_issue`].
    pub gate: &'a GcGate,
    /// The device offers user work first: GC work cannot start unless
    /// urgent (`ftl.gc_mode = "preemptive"`).
    pub user_only: bool,
    /// A chip runs one command at a time (`controller.busy_unit = "chip"`):
    /// the dies of a chip compete for it.
    pub chip_busy: bool,
    /// Every die's state, for [`PickCtx::die_free`].
    pub dies: &'a [Die],
    /// Programs queued per plane by write stream, for
    /// [`PickCtx::companion_possible`].
    pub queued_programs: &'a [[u32; STREAMS]],
    /// Reads are one-page commands that join no interleaved group
    /// (`controller.advanced_reads = false`), for [`PickCtx::can_issue`].
    pub lone_reads: bool,
}

/// What a multi-plane command may combine: operations of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpClass {
    Read,
    Copyback,
    Program,
    Erase,
}

fn op_class(t: &Tx) -> OpClass {
    match t.kind {
        TxKind::Read if t.copyback => OpClass::Copyback,
        TxKind::Read => OpClass::Read,
        TxKind::Program => OpClass::Program,
        TxKind::Erase => OpClass::Erase,
    }
}

impl PickCtx<'_> {
    /// Whether `die` runs nothing and holds no suspended operation (it would
    /// start work if offered some, its chip permitting).
    #[inline]
    pub fn die_free(&self, die: u32) -> bool {
        let d = &self.dies[die as usize];
        d.is_idle() && d.suspended.is_none()
    }

    /// Whether `tx` can start now: a program needs a free page, and GC may
    /// hold the last free block; and the GC mode may hold user work back
    /// from a unit in GC, or GC work back from user work (`GcGate`).
    /// Schedulers must skip ones that cannot.
    #[inline]
    pub fn can_issue(&self, tx: &Tx) -> bool {
        self.has_space(tx)
            && self.gate.allows(tx, self.ftl, self.user_only)
            && !(self.lone_reads && self.joins_group(tx))
    }

    /// Whether `tx`, a read, would join a command group running on another
    /// die of its chip (interleaving), which a lone read may not. Its own
    /// die is busy only when the read would preempt (suspend) what runs
    /// there, which a lone read may do.
    #[inline]
    fn joins_group(&self, tx: &Tx) -> bool {
        if !tx.is_plain_read() || !self.chip_busy {
            return false;
        }
        let dpc = self.ftl.geo.dies_per_chip;
        let first = self.ftl.geo.chip_of_die(tx.die) * dpc;
        (first..first + dpc).any(|d| d != tx.die && !self.dies[d as usize].is_idle())
    }

    /// Only programs (and copyback moves, which program) can be blocked on
    /// space.
    #[inline]
    fn has_space(&self, tx: &Tx) -> bool {
        match (tx.kind, tx.origin, tx.copyback) {
            (TxKind::Program, Origin::User | Origin::Mapping, _) => {
                let s = program_stream(self.ftl, tx.origin);
                self.ftl.can_alloc(tx.plane, s) || self.ftl.replan(tx.plane, s).is_some()
            }
            (TxKind::Program, Origin::Gc, _) | (TxKind::Read, Origin::Gc, true) => {
                self.ftl.can_alloc(tx.plane, Stream::Gc)
            }
            _ => true,
        }
    }

    /// The [`companion_tag`] every companion of `lead` has, when the
    /// multi-plane rule fixes one (a read under the ONFI and same-block
    /// rules: its page offset; a program under `onfi-queued`: its queued
    /// offset): a queue may keep each entry's tag and pass over the others
    /// without reading them. MQSim's GC-heavy runs asked `companion_ok` of
    /// ~34 queued transactions per command (session 53).
    #[inline]
    pub fn companion_offset(&self, lead: &Tx) -> Option<u32> {
        match (self.multiplane, lead.kind) {
            (MultiPlane::Onfi | MultiPlane::OnfiQueued | MultiPlane::SameBlock, TxKind::Read)
            | (MultiPlane::OnfiQueued, TxKind::Program) => Some(companion_tag(&self.ftl.geo, lead)),
            _ => None,
        }
    }

    /// Whether `cand` may join the multi-plane command led by `lead`, whose
    /// members hold the planes in `taken` (bit `plane % planes_per_die`):
    /// same die and class of operation, a free plane, able to start now, and
    /// under the ONFI rule the same page offset in its block (for a program,
    /// the offset its plane's open block would give it).
    pub fn companion_ok(&self, lead: &Tx, cand: &Tx, taken: u64) -> bool {
        let geo = &self.ftl.geo;
        if cand.die != lead.die
            || op_class(cand) != op_class(lead)
            || taken & (1 << geo.plane_in_die(cand.plane)) != 0
            || !self.can_issue(cand)
            || (cand.kind == TxKind::Program && self.moved_program(lead, cand))
        {
            return false;
        }
        match self.multiplane {
            MultiPlane::Off => false,
            MultiPlane::Relaxed => true,
            MultiPlane::Onfi | MultiPlane::OnfiQueued => match lead.kind {
                TxKind::Erase => true,
                TxKind::Read => geo.page_in_block(cand.ppn) == geo.page_in_block(lead.ppn),
                TxKind::Program => self.program_offset(cand) == self.program_offset(lead),
            },
            MultiPlane::SameBlock => match lead.kind {
                TxKind::Erase => true,
                TxKind::Read => {
                    let bpp = geo.blocks_per_plane;
                    geo.page_in_block(cand.ppn) == geo.page_in_block(lead.ppn)
                        && geo.block_of(cand.ppn) % bpp == geo.block_of(lead.ppn) % bpp
                }
                TxKind::Program => {
                    // The lower plane leads the command (exec.rs); the
                    // higher one must not be past its page. Exact for two
                    // planes per die, SSDsim's only two-plane case.
                    let s = program_stream(self.ftl, lead.origin);
                    let index = |t: &Tx| self.ftl.next_block_index(t.plane, s);
                    let (lo, hi) = if cand.plane < lead.plane {
                        (cand, lead)
                    } else {
                        (lead, cand)
                    };
                    index(cand).is_some()
                        && index(cand) == index(lead)
                        && self.next_offset(hi) <= self.next_offset(lo)
                }
            },
        }
    }

    /// Whether a program of a would-be multi-plane command could start only
    /// on another plane ([`Ftl::replan`]): such a program runs alone.
    #[inline]
    fn moved_program(&self, lead: &Tx, cand: &Tx) -> bool {
        let moves = |t: &Tx| {
            t.origin.foreground()
                && self
                    .ftl
                    .replan(t.plane, program_stream(self.ftl, t.origin))
                    .is_some()
        };
        moves(lead) || moves(cand)
    }

    /// Whether any transaction at all could pass [`PickCtx::companion_ok`]
    /// for `lead` with planes `taken`: false when the die has no free plane,
    /// or when `lead` is a program under the ONFI rule and no free plane of
    /// its die, in either write stream, is at `lead`'s page offset. Exact (it
    /// only rules out what `companion_ok` would reject), and it spares the
    /// device a scan of a long queue for a companion that cannot exist, the
    /// common case for programs while GC runs.
    pub fn companion_possible(&self, lead: &Tx, taken: u64) -> bool {
        let ppd = self.ftl.geo.planes_per_die;
        let free = !taken & (u64::MAX >> (64 - ppd));
        if free == 0 || self.multiplane == MultiPlane::Off {
            return false;
        }
        let queued = match self.multiplane {
            MultiPlane::Onfi => false,
            MultiPlane::OnfiQueued => true,
            _ => return true,
        };
        if lead.kind != TxKind::Program {
            return true;
        }
        let want = self.program_offset(lead);
        let base = self.ftl.geo.die_of_plane(lead.plane) * ppd;
        (0..ppd).filter(|k| free & (1 << k) != 0).any(|k| {
            let plane = base + k;
            // Under `onfi-queued` a host program waiting on `plane` holds
            // an offset of its own (any, once programs start out of turn).
            (queued && self.queued_programs[plane as usize].iter().any(|&n| n > 0))
                || [Stream::User, Stream::Gc, self.ftl.mapping_stream()]
                    .iter()
                    .any(|&s| self.ftl.next_page_offset(plane, s) == want)
        })
    }

    /// The page offset `companion_ok` compares for program `t`: the one it
    /// was given when queued (under `onfi-queued`), else the one it would
    /// get if it started now.
    #[inline]
    fn program_offset(&self, t: &Tx) -> u32 {
        if self.multiplane == MultiPlane::OnfiQueued {
            t.queued_offset()
        } else {
            self.next_offset(t)
        }
    }

    /// Page offset a program would get if it started now.
    fn next_offset(&self, t: &Tx) -> u32 {
        self.ftl
            .next_page_offset(t.plane, program_stream(self.ftl, t.origin))
    }
}

/// What [`PickCtx::companion_ok`] compares of a transaction when the
/// multi-plane rule fixes an offset: a read's page offset in its block, a
/// program's queued offset (`onfi-queued`). Neither changes while it is
/// queued: a read is resolved again, a program re-planned, only when it
/// starts, and queued anew if it moved.
#[inline]
pub fn companion_tag(geo: &Geometry, t: &Tx) -> u32 {
    match t.kind {
        TxKind::Read => geo.page_in_block(t.ppn),
        TxKind::Program => t.queued_offset(),
        TxKind::Erase => 0,
    }
}

/// The write stream a program from `origin` allocates from.
#[inline]
pub(crate) fn program_stream(ftl: &Ftl, origin: Origin) -> Stream {
    match origin {
        Origin::Gc | Origin::Reclaim => Stream::Gc,
        Origin::Mapping => ftl.mapping_stream(),
        Origin::User | Origin::Update => Stream::User,
    }
}

/// Fast-path hints a transaction scheduler gives about itself. Each lets the
/// device skip work; a wrong hint changes results silently, so the
/// every-scheduler property test runs each scheduler with its hints checked
/// (`Ssd::verify_hints`: nothing skipped, and a preemption by a scheduler
/// that does not declare `suspends` is an error) and requires identical
/// summaries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TxCaps {
    /// `pick(die)` (and `pick_chip(chip, dies)`) only look at those dies'
    /// own transactions, return `None` when they have none and change
    /// nothing then: the device skips asking for dies with no queued work.
    pub per_die: bool,
    /// The scheduler plans across dies (`prepare`, `wakes`); the device
    /// skips both calls otherwise.
    pub coordinates: bool,
    /// The scheduler keeps queues per chip and chooses for a whole chip
    /// (`pick_chip`, the transaction's die follows from it) instead of
    /// being offered dies one by one. Not a fast-path hint: it selects the
    /// interface the device uses.
    pub chip_queues: bool,
    /// `preempt` may return work (else the device skips the suspension path).
    /// Not a pure shortcut: a busy die marked for a possible suspension keeps
    /// its place among the dies to serve, which orders them differently.
    pub suspends: bool,
}

impl TxCaps {
    /// These hints with every pure shortcut off.
    pub fn conservative(self) -> TxCaps {
        TxCaps {
            per_die: false,
            coordinates: true,
            ..self
        }
    }
}

/// A flash transaction scheduler.
pub trait TxScheduler: Send {
    /// A new transaction is ready (its die is `tx.die`).
    fn push(&mut self, id: TxId, tx: &Tx, now: Ns);
    /// Choose the next transaction to start on idle `die`, removing it from
    /// the scheduler's queues.
    fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId>;
    /// Transactions queued (not yet started).
    fn pending(&self) -> usize;
    /// Fast-path hints (see [`TxCaps`]); asked once, when the device is built.
    fn caps(&self) -> TxCaps {
        TxCaps::default()
    }
    /// Called once per decide phase before any die is offered work.
    fn prepare(&mut self, _ctx: &PickCtx) {}
    /// Append dies that should be offered work (and clear the list).
    fn wakes(&mut self, _out: &mut Vec<u32>) {}
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
    /// Chip-level dispatch (`caps().chip_queues`): the next transaction for
    /// `chip`, on one of the dies in `dies` (bit `die % dies_per_chip`: the
    /// idle dies that may start now), removed from the queues.
    fn pick_chip(&mut self, _chip: u32, _dies: u64, _ctx: &PickCtx) -> Option<TxId> {
        None
    }
    /// Multi-plane assembly: a queued transaction that may join the command
    /// led by `lead` (which `pick` just returned; its members hold the
    /// planes in `taken`), removed from the queues — see
    /// [`PickCtx::companion_ok`]. Asked only when the device's multi-plane
    /// rule is on; the default never combines.
    fn pick_companion(
        &mut self,
        _die: u32,
        _lead: &Tx,
        _taken: u64,
        _ctx: &PickCtx,
    ) -> Option<TxId> {
        None
    }
    /// Block speed for user program `id`, which `pick` just returned.
    fn alloc_pref(&mut self, _id: TxId, _tx: &Tx) -> SpeedPref {
        SpeedPref::InOrder
    }
}

/// A transaction scheduler type, registered with one line: `entry::<T>()`.
pub trait TxSchedulerType: TxScheduler + Sized + 'static {
    /// Name in configs and on the command line.
    const NAME: &'static str;
    /// One line for listings.
    const ABOUT: &'static str;
    /// Its `[controller.<NAME>]` table.
    type Params: Params;
    /// A scheduler with tunables `params` for a device of geometry `geo`.
    fn new(params: Self::Params, geo: &Geometry) -> Self;
}

type Build = fn(&toml::Value, &str, &Geometry) -> SimResult<Box<dyn TxScheduler>>;

/// The registry entry of scheduler type `S`.
pub const fn entry<S: TxSchedulerType>() -> Entry<Build> {
    Entry::new::<S::Params>(S::NAME, S::ABOUT, build::<S>)
}

fn build<S: TxSchedulerType>(
    table: &toml::Value,
    key: &str,
    geo: &Geometry,
) -> SimResult<Box<dyn TxScheduler>> {
    Ok(Box::new(S::new(registry::parse(table, key)?, geo)))
}

/// The transaction schedulers, in listing order.
pub const REGISTRY: Registry<Build> = Registry {
    kind: "device scheduler",
    section: "controller",
    entries: &[
        entry::<Fifo>(),
        entry::<Piq>(),
        entry::<PeSuspend>(),
        entry::<Aos>(),
        entry::<Vios>(),
        entry::<MqsimPriority>(),
        entry::<SsdsimFcfs>(),
        #[cfg(test)]
        entry::<hides_suspend::HidesSuspend>(),
    ],
};

/// Names of all registered transaction schedulers.
pub fn names() -> Vec<&'static str> {
    REGISTRY.names()
}

/// Build the scheduler called `name` with its tunables from `tables`
/// (`[controller.<name>]`; defaults where absent).
pub fn build_named(
    name: &str,
    tables: &SchedTables,
    geo: &Geometry,
) -> SimResult<Box<dyn TxScheduler>> {
    let (table, key) = REGISTRY.table_of(name, tables)?;
    (REGISTRY.get(name)?.build)(&table, &key, geo)
}
