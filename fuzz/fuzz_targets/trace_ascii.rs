#![no_main]
//! The `ascii-ns` and `ascii-ms` trace readers on arbitrary bytes.

use flashsched_core::workload::trace::TraceFormat;
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| {
    common::check(TraceFormat::AsciiNs, data);
    common::check(TraceFormat::AsciiMs, data);
});
