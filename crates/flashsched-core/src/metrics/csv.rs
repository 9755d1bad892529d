//! Numeric tables as CSV text, written exactly as pandas' `to_csv(index=
//! False)` writes them: integers in decimal, floats as Python's `repr`
//! (the shortest digits that read back to the same value), NaN as an empty
//! field. `flashsched run --out` writes its `timeseries.csv` this way: a run
//! that spans hours of simulated time has tens of thousands of rows, which
//! took ~45 ms to format in Python after the run had ended.

use std::fmt::Write;

/// One column of a table.
#[derive(Debug, Clone, Copy)]
pub enum CsvColumn<'a> {
    /// Written in decimal.
    Int(&'a [i64]),
    /// Written as Python's `repr`; NaN as an empty field.
    Float(&'a [f64]),
}

impl CsvColumn<'_> {
    fn len(&self) -> usize {
        match self {
            CsvColumn::Int(v) => v.len(),
            CsvColumn::Float(v) => v.len(),
        }
    }
}

/// The table `columns` (headed by `names`, one per column, all of one
/// length) as CSV text, one line per row, each ending in `\n`. An error
/// names the column whose length differs from the first's.
pub fn numeric_csv(names: &[&str], columns: &[CsvColumn]) -> Result<String, String> {
    if names.len() != columns.len() {
        return Err(format!(
            "{} column names for {} columns",
            names.len(),
            columns.len()
        ));
    }
    let rows = columns.first().map_or(0, |c| c.len());
    if let Some((name, c)) = names.iter().zip(columns).find(|(_, c)| c.len() != rows) {
        return Err(format!(
            "column `{name}` has {} rows, the first has {rows}",
            c.len()
        ));
    }
    let mut out = String::with_capacity(16 * (rows + 1) * columns.len().max(1));
    out.push_str(&names.join(","));
    out.push('\n');
    let mut digits = String::new();
    for r in 0..rows {
        for (i, c) in columns.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            match c {
                CsvColumn::Int(v) => push_int(v[r], &mut out),
                CsvColumn::Float(v) if v[r].is_nan() => {}
                CsvColumn::Float(v) => push_python_repr(v[r], &mut out, &mut digits),
            }
        }
        out.push('\n');
    }
    Ok(out)
}

/// Append `v` in decimal (without `fmt`'s machinery, several times
/// slower per value here).
fn push_int(v: i64, out: &mut String) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut u = v.unsigned_abs();
    loop {
        i -= 1;
        buf[i] = b'0' + (u % 10) as u8;
        u /= 10;
        if u == 0 {
            break;
        }
    }
    if v < 0 {
        out.push('-');
    }
    // ASCII digits only.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or_default());
}

/// Append `x` as Python's `repr(x)` writes it (`float_repr_style` "short"):
/// the shortest digits that round-trip, positional for decimal exponents
/// -4 to 15 (with `.0` when there is no fraction), else scientific with a
/// signed exponent of at least two digits (`1e-05`, `1.5e+16`); `inf`,
/// `-inf`, `nan`. `scratch` is reused between calls.
pub fn push_python_repr(x: f64, out: &mut String, scratch: &mut String) {
    if x.is_nan() {
        out.push_str("nan");
        return;
    }
    if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        return;
    }
    let exp = shortest_digits(x.abs(), scratch);
    let (lead, rest) = scratch.split_at(1);
    if x.is_sign_negative() {
        out.push('-');
    }
    if (-4..16).contains(&exp) {
        if exp < 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            out.push_str(lead);
            out.push_str(rest);
            return;
        }
        // `exp` digits of `rest` belong before the point.
        let int_rest = exp as usize;
        out.push_str(lead);
        if rest.len() <= int_rest {
            out.push_str(rest);
            out.extend(std::iter::repeat_n('0', int_rest - rest.len()));
            out.push_str(".0");
        } else {
            out.push_str(&rest[..int_rest]);
            out.push('.');
            out.push_str(&rest[int_rest..]);
        }
        return;
    }
    out.push_str(lead);
    if !rest.is_empty() {
        out.push('.');
        out.push_str(rest);
    }
    let sign = if exp < 0 { '-' } else { '+' };
    let _ = write!(out, "e{sign}{:02}", exp.unsigned_abs());
}

/// The shortest digits that read back as `x` (finite, not negative) into
/// `digits`, as Python's repr chooses them; returns the decimal exponent
/// of the first digit. `zmij` finds shortest digits (6x faster than
/// `fmt`'s `{:e}`); where two candidates are exactly as near to `x` (`x`
/// halfway between them), Python (David Gay's `dtoa`) takes the even one.
fn shortest_digits(x: f64, digits: &mut String) -> i32 {
    let mut buf = zmij::Buffer::new();
    let text = buf.format_finite(x);
    let (mantissa, shift) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let int_len = mantissa.find('.').unwrap_or(mantissa.len()) as i32;
    digits.clear();
    digits.extend(mantissa.chars().filter(|c| *c != '.'));
    // Leading zeros (0.00001) move the first digit down.
    let zeros = digits.len() - digits.trim_start_matches('0').len();
    let exp = int_len - 1 + shift - zeros as i32;
    digits.drain(..zeros);
    digits.truncate(digits.trim_end_matches('0').len());
    if digits.is_empty() {
        digits.push('0');
        return 0;
    }
    if let Some(even) = even_neighbour_at_tie(x, digits, exp) {
        *digits = even;
    }
    exp
}

/// For shortest digits `digits` (first digit at decimal exponent `exp`) of
/// `x`: the even neighbour (last digit ±1) Python would take instead, if
/// `x` lies exactly halfway between the two and the neighbour reads back
/// as `x` too.
fn even_neighbour_at_tie(x: f64, digits: &str, exp: i32) -> Option<String> {
    if digits.as_bytes().last()? % 2 == 0 {
        return None; // an even last digit ('0' is 48)
    }
    // The last digit's decimal exponent.
    let s = exp - (digits.len() as i32 - 1);
    let (m, e) = odd_binary(x)?;
    // Halfway is t · 10^s / 2 = t · 5^s · 2^(s−1), t odd: never, unless
    // `x`'s power of two is that one (nearly every value stops here).
    if e != s - 1 {
        return None;
    }
    let d: u64 = digits.parse().ok()?;
    for other in [d - 1, d + 1] {
        // (d + other) / 2 · 10^s, the point halfway between the two.
        let t = (d + other) as u128;
        if halfway_is(t, s, m) && other % 10 != 0 {
            let out = other.to_string();
            // Same length as `digits` (ruled out: `other` ending in 0).
            if out.len() == digits.len() && format!("{other}e{s}").parse::<f64>().ok() == Some(x) {
                return Some(out);
            }
        }
    }
    None
}

/// `x` (finite, positive) as m · 2^e with m odd.
fn odd_binary(x: f64) -> Option<(u128, i32)> {
    let bits = x.to_bits();
    let frac = bits & ((1u64 << 52) - 1);
    let biased = (bits >> 52) as i32 & 0x7ff;
    let (m, e) = match biased {
        0 => (frac, -1074),
        _ => (frac | (1 << 52), biased - 1075),
    };
    if m == 0 {
        return None;
    }
    let tz = m.trailing_zeros();
    Some(((m >> tz) as u128, e + tz as i32))
}

/// Whether t · 5^s (t odd) equals the odd part `m` of a value whose power
/// of two is 2^(s−1) (so t · 10^s / 2 is that value).
fn halfway_is(t: u128, s: i32, m: u128) -> bool {
    let five = 5u128.checked_pow(s.unsigned_abs());
    if s >= 0 {
        five.and_then(|f| t.checked_mul(f)) == Some(m)
    } else {
        five.is_some_and(|f| t.is_multiple_of(f) && t / f == m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repr(x: f64) -> String {
        let (mut out, mut scratch) = (String::new(), String::new());
        push_python_repr(x, &mut out, &mut scratch);
        out
    }

    /// What Python 3 prints for `repr(x)`, by hand.
    #[test]
    fn floats_as_python_writes_them() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (19.0, "19.0"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (0.0595703125, "0.0595703125"),
            (12.112684210526314, "12.112684210526314"),
            (1e-4, "0.0001"),
            (1.5e-4, "0.00015"),
            (1e-5, "1e-05"),
            (-1.25e-7, "-1.25e-07"),
            (1e15, "1000000000000000.0"),
            (123456789012345.6, "123456789012345.6"),
            (1e16, "1e+16"),
            (1.5e16, "1.5e+16"),
            (1.2345678901234568e17, "1.2345678901234568e+17"),
            (1e100, "1e+100"),
            (5e-324, "5e-324"),
            // Halfway between two shortest candidates: the even one.
            (1947195189160876.0 + 0.25, "1947195189160876.2"),
            (696666125573042.0 + 0.25, "696666125573042.2"),
            (0.5, "0.5"),
            (100.0, "100.0"),
            (1.2e-3, "0.0012"),
            (123.0e-10, "1.23e-08"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ];
        for &(x, want) in cases {
            assert_eq!(repr(x), want, "{x:e}");
        }
    }

    #[test]
    fn a_table_with_a_missing_value() {
        let t = numeric_csv(
            &["time_s", "iops", "mean"],
            &[
                CsvColumn::Int(&[0, i64::MIN]),
                CsvColumn::Float(&[19.0, 34.5]),
                CsvColumn::Float(&[f64::NAN, 1e-5]),
            ],
        );
        assert_eq!(
            t.as_deref(),
            Ok("time_s,iops,mean\n0,19.0,\n-9223372036854775808,34.5,1e-05\n")
        );
        assert_eq!(numeric_csv(&[], &[]).as_deref(), Ok("\n"));
    }

    #[test]
    fn columns_of_unequal_length_are_an_error_naming_one() {
        let e = numeric_csv(
            &["a", "b"],
            &[CsvColumn::Int(&[1, 2]), CsvColumn::Float(&[1.0])],
        );
        assert_eq!(e, Err("column `b` has 1 rows, the first has 2".into()));
        assert!(numeric_csv(&["a"], &[]).is_err());
    }
}
