//! Column-mapped traces: which field of a CSV or whitespace-separated line
//! holds the time, the operation, the offset, the size and (optionally) the
//! stream, in which units. The generic `csv:`/`ws:` formats are a mapping
//! given by the user (`csv:time=0:ms,op=3:R/W,offset=4:B,size=5:B,skip=1`);
//! the SYSTOR'17, Alibaba, Tencent CBS, vscsi and CloudPhysics formats are
//! built-in mappings (`cloud.rs`). One parser serves both.
//!
//! Mapping syntax (keys in any order, separated by commas):
//!
//! | key | value | meaning |
//! |---|---|---|
//! | `time` | `COL:UNIT`, unit `s`, `ms`, `us`, `100ns`, `ns` | arrival time; decimals allowed |
//! | `op` | `COL:READ/WRITE[/TRIM]` | the words that mean read, write (and trim), any case |
//! | `offset` | `COL:UNIT`, unit `B`, `sector` (512 B), `KiB`, `MiB` or a number of bytes | start address |
//! | `size` | `COL:UNIT` (as offset) | request length |
//! | `stream` | `COL` | integer stream id (default: all 0) |
//! | `skip` | `N` | the first N lines are a header |
//! | `sep` | `comma`, `semicolon`, `tab`, `pipe` or `ws` | field separator (`csv:` default comma, `ws:` whitespace runs) |
//! | `fields` | `N` | every line has exactly N fields (default: at least enough for the mapped columns) |
//!
//! Columns count from 0, and messages of generic mappings name columns the
//! same way (`column 4 (offset)`); built-in formats number fields from 1 as
//! the other readers do. `time`, `op`, `offset` and `size` are required and
//! so are their units: a wrong unit is a silently wrong result, a missing
//! one is an error. The mapping syntax (text and TOML) is parsed in
//! `mapping.rs`.

use std::fmt;

use super::fields::{count_error, parse_scaled, parse_u64, quote, Parsed, RawRecord};
use crate::workload::Op;

/// Field separator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sep {
    /// One character; surrounding whitespace of each field is trimmed.
    Char(u8),
    /// Runs of whitespace.
    Whitespace,
}

impl Sep {
    fn name(self) -> &'static str {
        match self {
            Sep::Char(b',') => "comma",
            Sep::Char(b';') => "semicolon",
            Sep::Char(b'\t') => "tab",
            Sep::Char(b'|') => "pipe",
            Sep::Char(_) => "char",
            Sep::Whitespace => "ws",
        }
    }
}

/// A mapped column: index (from 0) and the name messages use.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Column {
    pub index: usize,
    pub name: &'static str,
}

/// The words of the operation column (compared ignoring ASCII case).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OpWords {
    pub read: Vec<String>,
    pub write: Vec<String>,
    pub trim: Vec<String>,
    /// Records with these words are dropped (counted), e.g. SYSTOR'17's
    /// blank IOType.
    pub dropped: Vec<String>,
}

/// A complete column mapping.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ColumnMap {
    /// How fields are separated.
    pub sep: Sep,
    /// The arrival-time column.
    pub time: Column,
    /// ns per time unit as a power of ten (s 9, ms 6, us 3, 100ns 2, ns 0).
    pub time_scale: u32,
    /// The operation column.
    pub op: Column,
    /// What the operation column's words mean.
    pub op_words: OpWords,
    /// The offset column.
    pub offset: Column,
    /// Bytes per offset unit.
    pub offset_unit: u64,
    /// The size column.
    pub size: Column,
    /// Bytes per size unit.
    pub size_unit: u64,
    /// The stream column, if any (else every record is stream 0).
    pub stream: Option<Column>,
    /// Physical lines at the start that are a header.
    pub skip: u64,
    /// Fewest fields a record may have.
    pub min_fields: usize,
    /// Most fields a record may have.
    pub max_fields: usize,
    /// A header row (every field starts with a letter) is not a record
    /// (built-in formats, whose files sometimes carry one).
    pub header_row: bool,
    /// Messages number columns from 0 (generic mappings) or fields from 1.
    pub zero_based: bool,
    /// Field layout for field-count errors.
    pub layout: String,
}

pub(super) fn time_unit(u: &str) -> Option<u32> {
    Some(match u {
        "s" => 9,
        "ms" => 6,
        "us" | "µs" => 3,
        "100ns" => 2,
        "ns" => 0,
        _ => return None,
    })
}

fn time_unit_name(scale: u32) -> &'static str {
    match scale {
        9 => "s",
        6 => "ms",
        3 => "us",
        2 => "100ns",
        _ => "ns",
    }
}

pub(super) fn byte_unit(u: &str) -> Option<u64> {
    match u {
        "B" | "b" => Some(1),
        "sector" | "sectors" => Some(512),
        "KiB" | "K" | "k" => Some(1024),
        "MiB" | "M" => Some(1 << 20),
        n => parse_u64(n.as_bytes()).filter(|&v| v > 0),
    }
}

fn byte_unit_name(unit: u64) -> String {
    match unit {
        1 => "B".into(),
        512 => "sector".into(),
        1024 => "KiB".into(),
        1048576 => "MiB".into(),
        n => n.to_string(),
    }
}

impl ColumnMap {
    /// `time=0:ms op=3:R/W ...` for messages.
    pub(super) fn describe_columns(&self) -> String {
        let mut cols: Vec<(usize, String)> = vec![
            (
                self.time.index,
                format!("{}({})", self.time.name, time_unit_name(self.time_scale)),
            ),
            (self.op.index, self.op.name.to_string()),
            (
                self.offset.index,
                format!("{}({})", self.offset.name, byte_unit_name(self.offset_unit)),
            ),
            (
                self.size.index,
                format!("{}({})", self.size.name, byte_unit_name(self.size_unit)),
            ),
        ];
        if let Some(s) = &self.stream {
            cols.push((s.index, s.name.to_string()));
        }
        cols.sort();
        cols.iter()
            .map(|(i, n)| format!("{i}={n}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The largest column index used, plus one.
    fn widest(&self) -> usize {
        [
            Some(&self.time),
            Some(&self.op),
            Some(&self.offset),
            Some(&self.size),
            self.stream.as_ref(),
        ]
        .iter()
        .flatten()
        .map(|c| c.index + 1)
        .max()
        .unwrap_or(1)
    }

    fn col_error(&self, c: &Column, expected: &str, got: &[u8]) -> String {
        let (word, n) = if self.zero_based {
            ("column", c.index)
        } else {
            ("field", c.index + 1)
        };
        format!(
            "{word} {n} ({}): expected {expected}, got {}",
            c.name,
            quote(got, 40)
        )
    }
}

impl fmt::Display for ColumnMap {
    /// The generic mapping syntax that parses back to this map.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = if self.sep == Sep::Whitespace {
            "ws"
        } else {
            "csv"
        };
        write!(
            f,
            "{prefix}:time={}:{},op={}:{}/{}",
            self.time.index,
            time_unit_name(self.time_scale),
            self.op.index,
            self.op_words.read.first().map_or("", String::as_str),
            self.op_words.write.first().map_or("", String::as_str),
        )?;
        if let Some(t) = self.op_words.trim.first() {
            write!(f, "/{t}")?;
        }
        write!(
            f,
            ",offset={}:{},size={}:{}",
            self.offset.index,
            byte_unit_name(self.offset_unit),
            self.size.index,
            byte_unit_name(self.size_unit)
        )?;
        if let Some(s) = &self.stream {
            write!(f, ",stream={}", s.index)?;
        }
        if self.skip > 0 {
            write!(f, ",skip={}", self.skip)?;
        }
        if self.sep != Sep::Char(b',') && self.sep != Sep::Whitespace {
            write!(f, ",sep={}", self.sep.name())?;
        }
        if self.max_fields != usize::MAX {
            write!(f, ",fields={}", self.max_fields)?;
        }
        Ok(())
    }
}

/// Splits a line into fields without allocating; `visit(index, field)` is
/// called for every field; returns the field count.
#[inline]
fn split<'a>(line: &'a [u8], sep: Sep, mut visit: impl FnMut(usize, &'a [u8])) -> usize {
    let mut n = 0;
    match sep {
        Sep::Char(c) => {
            for field in line.split(|&b| b == c) {
                visit(n, field.trim_ascii());
                n += 1;
            }
        }
        Sep::Whitespace => {
            for field in line
                .split(|b| b.is_ascii_whitespace())
                .filter(|f| !f.is_empty())
            {
                visit(n, field);
                n += 1;
            }
        }
    }
    n
}

/// Parse one cleaned line with `map`; `line_no` is the physical line.
pub(super) fn parse(map: &ColumnMap, line: &[u8], line_no: u64) -> Result<Parsed, String> {
    if line_no <= map.skip {
        return Ok(Parsed::NotRecord);
    }
    let idx = [
        map.time.index,
        map.op.index,
        map.offset.index,
        map.size.index,
        map.stream.as_ref().map_or(usize::MAX, |c| c.index),
    ];
    let mut got: [&[u8]; 5] = [&[]; 5];
    let mut all_alpha = true;
    let n = split(line, map.sep, |i, field| {
        all_alpha &= field.first().is_some_and(u8::is_ascii_alphabetic);
        for (k, &want) in idx.iter().enumerate() {
            if want == i {
                got[k] = field;
            }
        }
    });
    if n < map.min_fields.max(map.widest()) || n > map.max_fields {
        let expected = if map.min_fields == map.max_fields {
            format!("{}", map.min_fields)
        } else if map.max_fields == usize::MAX {
            format!("at least {}", map.min_fields.max(map.widest()))
        } else {
            format!("{} to {}", map.min_fields, map.max_fields)
        };
        let what = match map.sep {
            Sep::Whitespace => format!("{expected} whitespace-separated"),
            s => format!("{expected} {}-separated", s.name()),
        };
        return Err(count_error(&what, &map.layout, n, line));
    }
    let [time, op, offset, size, stream] = got;
    let Some(ts_ns) = parse_scaled(time, map.time_scale) else {
        if map.header_row && all_alpha {
            return Ok(Parsed::NotRecord);
        }
        let unit = format!("a non-negative number ({})", time_unit_name(map.time_scale));
        return Err(map.col_error(&map.time, &unit, time));
    };
    let w = &map.op_words;
    let is = |words: &[String]| words.iter().any(|x| op.eq_ignore_ascii_case(x.as_bytes()));
    let op = if is(&w.read) {
        Op::Read
    } else if is(&w.write) {
        Op::Write
    } else if is(&w.trim) {
        Op::Trim
    } else if is(&w.dropped) {
        return Ok(Parsed::Dropped);
    } else {
        let mut words: Vec<&str> = w
            .read
            .iter()
            .chain(&w.write)
            .chain(&w.trim)
            .map(String::as_str)
            .collect();
        words.dedup();
        let expected = words
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(" or ");
        return Err(map.col_error(&map.op, &expected, op));
    };
    let bytes = |c: &Column, unit: u64, text: &[u8]| {
        parse_u64(text)
            .and_then(|v| v.checked_mul(unit))
            .ok_or_else(|| {
                let what = if unit == 1 {
                    "a non-negative integer (B)".to_string()
                } else {
                    format!(
                        "a non-negative integer of {} units below 2^64 bytes",
                        byte_unit_name(unit)
                    )
                };
                map.col_error(c, &what, text)
            })
    };
    let offset = bytes(&map.offset, map.offset_unit, offset)?;
    let size = bytes(&map.size, map.size_unit, size)?;
    let stream = match &map.stream {
        None => 0,
        Some(c) => parse_u64(stream)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| map.col_error(c, "an integer in 0..=4294967295", stream))?,
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
    use super::*;

    fn map(spec: &str) -> ColumnMap {
        ColumnMap::parse(spec, Sep::Char(b',')).unwrap_or_else(|e| panic!("{e}"))
    }

    fn one(m: &ColumnMap, line: &str, line_no: u64) -> Result<Parsed, String> {
        parse(m, line.as_bytes(), line_no)
    }

    #[test]
    fn every_option_is_applied() {
        let rec = |ts_ns, offset, size, op, stream| {
            Ok(Parsed::Record(RawRecord {
                ts_ns,
                offset,
                size,
                op,
                stream,
            }))
        };
        // Units of time, offset and size; op words in any case; stream.
        let m = map("time=0:ms,op=3:R/W/D,offset=4:sector,size=5:KiB,stream=1");
        assert_eq!(
            one(&m, "1.5,7,x,w,10,4", 1),
            rec(1_500_000, 5120, 4096, Op::Write, 7)
        );
        assert_eq!(
            one(&m, "2 , 0 ,x, d ,0,1,extra", 1),
            rec(2_000_000, 0, 1024, Op::Trim, 0)
        );
        for (unit, ns) in [
            ("s", 2_000_000_000u128),
            ("us", 2000),
            ("100ns", 200),
            ("ns", 2),
        ] {
            let m = map(&format!("time=0:{unit},op=1:R/W,offset=2:B,size=3:B"));
            assert_eq!(one(&m, "2,r,0,512", 1), rec(ns, 0, 512, Op::Read, 0));
        }
        // skip: physical lines, whatever they hold.
        let m = map("time=0:s,op=1:R/W,offset=2:B,size=3:B,skip=2");
        assert_eq!(one(&m, "1,R,0,512", 2), Ok(Parsed::NotRecord));
        assert!(one(&m, "1,R,0,512", 3).is_ok());
        // sep and fields.
        let m = map("time=0:s,op=1:R/W,offset=2:B,size=3:4096,sep=tab,fields=4");
        assert_eq!(
            one(&m, "1\tW\t8\t2", 1),
            rec(1_000_000_000, 8, 8192, Op::Write, 0)
        );
        let e = one(&m, "1\tW\t8\t2\t9", 1).unwrap_err();
        assert!(
            e.starts_with(
                "expected 4 tab-separated fields (0=time(s) 1=op 2=offset(B) 3=size(4096)), got 5"
            ),
            "{e}"
        );
        let m = ColumnMap::parse("time=0:s,op=1:0/1,offset=2:B,size=3:B", Sep::Whitespace).unwrap();
        assert_eq!(
            one(&m, " 3\t1  4096 512 ", 1),
            rec(3_000_000_000, 4096, 512, Op::Write, 0)
        );
    }

    #[test]
    fn field_errors_name_the_column() {
        let m = map("time=0:ms,op=3:R/W,offset=4:B,size=5:sector,stream=2");
        for (line, needle) in [
            (
                "x,h,0,R,0,8",
                "column 0 (time): expected a non-negative number (ms), got \"x\"",
            ),
            (
                "1,h,0,Q,0,8",
                "column 3 (op): expected `R` or `W`, got \"Q\"",
            ),
            (
                "1,h,0,R,-1,8",
                "column 4 (offset): expected a non-negative integer (B), got \"-1\"",
            ),
            (
                "1,h,0,R,0,99999999999999999",
                "column 5 (size): expected a non-negative integer of sector units",
            ),
            (
                "1,h,s,R,0,8",
                "column 2 (stream): expected an integer in 0..=4294967295",
            ),
            ("1,h,0,R,0", "expected at least 6 comma-separated fields"),
            // A header row is an error for a generic mapping (use skip=1).
            ("Time,Host,Disk,Type,Offset,Size", "column 0 (time)"),
        ] {
            let e = one(&m, line, 1).unwrap_err();
            assert!(e.contains(needle), "{line}: {e}");
        }
    }
}
