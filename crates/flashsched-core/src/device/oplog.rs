//! A record of where data moves (host writes, programs, GC copies, erases,
//! reads sensed from flash or served from DRAM), kept only when enabled, so a
//! test can rebuild the flash contents independently and check what every
//! read returned (the AOS PAR/EAR hazard oracle).

/// One data movement. `id` numbers user page reads in submission order;
/// `seq` numbers user page writes in submission order (0 = data written
/// before the trace began).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpRecord {
    /// The host wrote version `seq` of `lpn` (device accepted the write).
    Write { lpn: u32, seq: u64 },
    /// The host read `lpn` (read `id`).
    Read { id: u64, lpn: u32 },
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
    /// The program of version `seq` of `lpn` finished (its DRAM copy may go).
    ProgramDone { lpn: u32, seq: u64 },
    /// GC copied page `from` into `to`.
    GcCopy { from: u32, to: u32 },
    /// The erase of block `block` began (its contents are no longer readable).
    EraseStart { block: u32 },
    /// Block `block` was erased.
    Erase { block: u32 },
}
