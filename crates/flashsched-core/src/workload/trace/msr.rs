//! MSR Cambridge CSV (SNIA IOTTA "MSR Cambridge Traces"):
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//!
//! - Timestamp: Windows filetime, 100 ns ticks.
//! - Type: `Read` or `Write` (any case).
//! - Offset and Size: bytes, kept exact (hm_0 has 512-byte requests).
//! - Stream: the disk number. Host name and response time are not used.
//!
//! A line has 6 or 7 fields (the response time is optional); more is an
//! error. Some redistributions add a header row (`Timestamp,Hostname,...`): a line of
//! at least 6 fields that all start with a letter is skipped.

use super::{field_error, int_field, u32_field, Fields, Parsed, RawRecord};
use crate::workload::Op;

const LAYOUT: &str = "filetime,host,disk,Read|Write,offset,size,response";

pub(super) fn parse(line: &[u8]) -> Result<Parsed, String> {
    let f = Fields::commas(line);
    // More than 7 fields is not an MSR line (e.g. several records run
    // together on one line, which CR-only line endings used to cause).
    if !(6..=7).contains(&f.len()) {
        return Err(super::count_error(
            "6 or 7 comma-separated",
            LAYOUT,
            f.len(),
            line,
        ));
    }
    let ticks = match super::parse_u64(f.get(0)) {
        Some(t) => t,
        None if is_header(&f) => return Ok(Parsed::NotRecord),
        None => {
            return Err(field_error(
                0,
                "filetime",
                "an integer (100 ns ticks)",
                f.get(0),
            ))
        }
    };
    let stream = u32_field(&f, 2, "disk")?;
    let op = op_of(f.get(3)).ok_or_else(|| field_error(3, "type", "Read or Write", f.get(3)))?;
    let offset = int_field(&f, 4, "offset")?;
    let size = int_field(&f, 5, "size")?;
    Ok(Parsed::Record(RawRecord {
        ts_ns: u128::from(ticks) * 100,
        offset,
        size,
        op,
        stream,
    }))
}

pub(super) fn op_of(s: &[u8]) -> Option<Op> {
    if s.eq_ignore_ascii_case(b"read") {
        Some(Op::Read)
    } else if s.eq_ignore_ascii_case(b"write") {
        Some(Op::Write)
    } else {
        None
    }
}

/// A CSV header row: every field starts with a letter. Only asked for lines
/// that have the record's field count but fail as records.
pub(super) fn is_header(f: &Fields<'_>) -> bool {
    (0..f.len().min(super::MAX_FIELDS))
        .all(|i| f.get(i).first().is_some_and(u8::is_ascii_alphabetic))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::TraceFormat;
    use crate::workload::{IoRecord, Op};

    const F: TraceFormat = TraceFormat::Msr;

    #[test]
    fn good_lines() {
        let text = b"128166385295514663,hm,0,Write,9056014336,2048,2833\n\
                     128166385295514878,hm,1,read,11855351808,512,2617\n";
        let recs = records(F, text);
        assert_eq!(
            recs,
            vec![
                IoRecord {
                    time_ns: 0,
                    offset: 9056014336,
                    size: 2048,
                    op: Op::Write,
                    stream: 0
                },
                IoRecord {
                    time_ns: 21500,
                    offset: 11855351808,
                    size: 512,
                    op: Op::Read,
                    stream: 1
                },
            ]
        );
    }

    #[test]
    fn skippable_lines() {
        let text = b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\
                     \n# comment\n\
                     1,h,0,Read,0,4096,1\n\
                     2,h,0,Read,0,0,1\n\
                     3,h,0,Write,4096,4096\n";
        let mut r = reader(F, text);
        let recs: Vec<_> = r.by_ref().map(|x| x.unwrap()).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].time_ns, 200);
        assert_eq!(r.skipped(), 1);
    }

    #[test]
    fn bad_fields() {
        let good = "1,h,0,Read,0,4096,1\n";
        let cases: [(&str, &str); 8] = [
            (
                "x1,h,0,Read,0,4096,1",
                "field 1 (filetime): expected an integer (100 ns ticks), got \"x1\"",
            ),
            ("1,h,d,Read,0,4096,1", "field 3 (disk)"),
            (
                "1,h,0,Rd,0,4096,1",
                "field 4 (type): expected Read or Write, got \"Rd\"",
            ),
            (
                "1,h,0,Read,-5,4096,1",
                "field 5 (offset): expected a non-negative integer, got \"-5\"",
            ),
            (
                "1,h,0,Read,0,abc,1",
                "field 6 (size): expected a non-negative integer, got \"abc\"",
            ),
            ("1,h,0,Read", "expected 6 or 7 comma-separated fields"),
            ("1,h,0,Read,0,4096,1,2", "expected 6 or 7 comma-separated fields (filetime,host,disk,Read|Write,offset,size,response), got 8"),
            ("1,h,0,Read,0,4096,1\0", "NUL"),
        ];
        for (bad, needle) in cases {
            let text = format!("{good}\n{bad}\n");
            assert_error(F, text.as_bytes(), 3, needle);
        }
    }

    #[test]
    fn header_rows_need_the_full_width() {
        // Concatenated files repeat the header: still recognisable, skipped.
        let text =
            b"1,h,0,Read,0,4096,1\nTimestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n";
        assert_eq!(records(F, text).len(), 1);
        // A short all-text line is not a header but a broken record.
        assert_error(
            F,
            b"1,h,0,Read,0,4096,1\nRead,Write\n",
            2,
            "expected 6 or 7",
        );
        // A wide one with a non-letter field neither.
        assert_error(F, b"Time,h,0,Read,0,4096,1\n", 1, "field 1 (filetime)");
    }
}
