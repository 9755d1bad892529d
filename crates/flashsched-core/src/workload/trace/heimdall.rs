//! Heimdall (ucare-uchicago/Heimdall) traces, e.g. its `msr.cut.per_10k.*`
//! windows: `ts(ms, decimal) dev offset(B) size(B) op` with op 1 = read,
//! 0 = write, whitespace separated. Stream: dev.

use super::{field_error, int_field, time_field, u32_field, Fields, Parsed, RawRecord};
use crate::workload::Op;

const LAYOUT: &str = "ts(ms) dev offset(B) size(B) op";

pub(super) fn parse(line: &[u8]) -> Result<Parsed, String> {
    let f = Fields::whitespace(line);
    if f.len() != 5 {
        return Err(super::count_error(
            "5 whitespace-separated",
            LAYOUT,
            f.len(),
            line,
        ));
    }
    let ts_ns = time_field(&f, 0, "time ms", 6)?;
    let stream = u32_field(&f, 1, "dev")?;
    let offset = int_field(&f, 2, "offset")?;
    let size = int_field(&f, 3, "size")?;
    let op = match f.get(4) {
        b"1" => Op::Read,
        b"0" => Op::Write,
        other => return Err(field_error(4, "op", "1 (read) or 0 (write)", other)),
    };
    Ok(Parsed::Record(RawRecord {
        ts_ns,
        offset,
        size,
        op,
        stream,
    }))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::TraceFormat;
    use crate::workload::{IoRecord, Op};

    const F: TraceFormat = TraceFormat::Heimdall;

    #[test]
    fn good_lines() {
        let text = b"223.412 0 3159347200 36864 0\n223.434\t3 3154132992 4096 1\n";
        assert_eq!(
            records(F, text),
            vec![
                IoRecord {
                    time_ns: 0,
                    offset: 3159347200,
                    size: 36864,
                    op: Op::Write,
                    stream: 0
                },
                IoRecord {
                    time_ns: 22_000,
                    offset: 3154132992,
                    size: 4096,
                    op: Op::Read,
                    stream: 3
                },
            ]
        );
    }

    #[test]
    fn skippable_lines() {
        let mut r = reader(F, b"# heimdall\n\n0.0 0 0 512 1\n0.1 0 0 0 1\n\0\0\0\n");
        assert_eq!(r.by_ref().count(), 1);
        assert_eq!(r.skipped(), 1);
    }

    #[test]
    fn bad_fields() {
        let good = "0.000 0 4096 4096 1\n";
        let cases: [(&str, &str); 6] = [
            (
                "1,5 0 0 512 1",
                "field 1 (time ms): expected a non-negative number, got \"1,5\"",
            ),
            ("1 -1 0 512 1", "field 2 (dev)"),
            (
                "1 0 0x10 512 1",
                "field 3 (offset): expected a non-negative integer, got \"0x10\"",
            ),
            ("1 0 0 4k 1", "field 4 (size)"),
            (
                "1 0 0 512 R",
                "field 5 (op): expected 1 (read) or 0 (write), got \"R\"",
            ),
            ("1 0 0 512", "expected 5 whitespace-separated fields"),
        ];
        for (bad, needle) in cases {
            let text = format!("{good}{bad}\n");
            assert_error(F, text.as_bytes(), 2, needle);
        }
    }
}
