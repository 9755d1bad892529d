#![no_main]
//! The `spc` trace reader on arbitrary bytes.

use flashsched_core::workload::trace::TraceFormat;
use libfuzzer_sys::fuzz_target;

mod common;

fuzz_target!(|data: &[u8]| common::check(TraceFormat::Spc, data));
