//! Discrete-event engine: integer-nanosecond time, a priority queue whose
//! order among equal timestamps is fixed by a rank (so a run is a pure
//! function of its inputs), and the one driver loop every simulation runs.

mod driver;
mod queue;
mod sorted_run;

pub use driver::{advance, Clock, Model};
pub use queue::{EventQueue, FIFO_RANK};

/// Simulated time in nanoseconds.
pub type Ns = u64;

/// Nanoseconds per microsecond.
pub const NS_PER_US: Ns = 1_000;
/// Nanoseconds per millisecond.
pub const NS_PER_MS: Ns = 1_000_000;
/// Nanoseconds per second.
pub const NS_PER_S: Ns = 1_000_000_000;

/// Latest time a request may arrive: 2^64 − 2^60 ns (about 548 years;
/// exact in f64). The 2^60 ns (36 years) left above it is room for the work
/// after the last arrival, so sums of a time and a duration never wrap.
pub const MAX_ARRIVAL: Ns = 15 << 60;

/// Hint that `*r` will be read soon: a cache prefetch (x86_64; nothing
/// elsewhere). It never changes what a program computes.
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch never dereferences its address (and this one
        // comes from a reference); SSE is baseline on x86_64.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((r as *const T).cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
