//! A record of where data moves (host writes and TRIMs, programs, GC copies,
//! erases, reads sensed from flash or served from DRAM), emitted only when a
//! tap is attached: either kept in a `Vec` (for tests that replay it) or fed
//! as it happens to the streaming checker in [`crate::check`].

use crate::check::Checker;
use crate::io::Op;

/// One data movement. `id` numbers user page reads in submission order;
/// `seq` numbers user page writes in submission order (0 = data written
/// before the trace began).
// The fields are named in each variant's doc; repeating them per field would
// only restate their names.
#[allow(missing_docs)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpRecord {
    /// The device accepted host request `req` (host slot id).
    Submit {
        req: u32,
        op: Op,
        offset: u64,
        size: u32,
    },
    /// The device finished host request `req`.
    Complete { req: u32 },
    /// The host wrote version `seq` of `lpn` (device accepted the write).
    Write { lpn: u32, seq: u64 },
    /// The host TRIMmed `lpn` (its data is discarded; reads return zeros).
    Trim { lpn: u32 },
    /// Host request `req` reads `lpn` (page read `id`).
    Read { id: u64, lpn: u32, req: u32 },
    /// Read `id` was answered from controller DRAM (a write of `lpn` in flight).
    DramHit { id: u64, lpn: u32 },
    /// Read `id` found its page unmapped (trimmed) and returned zeros.
    Unmapped { id: u64 },
    /// Read `id` is of a never-written page that could not be placed (its
    /// plane is full): it senses an arbitrary page and returns no defined data.
    Unplaced { id: u64 },
    /// Read `id` sensed physical page `ppn`.
    Sense { id: u64, ppn: u32 },
    /// Physical page `ppn` was programmed with version `seq` of `lpn`.
    Program { ppn: u32, lpn: u32, seq: u64 },
    /// Physical page `ppn` was programmed with version `seq` of hidden
    /// logical page `lpn` (a translation page of the cached mapping table;
    /// no host read sees it).
    HiddenProgram { ppn: u32, lpn: u32, seq: u64 },
    /// Physical page `ppn` was skipped without data (a two-plane program's
    /// companion levelled up to its lead's page).
    Skip { ppn: u32 },
    /// The program of version `seq` of `lpn` finished (its DRAM copy may go).
    ProgramDone { lpn: u32, seq: u64 },
    /// GC copied page `from` into `to`.
    GcCopy { from: u32, to: u32 },
    /// The erase of block `block` began (its contents are no longer readable).
    EraseStart { block: u32 },
    /// Block `block` was erased.
    Erase { block: u32 },
}

/// Where records go when recording is on (boxed in the device so the
/// recording-off path costs one branch).
#[derive(Default)]
pub struct OpTap {
    /// Every record, in order (tests that replay the log).
    pub log: Option<Vec<OpRecord>>,
    /// The streaming version oracle and flash invariants (`--check`).
    pub check: Option<Checker>,
}

impl OpTap {
    /// Pass `r` to every attached consumer.
    #[inline]
    pub fn push(&mut self, r: OpRecord) {
        if let Some(l) = &mut self.log {
            l.push(r);
        }
        if let Some(c) = &mut self.check {
            c.record(r);
        }
    }
}
