//! Shared field parsing for the format modules: the parsed-record types,
//! allocation-free field splitting, number parsers and the wording of field
//! errors (`field N (name): expected ..., got "..."`).

use crate::workload::Op;

/// One parsed record before the time base and size checks of the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RawRecord {
    /// Absolute timestamp in the trace's clock, in nanoseconds.
    pub ts_ns: u128,
    pub offset: u64,
    /// Bytes; 0 is dropped and > u32::MAX is an error (checked by the reader).
    pub size: u64,
    pub op: Op,
    pub stream: u32,
}

/// What a format parser made of one cleaned line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Parsed {
    Record(RawRecord),
    /// A line that is legitimately not a record (header, other event, ...).
    NotRecord,
    /// A record that is deliberately dropped (counted in `skipped`).
    Dropped,
}

/// Fields are numbered from 1 in messages.
pub(super) const MAX_FIELDS: usize = 16;

/// The fields of one line, without allocation. `len()` counts every field,
/// only the first [`MAX_FIELDS`] are stored.
pub(super) struct Fields<'a> {
    stored: [&'a [u8]; MAX_FIELDS],
    count: usize,
}

impl<'a> Fields<'a> {
    /// Split on runs of ASCII whitespace (`u8::is_ascii_whitespace`).
    #[inline]
    pub(super) fn whitespace(line: &'a [u8]) -> Fields<'a> {
        let mut f = Fields {
            stored: [&[]; MAX_FIELDS],
            count: 0,
        };
        let mut i = 0;
        let n = line.len();
        while i < n {
            if is_space(line[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < n && !is_space(line[i]) {
                i += 1;
            }
            f.push(&line[start..i]);
        }
        f
    }

    /// Split on commas; surrounding whitespace of each field is trimmed.
    #[inline]
    pub(super) fn commas(line: &'a [u8]) -> Fields<'a> {
        let mut f = Fields {
            stored: [&[]; MAX_FIELDS],
            count: 0,
        };
        let mut start = 0;
        for (i, &b) in line.iter().enumerate() {
            if b == b',' {
                f.push(line[start..i].trim_ascii());
                start = i + 1;
            }
        }
        f.push(line[start..].trim_ascii());
        f
    }

    #[inline]
    fn push(&mut self, field: &'a [u8]) {
        if self.count < MAX_FIELDS {
            self.stored[self.count] = field;
        }
        self.count += 1;
    }

    pub(super) fn len(&self) -> usize {
        self.count
    }

    /// Field `i` (0-based); empty when absent or beyond [`MAX_FIELDS`].
    pub(super) fn get(&self, i: usize) -> &'a [u8] {
        if i < self.count && i < MAX_FIELDS {
            self.stored[i]
        } else {
            &[]
        }
    }
}

/// `text` for a message: lossy UTF-8, at most `max` characters, quoted and
/// escaped (`"abc"`, `"\0\0…"`).
pub(super) fn quote(text: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(text);
    let mut out: String = s.chars().take(max).collect();
    if s.chars().nth(max).is_some() {
        out.push('…');
    }
    format!("{out:?}")
}

/// `field N (name): expected WHAT, got "text"`.
pub(super) fn field_error(index: usize, name: &str, expected: &str, got: &[u8]) -> String {
    format!(
        "field {} ({name}): expected {expected}, got {}",
        index + 1,
        quote(got, 40)
    )
}

/// Wrong number of fields.
pub(super) fn count_error(expected: &str, layout: &str, got: usize, line: &[u8]) -> String {
    format!(
        "expected {expected} fields ({layout}), got {got}: {}",
        quote(line, 80)
    )
}

/// `u8::is_ascii_whitespace` as one shift and mask.
#[inline]
pub(super) fn is_space(b: u8) -> bool {
    const MASK: u64 = 1 << b' ' | 1 << b'\t' | 1 << b'\n' | 1 << 0x0c | 1 << b'\r';
    b < 64 && (MASK >> b) & 1 == 1
}

/// Decimal unsigned integer (digits only, no sign).
#[inline]
pub(super) fn parse_u64(s: &[u8]) -> Option<u64> {
    if s.is_empty() || s.len() > 20 {
        return None;
    }
    if s.len() < 20 {
        // 19 digits cannot overflow.
        let mut v: u64 = 0;
        for &b in s {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                return None;
            }
            v = v * 10 + u64::from(d);
        }
        return Some(v);
    }
    let mut v: u64 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
    }
    Some(v)
}

/// Field `i` as a decimal unsigned integer.
pub(super) fn int_field(f: &Fields<'_>, i: usize, name: &str) -> Result<u64, String> {
    let s = f.get(i);
    parse_u64(s).ok_or_else(|| field_error(i, name, "a non-negative integer", s))
}

/// Field `i` as a u32 (stream ids).
pub(super) fn u32_field(f: &Fields<'_>, i: usize, name: &str) -> Result<u32, String> {
    let s = f.get(i);
    parse_u64(s)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| field_error(i, name, "an integer in 0..=4294967295", s))
}

/// Field `i` counted in 512-byte sectors, returned in bytes.
pub(super) fn sectors_field(f: &Fields<'_>, i: usize, name: &str) -> Result<u64, String> {
    let v = int_field(f, i, name)?;
    v.checked_mul(512)
        .ok_or_else(|| field_error(i, name, "a sector count below 2^55", f.get(i)))
}

/// Non-negative decimal number (`12`, `12.5`, `.5`, `1e3`) scaled by
/// `10^scale` and truncated to an integer: with `scale = 6` a time in ms
/// becomes ns. Plain decimals are converted exactly, without floating point.
pub(super) fn parse_scaled(s: &[u8], scale: u32) -> Option<u128> {
    let (int_part, frac_part) = match s.iter().position(|&b| b == b'.') {
        Some(dot) => (&s[..dot], &s[dot + 1..]),
        None => (s, &s[s.len()..]),
    };
    let digits = |p: &[u8]| p.iter().all(u8::is_ascii_digit);
    if digits(int_part) && digits(frac_part) && !(int_part.is_empty() && frac_part.is_empty()) {
        if int_part.len() > 24 {
            return None;
        }
        let mut v: u128 = 0;
        for &b in int_part {
            v = v * 10 + u128::from(b - b'0');
        }
        for k in 0..scale as usize {
            let d = frac_part.get(k).map_or(0, |&b| u128::from(b - b'0'));
            v = v.checked_mul(10)?.checked_add(d)?;
        }
        return Some(v);
    }
    // Exponent notation and the like: go through f64.
    let text = std::str::from_utf8(s).ok()?;
    if !text.bytes().any(|b| b == b'e' || b == b'E') {
        return None;
    }
    let v: f64 = text.parse().ok()?;
    let scaled = v * 10f64.powi(scale as i32);
    if (0.0..1e35).contains(&scaled) {
        Some(scaled as u128)
    } else {
        None
    }
}

/// Field `i` as a non-negative time in `unit`, converted to ns with `scale`
/// (ns per unit = 10^scale).
pub(super) fn time_field(f: &Fields<'_>, i: usize, name: &str, scale: u32) -> Result<u128, String> {
    let s = f.get(i);
    parse_scaled(s, scale).ok_or_else(|| field_error(i, name, "a non-negative number", s))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaled_numbers() {
        assert_eq!(parse_scaled(b"13.191135", 6), Some(13_191_135));
        assert_eq!(parse_scaled(b"0.011413", 9), Some(11_413_000));
        assert_eq!(parse_scaled(b"5", 6), Some(5_000_000));
        assert_eq!(parse_scaled(b".5", 3), Some(500));
        assert_eq!(parse_scaled(b"7.", 3), Some(7000));
        assert_eq!(parse_scaled(b"1.23456789", 0), Some(1));
        assert_eq!(parse_scaled(b"1.5e3", 6), Some(1_500_000_000));
        assert_eq!(parse_scaled(b".", 3), None);
        assert_eq!(parse_scaled(b"", 3), None);
        assert_eq!(parse_scaled(b"-1", 3), None);
        assert_eq!(parse_scaled(b"1.2.3", 3), None);
        assert_eq!(parse_scaled(b"abc", 3), None);
        assert_eq!(parse_u64(b"18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_u64(b"18446744073709551616"), None);
        assert_eq!(parse_u64(b"+1"), None);
    }

    #[test]
    fn quoting_truncates_and_escapes() {
        assert_eq!(quote(b"abc", 40), "\"abc\"");
        assert_eq!(quote(b"abcdef", 3), "\"abc…\"");
        assert_eq!(quote(b"a\0\xff", 40), "\"a\\0\u{fffd}\"");
    }
}
