//! Fast path of the format parsers: one pass over a well-formed line,
//! integers parsed while the fields are found, no field table.
//!
//! Each function returns `Some(record)` only for a line its format parser
//! ([`super::msr::parse`] and friends) accepts as exactly that record;
//! anything unusual (a header, a 20-digit number, exponent notation, a wrong
//! field) gives `None` and the caller runs the full parser, which also words
//! the error. `mutate.rs`'s property test and `tests/trace_golden.rs` check
//! that agreement.

use super::{is_space, RawRecord};
use crate::workload::Op;

/// A position in one line.
pub(super) struct Cursor<'a> {
    s: &'a [u8],
    i: usize,
}

/// Length of the token at the start of `s` (up to the first whitespace
/// byte). After the first bytes, eight at a time: whitespace is <= 0x20, and the lowest byte
/// the has-less-than test flags is always a true match; a flagged control
/// byte that is not whitespace is stepped over.
#[inline]
fn token_end(s: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    // Most tokens are short: the first bytes one by one.
    let mut i = 0;
    while i < 6 {
        match s.get(i) {
            None => return i,
            Some(&b) if is_space(b) => return i,
            Some(_) => i += 1,
        }
    }
    while let Some(c) = s.get(i..i + 8) {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let m = w.wrapping_sub(LO * 0x21) & !w & HI;
        if m == 0 {
            i += 8;
            continue;
        }
        let j = i + (m.trailing_zeros() / 8) as usize;
        if is_space(s[j]) {
            return j;
        }
        i = j + 1;
    }
    while i < s.len() && !is_space(s[i]) {
        i += 1;
    }
    i
}

impl<'a> Cursor<'a> {
    #[inline]
    pub(super) fn new(s: &'a [u8]) -> Cursor<'a> {
        Cursor { s, i: 0 }
    }

    #[inline]
    fn rest(&self) -> &'a [u8] {
        &self.s[self.i.min(self.s.len())..]
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    #[inline]
    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.i += rest
            .iter()
            .position(|&b| !is_space(b))
            .unwrap_or(rest.len());
    }

    /// Digits at the cursor (1 to 19 of them: no overflow possible).
    #[inline]
    fn digits(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut n = 0;
        for &b in self.rest() {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            n += 1;
        }
        self.i += n;
        (1..=19).contains(&n).then_some(v)
    }

    /// Next whitespace-separated field: true when it is non-empty and all
    /// hex digits. The check has no early exit, so it vectorises (an md5 is
    /// 32 bytes).
    #[inline]
    pub(super) fn ws_hex(&mut self) -> bool {
        let tok = self.ws_token();
        let hex = tok.iter().fold(true, |ok, &b| {
            ok & ((b.wrapping_sub(b'0') < 10) | ((b | 0x20).wrapping_sub(b'a') < 6))
        });
        !tok.is_empty() && hex
    }

    /// At a field end: whitespace or the end of the line.
    #[inline]
    fn at_ws_end(&self) -> bool {
        self.peek().is_none_or(is_space)
    }

    /// Next whitespace-separated field as an integer.
    #[inline]
    pub(super) fn ws_u64(&mut self) -> Option<u64> {
        self.skip_ws();
        let v = self.digits()?;
        self.at_ws_end().then_some(v)
    }

    /// Next whitespace-separated field as a u32.
    #[inline]
    pub(super) fn ws_u32(&mut self) -> Option<u32> {
        u32::try_from(self.ws_u64()?).ok()
    }

    /// Next whitespace-separated field, as it is.
    #[inline]
    pub(super) fn ws_token(&mut self) -> &'a [u8] {
        self.skip_ws();
        let rest = self.rest();
        let n = token_end(rest);
        self.i += n;
        &rest[..n]
    }

    /// Next whitespace-separated field as a plain decimal (`12`, `12.5`,
    /// `.5`, `7.`) scaled by 10^scale and truncated, like
    /// [`super::parse_scaled`]. At most 19 integer digits.
    #[inline]
    pub(super) fn ws_time(&mut self, scale: u32) -> Option<u128> {
        self.skip_ws();
        let t = self.decimal(scale)?;
        self.at_ws_end().then_some(t)
    }

    #[inline]
    fn decimal(&mut self, scale: u32) -> Option<u128> {
        let start = self.i;
        let int = self.digits();
        let mut v = u128::from(int.unwrap_or(0));
        if int.is_none() && self.i != start {
            return None; // more than 19 digits
        }
        let mut have_digits = int.is_some();
        let mut k = 0;
        if self.peek() == Some(b'.') {
            self.i += 1;
            while let Some(b) = self.peek() {
                let d = b.wrapping_sub(b'0');
                if d > 9 {
                    break;
                }
                have_digits = true;
                if k < scale {
                    v = v * 10 + u128::from(d);
                    k += 1;
                }
                self.i += 1;
            }
        }
        if !have_digits {
            return None;
        }
        for _ in k..scale {
            v *= 10;
        }
        Some(v)
    }

    /// Nothing but whitespace left.
    #[inline]
    pub(super) fn ws_done(&mut self) -> bool {
        self.skip_ws();
        self.i == self.s.len()
    }

    /// Consume the comma ending a field, or accept the end of the line.
    #[inline]
    fn csv_end(&mut self) -> Option<()> {
        self.skip_ws();
        match self.peek() {
            Some(b',') => {
                self.i += 1;
                Some(())
            }
            None => Some(()),
            Some(_) => None,
        }
    }

    /// Next comma-separated field as an integer.
    #[inline]
    pub(super) fn csv_u64(&mut self) -> Option<u64> {
        self.skip_ws();
        let v = self.digits()?;
        self.csv_end()?;
        Some(v)
    }

    /// Next comma-separated field, trimmed.
    #[inline]
    pub(super) fn csv_token(&mut self) -> Option<&'a [u8]> {
        self.skip_ws();
        let start = self.i;
        while self.peek().is_some_and(|b| b != b',') {
            self.i += 1;
        }
        let tok = self.s[start..self.i].trim_ascii();
        if self.peek() == Some(b',') {
            self.i += 1;
        }
        Some(tok)
    }

    /// Next comma-separated field as a plain decimal scaled by 10^scale.
    #[inline]
    pub(super) fn csv_time(&mut self, scale: u32) -> Option<u128> {
        self.skip_ws();
        let t = self.decimal(scale)?;
        self.csv_end()?;
        Some(t)
    }
}

fn sectors(v: u64) -> Option<u64> {
    v.checked_mul(512)
}

/// MSR CSV: `filetime,host,disk,Read|Write,offset,size[,response]`.
#[inline]
pub(super) fn msr(line: &[u8]) -> Option<RawRecord> {
    let mut c = Cursor::new(line);
    let ticks = c.csv_u64()?;
    c.csv_token()?;
    let stream = u32::try_from(c.csv_u64()?).ok()?;
    let op = super::msr::op_of(c.csv_token()?)?;
    let offset = c.csv_u64()?;
    let size = c.csv_u64()?;
    // At most the response time may follow (ignored, as in the full parser,
    // which rejects an eighth field).
    if c.rest().contains(&b',') {
        return None;
    }
    Some(RawRecord {
        ts_ns: u128::from(ticks) * 100,
        offset,
        size,
        op,
        stream,
    })
}

/// SPC CSV: `ASU,LBA,size,R|W,time s[,...]`.
#[inline]
pub(super) fn spc(line: &[u8]) -> Option<RawRecord> {
    let mut c = Cursor::new(line);
    let stream = u32::try_from(c.csv_u64()?).ok()?;
    let offset = sectors(c.csv_u64()?)?;
    let size = c.csv_u64()?;
    let op = super::spc::op_of(c.csv_token()?)?;
    // Trailing fields (allowed by the SPC spec) are ignored, as in the full
    // parser.
    let ts_ns = c.csv_time(9)?;
    Some(RawRecord {
        ts_ns,
        offset,
        size,
        op,
        stream,
    })
}

/// The layout of SSDsim and Heimdall traces, `time dev offset size op`: `time`
/// reads the first field, `to_bytes` converts the two address fields and
/// `op` decodes the last one. Inlined into each caller, so each keeps its
/// own straight-line code.
#[inline(always)]
fn time_dev_offset_size_op(
    line: &[u8],
    time: impl FnOnce(&mut Cursor) -> Option<u128>,
    to_bytes: impl Fn(u64) -> Option<u64>,
    op: impl FnOnce(&[u8]) -> Option<Op>,
) -> Option<RawRecord> {
    let mut c = Cursor::new(line);
    let ts_ns = time(&mut c)?;
    let stream = c.ws_u32()?;
    let offset = to_bytes(c.ws_u64()?)?;
    let size = to_bytes(c.ws_u64()?)?;
    let op = op(c.ws_token())?;
    if !c.ws_done() {
        return None;
    }
    Some(RawRecord {
        ts_ns,
        offset,
        size,
        op,
        stream,
    })
}

/// ASCII `time dev sector size flags(hex)`.
#[inline]
pub(super) fn ascii(line: &[u8], scale: u32) -> Option<RawRecord> {
    // Its own code: through `time_dev_offset_size_op` it parsed ~10 % slower.
    let mut c = Cursor::new(line);
    let ts_ns = c.ws_time(scale)?;
    let stream = c.ws_u32()?;
    let offset = sectors(c.ws_u64()?)?;
    let size = sectors(c.ws_u64()?)?;
    let flags = super::ascii::parse_hex(c.ws_token())?;
    if !c.ws_done() {
        return None;
    }
    let op = if flags & 1 == 1 { Op::Read } else { Op::Write };
    Some(RawRecord {
        ts_ns,
        offset,
        size,
        op,
        stream,
    })
}

/// `1` read, `0` write.
#[inline]
fn op10(t: &[u8]) -> Option<Op> {
    match t {
        b"1" => Some(Op::Read),
        b"0" => Some(Op::Write),
        _ => None,
    }
}

/// SSDsim `time(ns) dev lsn size op`.
#[inline]
pub(super) fn ssdsim(line: &[u8]) -> Option<RawRecord> {
    time_dev_offset_size_op(line, |c| c.ws_u64().map(u128::from), sectors, op10)
}

/// Heimdall `ts(ms) dev offset size op`.
#[inline]
pub(super) fn heimdall(line: &[u8]) -> Option<RawRecord> {
    time_dev_offset_size_op(line, |c| c.ws_time(6), Some, op10)
}

/// FIU `ts pid process lba size op major minor md5` with a one-word process
/// name (names with spaces take the full parser).
#[inline]
pub(super) fn fiu(line: &[u8]) -> Option<RawRecord> {
    let mut c = Cursor::new(line);
    let ts_ns = u128::from(c.ws_u64()?);
    let stream = c.ws_u32()?;
    if c.ws_token().is_empty() {
        return None;
    }
    let offset = sectors(c.ws_u64()?)?;
    let size = sectors(c.ws_u64()?)?;
    let op = super::spc::op_of(c.ws_token())?;
    c.ws_u64()?;
    c.ws_u64()?;
    if !c.ws_hex() || !c.ws_done() {
        return None;
    }
    Some(RawRecord {
        ts_ns,
        offset,
        size,
        op,
        stream,
    })
}

/// The fields of a blkparse event line up to the sector range.
pub(super) struct BlkEvent<'a> {
    pub dev: u64,
    pub cpu: u32,
    pub seq: u64,
    pub ts_ns: u128,
    pub pid: u32,
    pub rwbs: &'a [u8],
    /// `sector + n` in bytes, for an event of the wanted action with a
    /// well-formed range.
    pub range: Option<(u64, u64)>,
}

/// A well-formed blkparse event line (`None`: let the full parser decide).
/// Events of another action than `wanted` stop after the seventh field: only
/// their sequence number matters (stale-session detection).
#[inline]
pub(super) fn blkparse(line: &[u8], wanted: u8) -> Option<BlkEvent<'_>> {
    let mut c = Cursor::new(line);
    let dev = super::blkparse::parse_dev(c.ws_token())?;
    let cpu = c.ws_u32()?;
    let seq = c.ws_u64()?;
    let ts_ns = c.ws_time(9)?;
    let pid = c.ws_u32()?;
    let action = c.ws_token();
    let rwbs = c.ws_token();
    if action.is_empty() || rwbs.is_empty() {
        return None;
    }
    let range = if action != [wanted] {
        None
    } else {
        if !rwbs.iter().all(u8::is_ascii_uppercase) {
            return None;
        }
        let sector = c.ws_token();
        if c.ws_token() == b"+" {
            // Malformed numbers after `+` are errors: the full parser words them.
            let n = c.ws_token();
            Some((
                sectors(super::parse_u64(sector)?)?,
                sectors(super::parse_u64(n)?)?,
            ))
        } else {
            None
        }
    };
    Some(BlkEvent {
        dev,
        cpu,
        seq,
        ts_ns,
        pid,
        rwbs,
        range,
    })
}

#[cfg(test)]
mod tests {
    use super::token_end;

    #[test]
    fn token_end_matches_a_plain_scan() {
        let plain = |s: &[u8]| {
            s.iter()
                .position(|b| b.is_ascii_whitespace())
                .unwrap_or(s.len())
        };
        let bytes = [
            b'a', b' ', b'\t', b'\n', 0x0b, 0x0c, b'\r', 0, 0x01, 0x1f, 0x20, 0x21, 0x80, 0xa0,
            0xff,
        ];
        for len in 0..20 {
            for k in 0..len {
                for &x in &bytes {
                    for &y in &bytes {
                        let mut v = vec![b'z'; len];
                        v[k] = x;
                        v[len - 1] = y;
                        assert_eq!(token_end(&v), plain(&v), "{v:?}");
                    }
                }
            }
        }
    }
}
