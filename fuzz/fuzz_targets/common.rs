//! Shared checks of the trace fuzz targets: the same invariants as
//! `crates/flashsched-core/tests/fuzz_props.rs`, on libFuzzer's inputs.

use std::io::Cursor;
use std::path::Path;

use flashsched_core::error::SimError;
use flashsched_core::workload::trace::{TimeOrder, TraceFormat, TraceOptions, TraceReader};

/// Read `data` as `format`; the first byte picks the options.
pub fn check(format: TraceFormat, data: &[u8]) {
    let Some((&sel, doc)) = data.split_first() else {
        return;
    };
    let options = TraceOptions {
        skip_bad: sel & 1 == 1,
        time_order: match (sel >> 1) % 3 {
            0 => TimeOrder::Clamp,
            1 => TimeOrder::Reject,
            _ => TimeOrder::Sort,
        },
    };
    let path = Path::new("/fuzz/input.trace");
    let lines = doc.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
    let mut r = TraceReader::from_reader(path, format, Box::new(Cursor::new(doc.to_vec())))
        .with_options(options);
    let mut last_t = 0u64;
    let mut recs = 0u64;
    for item in r.by_ref() {
        match item.map_err(|e| *e) {
            Ok(rec) => {
                recs += 1;
                assert!(rec.size > 0);
                assert!(rec.offset.checked_add(u64::from(rec.size)).is_some());
                assert!(rec.time_ns >= last_t);
                last_t = rec.time_ns;
            }
            Err(SimError::Trace { file, line, msg }) => {
                assert_eq!(file, path);
                assert!(line <= lines);
                assert!(
                    !options.skip_bad || msg.starts_with("no records in this "),
                    "{msg}"
                );
            }
            Err(e) => panic!("not a trace error: {e:?}"),
        }
    }
    assert_eq!(r.stats().records, recs);
}
