//! The vocabulary shared by the layers a request crosses (workload, host,
//! device, metrics): what a request does, what finished, and what a host can
//! see of a device. It depends on nothing but time, so every layer can use it
//! without depending on another.

use crate::engine::Ns;

/// Direction of a block request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// Read the range.
    Read,
    /// Write the range.
    Write,
    /// Discard/TRIM of the range: invalidates mapped pages, no flash I/O.
    Trim,
}

impl Op {
    /// Short lowercase name used in tables and DataFrames.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
        }
    }
}

/// One completed request.
#[derive(Debug, Clone, Copy)]
pub struct Completion {
    /// Arrival at the host queue.
    pub arrival: Ns,
    /// Dispatch from the host queue to the device.
    pub dispatch: Ns,
    /// Completion, as the host (or an array's client) sees it.
    pub complete: Ns,
    /// What the request did.
    pub op: Op,
    /// Byte offset on the device's logical space.
    pub offset: u64,
    /// Size in bytes.
    pub size: u32,
    /// Stream id from the workload.
    pub stream: u32,
}

/// What the device exposes to host schedulers. A real host sees only the
/// first three; `chip_in_gc` (GC state) and `chip_of_lpn` (which chip a
/// logical page lives on) model an open-channel interface (Amphibian §III-E)
/// and are used by oracle experiments and chip-granular zones.
pub trait DeviceView {
    /// Device page size in bytes.
    fn page_size(&self) -> u32;
    /// Logical capacity in bytes.
    fn logical_bytes(&self) -> u64;
    /// Number of flash chips.
    fn chips(&self) -> u32;
    /// Whether any plane of `chip` is running GC right now.
    fn chip_in_gc(&self, chip: u32) -> bool;
    /// Chip holding logical page `lpn` (folded onto the logical space) under
    /// static allocation; `None` when the mapping is dynamic.
    fn chip_of_lpn(&self, _lpn: u64) -> Option<u32> {
        None
    }
    /// Number of planes (the static striping period in pages).
    fn planes(&self) -> u32 {
        self.chips()
    }
}
