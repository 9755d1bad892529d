//! Public cloud and virtual-desktop block traces, as column mappings
//! (`columns.rs`), each after its distribution's documentation:
//!
//! - `systor`: SYSTOR'17 VDI traces (SNIA IOTTA), gzipped CSV
//!   `Timestamp,Response,IOType,LUN,Offset,Size`: Unix time in seconds with
//!   a fraction, response time (not used), `R`/`W` or blank (a blank IOType
//!   is dropped and counted), LUN (the stream), offset and size in bytes.
//!   The files start with that header row.
//! - `alibaba`: Alibaba Cloud block traces (2020), CSV
//!   `device_id,opcode,offset,length,timestamp`: virtual disk (the stream),
//!   `R`/`W`, bytes, bytes, microseconds since the Unix epoch.
//! - `tencent`: Tencent Cloud Block Storage traces (2018, SNIA IOTTA), CSV
//!   `Timestamp,Offset,Size,IOType,VolumeID`: Unix seconds, offset and size
//!   in 512-byte sectors, IOType `0` = read and `1` = write (the reverse of
//!   most formats), volume (the stream).
//! - `vscsi`: VMware vscsiStats command traces as CSV (the form ioblazer
//!   replays; CloudPhysics collected its traces with this tracer):
//!   `serial,length(B),SG entries,read|write,LBN(512 B),timestamp(us)`;
//!   its `#` header lines are comments.
//! - `cloudphysics`: CloudPhysics traces converted to CSV `ts,lba,op,size`:
//!   microseconds (the vscsi clock), 512-byte sectors, `r`/`w`, bytes.
//!
//! A header row (every field starting with a letter) is skipped in all of
//! them; field counts are exact, so a wrong format fails on the first line.

use super::columns::{Column, ColumnMap, OpWords, Sep};

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A built-in mapping: comma separated, exact field count, header row
/// skipped, fields numbered from 1 in messages.
#[allow(clippy::too_many_arguments)]
fn csv(
    fields: usize,
    layout: &str,
    time: (usize, &'static str, u32),
    op: (usize, &'static str, &[&str], &[&str]),
    offset: (usize, &'static str, u64),
    size: (usize, &'static str, u64),
    stream: Option<(usize, &'static str)>,
) -> ColumnMap {
    ColumnMap {
        sep: Sep::Char(b','),
        time: Column {
            index: time.0,
            name: time.1,
        },
        time_scale: time.2,
        op: Column {
            index: op.0,
            name: op.1,
        },
        op_words: OpWords {
            read: words(op.2),
            write: words(op.3),
            trim: Vec::new(),
            dropped: Vec::new(),
        },
        offset: Column {
            index: offset.0,
            name: offset.1,
        },
        offset_unit: offset.2,
        size: Column {
            index: size.0,
            name: size.1,
        },
        size_unit: size.2,
        stream: stream.map(|(index, name)| Column { index, name }),
        skip: 0,
        min_fields: fields,
        max_fields: fields,
        header_row: true,
        zero_based: false,
        layout: layout.to_string(),
    }
}

/// SYSTOR'17.
pub(super) fn systor() -> ColumnMap {
    let mut m = csv(
        6,
        "Timestamp(s),Response,R|W,LUN,Offset(B),Size(B)",
        (0, "Timestamp", 9),
        (2, "IOType", &["R"], &["W"]),
        (4, "Offset", 1),
        (5, "Size", 1),
        Some((3, "LUN")),
    );
    m.op_words.dropped = words(&[""]);
    m
}

/// Alibaba Cloud block traces.
pub(super) fn alibaba() -> ColumnMap {
    csv(
        5,
        "device_id,R|W,offset(B),length(B),timestamp(us)",
        (4, "timestamp", 3),
        (1, "opcode", &["R"], &["W"]),
        (2, "offset", 1),
        (3, "length", 1),
        Some((0, "device_id")),
    )
}

/// Tencent CBS.
pub(super) fn tencent() -> ColumnMap {
    csv(
        5,
        "Timestamp(s),Offset(sectors),Size(sectors),0=read|1=write,VolumeID",
        (0, "Timestamp", 9),
        (3, "IOType", &["0"], &["1"]),
        (1, "Offset", 512),
        (2, "Size", 512),
        Some((4, "VolumeID")),
    )
}

/// vscsiStats CSV.
pub(super) fn vscsi() -> ColumnMap {
    csv(
        6,
        "serial,length(B),SG entries,read|write,LBN(sectors),timestamp(us)",
        (5, "timestamp", 3),
        (3, "command", &["read"], &["write"]),
        (4, "LBN", 512),
        (1, "length", 1),
        None,
    )
}

/// CloudPhysics CSV.
pub(super) fn cloudphysics() -> ColumnMap {
    csv(
        4,
        "ts(us),lba(sectors),r|w,size(B)",
        (0, "ts", 3),
        (2, "op", &["r"], &["w"]),
        (1, "lba", 512),
        (3, "size", 1),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::TraceFormat;
    use crate::workload::{IoRecord, Op};

    fn rec(time_ns: u64, offset: u64, size: u32, op: Op, stream: u32) -> IoRecord {
        IoRecord {
            time_ns,
            offset,
            size,
            op,
            stream,
        }
    }

    #[test]
    fn systor() {
        let text = b"Timestamp,Response,IOType,LUN,Offset,Size\n\
                     1456135200.013118000,0.000648000,W,4,8192,4096\n\
                     1456135200.013200000,0.000100000,R,3,1024,512\n\
                     1456135200.013300000,0.000100000,,3,0,512\n";
        let mut r = reader(TraceFormat::Systor, text);
        let recs: Vec<_> = r.by_ref().map(|x| x.unwrap()).collect();
        assert_eq!(
            recs,
            vec![
                rec(0, 8192, 4096, Op::Write, 4),
                rec(82_000, 1024, 512, Op::Read, 3)
            ]
        );
        assert_eq!(r.skipped(), 1, "a blank IOType is dropped");
        assert_error(
            TraceFormat::Systor,
            b"1456135200.0,0.1,X,0,0,512\n",
            1,
            "field 3 (IOType): expected `R` or `W`, got \"X\"",
        );
        assert_error(
            TraceFormat::Systor,
            b"1456135200.0,0.1,R,0,0,512,7\n",
            1,
            "expected 6 comma-separated fields (Timestamp(s),Response,R|W,LUN,Offset(B),Size(B)), got 7",
        );
    }

    #[test]
    fn alibaba() {
        let text = b"0,R,126703644672,4096,1577808000000626\n7,W,4096,8192,1577808000001626\n";
        assert_eq!(
            records(TraceFormat::Alibaba, text),
            vec![
                rec(0, 126703644672, 4096, Op::Read, 0),
                rec(1_000_000, 4096, 8192, Op::Write, 7)
            ]
        );
        assert_error(
            TraceFormat::Alibaba,
            b"0,R,1,4096,1577808000000626\n0,R,1,4096,x\n",
            2,
            "field 5 (timestamp): expected a non-negative number (us), got \"x\"",
        );
    }

    #[test]
    fn tencent() {
        let text = b"1538323200,4096,16,0,1063\n1538323201,8,8,1,7\n";
        assert_eq!(
            records(TraceFormat::Tencent, text),
            vec![
                rec(0, 4096 * 512, 8192, Op::Read, 1063),
                rec(1_000_000_000, 4096, 4096, Op::Write, 7)
            ]
        );
        assert_error(
            TraceFormat::Tencent,
            b"1538323200,4096,16,2,1063\n",
            1,
            "field 4 (IOType): expected `0` or `1`, got \"2\"",
        );
    }

    #[test]
    fn vscsi() {
        let text = b"#Vscsi Cmd Trace. (Trace Format Version 1)\n\
                     #Serial Number,IO Data Length,Num SG Entries,Command Type,LBN,Time Stamp (microseconds)\n\
                     2147483692,4096,1,write,24048792,2756778716647\n\
                     2147483769,4608,2,Read,6322464,2756783857269\n";
        assert_eq!(
            records(TraceFormat::Vscsi, text),
            vec![
                rec(0, 24048792 * 512, 4096, Op::Write, 0),
                rec(5_140_622_000, 6322464 * 512, 4608, Op::Read, 0)
            ]
        );
        assert_error(
            TraceFormat::Vscsi,
            b"1,4096,1,write,x,5\n",
            1,
            "field 5 (LBN): expected a non-negative integer of sector units",
        );
    }

    #[test]
    fn cloudphysics() {
        let text = b"ts,lba,op,size\n1000,8,r,4096\n1500,16,W,512\n";
        assert_eq!(
            records(TraceFormat::CloudPhysics, text),
            vec![
                rec(0, 4096, 4096, Op::Read, 0),
                rec(500_000, 8192, 512, Op::Write, 0)
            ]
        );
        assert_error(
            TraceFormat::CloudPhysics,
            b"1000,8,r\n",
            1,
            "expected 4 comma-separated fields",
        );
    }
}
