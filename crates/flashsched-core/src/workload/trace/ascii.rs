//! DiskSim / MQSim ASCII traces: `time dev start_sector size flags`,
//! whitespace (DiskSim: tab) separated.
//!
//! - time: ns (`ascii-ns`, MQSim) or ms (`ascii-ms`, DiskSim); decimals allowed.
//! - start_sector and size: 512-byte sectors.
//! - flags: DiskSim reads them with `%x` (hex, `0x` prefix optional); bit 0
//!   set = read. MQSim writes `1` = read, `0` = write, which is the same rule.
//! - Stream: dev.

use super::{field_error, sectors_field, time_field, u32_field, Fields, Parsed, RawRecord};
use crate::workload::Op;

const LAYOUT: &str = "time dev sector size(sectors) flags";

/// `scale`: ns per time unit as a power of ten (0 for ns, 6 for ms).
pub(super) fn parse(line: &[u8], scale: u32) -> Result<Parsed, String> {
    let f = Fields::whitespace(line);
    if f.len() != 5 {
        return Err(super::count_error(
            "5 whitespace-separated",
            LAYOUT,
            f.len(),
            line,
        ));
    }
    let ts_ns = time_field(&f, 0, if scale == 0 { "time ns" } else { "time ms" }, scale)?;
    let stream = u32_field(&f, 1, "dev")?;
    let offset = sectors_field(&f, 2, "sector")?;
    let size = sectors_field(&f, 3, "size")?;
    let flags = parse_hex(f.get(4))
        .ok_or_else(|| field_error(4, "flags", "a hex number (bit 0 = read)", f.get(4)))?;
    let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
    Ok(Parsed::Record(RawRecord {
        ts_ns,
        offset,
        size,
        op,
        stream,
    }))
}

/// Hex number with an optional `0x`/`0X` prefix.
pub(super) fn parse_hex(s: &[u8]) -> Option<u64> {
    let digits = s
        .strip_prefix(b"0x")
        .or_else(|| s.strip_prefix(b"0X"))
        .unwrap_or(s);
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let mut v = 0u64;
    for &b in digits {
        let d = (b as char).to_digit(16)?;
        v = (v << 4) | u64::from(d);
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::TraceFormat;
    use super::parse_hex;
    use crate::workload::{IoRecord, Op};

    #[test]
    fn good_lines_ms() {
        let text = b"13.191135\t30\t0\t5\t1\n17.829285\t20\t576560\t6\t0x10\n18\t2\t1\t1\t0x3\n";
        assert_eq!(
            records(TraceFormat::AsciiMs, text),
            vec![
                IoRecord {
                    time_ns: 0,
                    offset: 0,
                    size: 2560,
                    op: Op::Read,
                    stream: 30
                },
                IoRecord {
                    time_ns: 4_638_150,
                    offset: 576560 * 512,
                    size: 3072,
                    op: Op::Write,
                    stream: 20
                },
                IoRecord {
                    time_ns: 4_808_865,
                    offset: 512,
                    size: 512,
                    op: Op::Read,
                    stream: 2
                },
            ]
        );
    }

    #[test]
    fn good_lines_ns() {
        let text = b"938513000 4 264719034 16 0\n938828000 3 197570570 16 1\n938828000.5 3 1 1 1\n";
        assert_eq!(
            records(TraceFormat::AsciiNs, text),
            vec![
                IoRecord {
                    time_ns: 0,
                    offset: 264719034 * 512,
                    size: 8192,
                    op: Op::Write,
                    stream: 4
                },
                IoRecord {
                    time_ns: 315_000,
                    offset: 197570570 * 512,
                    size: 8192,
                    op: Op::Read,
                    stream: 3
                },
                IoRecord {
                    time_ns: 315_000,
                    offset: 512,
                    size: 512,
                    op: Op::Read,
                    stream: 3
                },
            ]
        );
    }

    #[test]
    fn skippable_lines() {
        let mut r = reader(TraceFormat::AsciiNs, b"\n# x\n  \n1 0 0 0 1\n2 0 0 8 1\n");
        assert_eq!(r.by_ref().count(), 1);
        assert_eq!(r.skipped(), 1);
    }

    #[test]
    fn bad_fields() {
        let good = "1 0 0 8 1\n";
        let cases: [(&str, &str); 6] = [
            ("1s 0 0 8 1", "field 1 (time ns): expected a non-negative number, got \"1s\""),
            ("1 a 0 8 1", "field 2 (dev)"),
            ("1 0 -1 8 1", "field 3 (sector): expected a non-negative integer, got \"-1\""),
            ("1 0 0 8.5 1", "field 4 (size)"),
            ("1 0 0 8 R", "field 5 (flags): expected a hex number (bit 0 = read), got \"R\""),
            ("1 0 0 8 1 9", "expected 5 whitespace-separated fields (time dev sector size(sectors) flags), got 6"),
        ];
        for (bad, needle) in cases {
            let text = format!("{good}{bad}\n");
            assert_error(TraceFormat::AsciiNs, text.as_bytes(), 2, needle);
        }
        assert_error(TraceFormat::AsciiMs, b"x 0 0 8 1\n", 1, "field 1 (time ms)");
        assert_error(
            TraceFormat::AsciiMs,
            b"1 0 99999999999999999 8 1\n",
            1,
            "field 3 (sector): expected a sector count",
        );
    }

    #[test]
    fn hex_flags() {
        assert_eq!(parse_hex(b"0x1F"), Some(31));
        assert_eq!(parse_hex(b"10"), Some(16));
        assert_eq!(parse_hex(b"0x"), None);
        assert_eq!(parse_hex(b"g"), None);
    }
}
