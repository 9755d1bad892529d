//! FIU traces (SNIA IOTTA, "FIU IODedup"/"SRCMap"):
//! `ts pid process lba size op major minor md5`, whitespace separated.
//!
//! - ts: ns. lba and size: 512-byte sectors. op: `R` or `W` (any case).
//! - Stream: pid. Process, major, minor and md5 are checked for shape but
//!   not used.
//! - Fields are taken from both ends, so a process name containing spaces
//!   is accepted (9 or more fields).
//!
//! The FIU archives are tarballs; samples cut from them with `head` start
//! with the tar header (handled by the reader, see [`super::TraceReader`]).

use super::{
    field_error, int_field, sectors_field, u32_field, Fields, Parsed, RawRecord, MAX_FIELDS,
};
use crate::workload::Op;

const LAYOUT: &str = "ts(ns) pid process lba size(sectors) R|W major minor md5";

pub(super) fn parse(line: &[u8]) -> Result<Parsed, String> {
    let f = Fields::whitespace(line);
    let n = f.len();
    if !(9..=MAX_FIELDS).contains(&n) {
        return Err(super::count_error(
            "9 whitespace-separated",
            LAYOUT,
            n,
            line,
        ));
    }
    let ts_ns = u128::from(int_field(&f, 0, "ts ns")?);
    let stream = u32_field(&f, 1, "pid")?;
    let offset = sectors_field(&f, n - 6, "lba")?;
    let size = sectors_field(&f, n - 5, "size")?;
    let op = match f.get(n - 4) {
        b"R" | b"r" => Op::Read,
        b"W" | b"w" => Op::Write,
        other => return Err(field_error(n - 4, "op", "R or W", other)),
    };
    int_field(&f, n - 3, "major")?;
    int_field(&f, n - 2, "minor")?;
    let md5 = f.get(n - 1);
    if !md5.iter().all(u8::is_ascii_hexdigit) {
        return Err(field_error(n - 1, "md5", "hex digits", md5));
    }
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

    const F: TraceFormat = TraceFormat::Fiu;
    const MD5: &str = "88b93b628d84082186026d9da044f173";

    #[test]
    fn good_lines() {
        let text = format!(
            "89966527950584 4253 nfsd 508516672 8 W 6 0 {MD5}\n\
             89966527996712 4254 my proc 8 16 r 6 0 {MD5}\n"
        );
        assert_eq!(
            records(F, text.as_bytes()),
            vec![
                IoRecord {
                    time_ns: 0,
                    offset: 508516672 * 512,
                    size: 4096,
                    op: Op::Write,
                    stream: 4253
                },
                IoRecord {
                    time_ns: 46128,
                    offset: 4096,
                    size: 8192,
                    op: Op::Read,
                    stream: 4254
                },
            ]
        );
    }

    #[test]
    fn tar_header_junk_is_skipped_and_first_record_recovered() {
        let text = format!(
            "./PaxHeaders.15436/x.blkparse\0\0\0\x000000644\0 x\0\0ustar\x0000\0\0\x0030 atime=1410563628.272753818\n\
             28 ctime=1410563671.7201132\n\
             \0\0\0\0x.blkparse\0\0\x000000750\0ustar\x0000user\0\0\x0089966522969723 4270 rpc.mountd 18579576 8 W 6 0 {MD5}\n\
             89966527950584 4253 nfsd 508516672 8 W 6 0 {MD5}\n\
             \0\0\0\0\0\0\0\0\0\0"
        );
        let recs = records(F, text.as_bytes());
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].stream, 4270);
        assert_eq!(recs[1].time_ns, 89966527950584 - 89966522969723);
    }

    #[test]
    fn junk_after_the_first_record_is_an_error() {
        let text = format!("1 1 p 1 8 W 6 0 {MD5}\n28 ctime=1410563671.7201132\n");
        assert_error(
            F,
            text.as_bytes(),
            2,
            "expected 9 whitespace-separated fields",
        );
        let text = format!("1 1 p 1 8 W 6 0 {MD5}\nhdr\0\0 1 1 p 1 8 W 6 0 {MD5}\n");
        assert_error(F, text.as_bytes(), 2, "unexpected NUL byte");
    }

    #[test]
    fn bad_tar_suffix_is_reported() {
        let text = b"hdr\0\0\0 1 1 p x 8 W 6 0 abc\n";
        assert_error(
            F,
            text,
            1,
            "field 4 (lba): expected a non-negative integer, got \"x\" (after tar header junk)",
        );
    }

    #[test]
    fn bad_fields() {
        let good = format!("1 1 p 1 8 W 6 0 {MD5}\n");
        let cases: [(&str, &str); 9] = [
            (
                "x 1 p 1 8 W 6 0 ab",
                "field 1 (ts ns): expected a non-negative integer, got \"x\"",
            ),
            ("1 x p 1 8 W 6 0 ab", "field 2 (pid)"),
            ("1 1 p x 8 W 6 0 ab", "field 4 (lba)"),
            ("1 1 p 1 y W 6 0 ab", "field 5 (size)"),
            (
                "1 1 p 1 8 Q 6 0 ab",
                "field 6 (op): expected R or W, got \"Q\"",
            ),
            ("1 1 p 1 8 W x 0 ab", "field 7 (major)"),
            ("1 1 p 1 8 W 6 y ab", "field 8 (minor)"),
            ("1 1 p 1 8 W 6 0 zz", "field 9 (md5): expected hex digits"),
            ("1 1 p 1 8 W 6 0", "expected 9 whitespace-separated fields"),
        ];
        for (bad, needle) in cases {
            let text = format!("{good}\n{bad}\n");
            assert_error(F, text.as_bytes(), 3, needle);
        }
    }
}
