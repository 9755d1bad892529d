#![no_main]
//! The `blkparse` (D events) and `blkparse-q` trace readers on arbitrary bytes.

use flashsched_core::workload::trace::TraceFormat;
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    common::check(TraceFormat::Blkparse, data);
    common::check(TraceFormat::BlkparseQ, data);
});
