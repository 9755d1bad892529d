//! UMass Trace Repository / SPC format: `ASU,LBA,Size,Opcode,Timestamp[,...]`.
//!
//! - ASU: application specific unit (stream id).
//! - LBA: 512-byte sectors. Size: bytes.
//! - Opcode: `R`/`r` read, `W`/`w` write.
//! - Timestamp: seconds (decimal) since the start of the trace.
//! - Optional trailing fields (allowed by the SPC spec) are ignored.
//!
//! A header row of at least 5 fields that all start with a letter is skipped.

use super::{
    field_error, int_field, sectors_field, time_field, u32_field, Fields, Parsed, RawRecord,
};
use crate::workload::Op;

const LAYOUT: &str = "ASU,LBA,size,R|W,time s";

pub(super) fn parse(line: &[u8]) -> Result<Parsed, String> {
    let f = Fields::commas(line);
    if f.len() < 5 {
        return Err(super::count_error(
            "5 comma-separated",
            LAYOUT,
            f.len(),
            line,
        ));
    }
    let stream = match super::parse_u64(f.get(0)).and_then(|v| u32::try_from(v).ok()) {
        Some(s) => s,
        None if super::msr::is_header(&f) => return Ok(Parsed::NotRecord),
        None => u32_field(&f, 0, "ASU")?,
    };
    let offset = sectors_field(&f, 1, "LBA")?;
    let size = int_field(&f, 2, "size")?;
    let op = op_of(f.get(3)).ok_or_else(|| field_error(3, "opcode", "R or W", f.get(3)))?;
    let ts_ns = time_field(&f, 4, "time s", 9)?;
    Ok(Parsed::Record(RawRecord {
        ts_ns,
        offset,
        size,
        op,
        stream,
    }))
}

pub(super) fn op_of(s: &[u8]) -> Option<Op> {
    match s {
        b"R" | b"r" => Some(Op::Read),
        b"W" | b"w" => Some(Op::Write),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::TraceFormat;
    use crate::workload::{IoRecord, Op};

    const F: TraceFormat = TraceFormat::Spc;

    #[test]
    fn good_lines() {
        let text =
            b"0,657728,8192,R,0.011413\n1, 31244784, 32768, w, 0.011565, extra\n2,1,512,r,1.5";
        let recs = records(F, text);
        assert_eq!(
            recs,
            vec![
                IoRecord {
                    time_ns: 0,
                    offset: 657728 * 512,
                    size: 8192,
                    op: Op::Read,
                    stream: 0
                },
                IoRecord {
                    time_ns: 152_000,
                    offset: 31244784 * 512,
                    size: 32768,
                    op: Op::Write,
                    stream: 1
                },
                IoRecord {
                    time_ns: 1_488_587_000,
                    offset: 512,
                    size: 512,
                    op: Op::Read,
                    stream: 2
                },
            ]
        );
    }

    #[test]
    fn skippable_lines() {
        let text = b"ASU,LBA,Size,Opcode,Timestamp\n\n#x\n0,1,0,R,0.1\n0,1,512,R,0.2\n";
        let mut r = reader(F, text);
        assert_eq!(r.by_ref().count(), 1);
        assert_eq!(r.skipped(), 1);
    }

    #[test]
    fn bad_fields() {
        let good = "0,1,512,R,0.5\n";
        let cases: [(&str, &str); 6] = [
            (
                "a,1,512,R,0.5",
                "field 1 (ASU): expected an integer in 0..=4294967295, got \"a\"",
            ),
            (
                "0,1x,512,R,0.5",
                "field 2 (LBA): expected a non-negative integer, got \"1x\"",
            ),
            ("0,1,5.5,R,0.5", "field 3 (size)"),
            (
                "0,1,512,Read,0.5",
                "field 4 (opcode): expected R or W, got \"Read\"",
            ),
            (
                "0,1,512,R,-0.5",
                "field 5 (time s): expected a non-negative number, got \"-0.5\"",
            ),
            (
                "0,1,512,R",
                "expected 5 comma-separated fields (ASU,LBA,size,R|W,time s), got 4",
            ),
        ];
        for (bad, needle) in cases {
            let text = format!("{good}{bad}\n");
            assert_error(F, text.as_bytes(), 2, needle);
        }
    }
}
