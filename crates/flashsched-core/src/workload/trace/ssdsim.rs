//! SSDsim (HUST) ASCII traces: `time(ns) dev lsn size ope`, whitespace
//! separated, as read by SSDsim's `sscanf("%lld %d %d %d %d")`.
//!
//! - time: integer ns. lsn and size: 512-byte sectors.
//! - ope: 1 = read, 0 = write.
//! - Stream: dev.

use super::{field_error, sectors_field, u32_field, Fields, Parsed, RawRecord};
use crate::workload::Op;

const LAYOUT: &str = "time(ns) dev lsn size(sectors) op";

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
    let ts_ns = u128::from(super::int_field(&f, 0, "time ns")?);
    let stream = u32_field(&f, 1, "dev")?;
    let offset = sectors_field(&f, 2, "lsn")?;
    let size = sectors_field(&f, 3, "size")?;
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

    const F: TraceFormat = TraceFormat::Ssdsim;

    #[test]
    fn good_lines() {
        let text = b"0 0 303567 7 0\n78643005 1 55596 6 1";
        assert_eq!(
            records(F, text),
            vec![
                IoRecord {
                    time_ns: 0,
                    offset: 303567 * 512,
                    size: 3584,
                    op: Op::Write,
                    stream: 0
                },
                IoRecord {
                    time_ns: 78_643_005,
                    offset: 55596 * 512,
                    size: 3072,
                    op: Op::Read,
                    stream: 1
                },
            ]
        );
    }

    #[test]
    fn skippable_lines() {
        let mut r = reader(F, b"# ssdsim\n\n5 0 1 0 0\n6 0 1 1 0\n");
        let recs: Vec<_> = r.by_ref().map(|x| x.unwrap()).collect();
        assert_eq!(recs.len(), 1);
        assert_eq!(recs[0].time_ns, 0);
        assert_eq!(r.skipped(), 1);
    }

    #[test]
    fn bad_fields() {
        let good = "0 0 1 1 0\n";
        let cases: [(&str, &str); 6] = [
            (
                "1.5 0 1 1 0",
                "field 1 (time ns): expected a non-negative integer, got \"1.5\"",
            ),
            ("1 x 1 1 0", "field 2 (dev)"),
            ("1 0 a 1 0", "field 3 (lsn)"),
            ("1 0 1 b 0", "field 4 (size)"),
            (
                "1 0 1 1 2",
                "field 5 (op): expected 1 (read) or 0 (write), got \"2\"",
            ),
            ("1 0 1", "expected 5 whitespace-separated fields"),
        ];
        for (bad, needle) in cases {
            let text = format!("{good}{bad}\n");
            assert_error(F, text.as_bytes(), 2, needle);
        }
    }
}
