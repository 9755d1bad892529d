//! Line cleaning before a format parser sees a line: blank and `#` lines,
//! NUL padding and tar/pax header junk (see [`super::TraceReader`]).

use super::fields::quote;

/// [`clean_line`] for a line known to hold no NUL byte.
#[inline]
pub(super) fn clean_text(line: &[u8], seen_record: bool) -> Result<Option<&[u8]>, String> {
    let text = line.trim_ascii();
    if text.is_empty() || text[0] == b'#' || (!seen_record && is_pax_record(text)) {
        return Ok(None);
    }
    Ok(Some(text))
}

/// Reduce one physical line to the text a format parser sees: `Ok(None)` when
/// the line is skippable in every format (see [`TraceReader`]), `Err` for a
/// NUL byte in a line after the first record.
pub(super) fn clean_line(line: &[u8], seen_record: bool) -> Result<Option<&[u8]>, String> {
    let mut text = line;
    if let Some(last_nul) = line.iter().rposition(|&b| b == 0) {
        if line.iter().all(|&b| b == 0 || b.is_ascii_whitespace()) {
            return Ok(None);
        }
        if seen_record {
            return Err(format!(
                "unexpected NUL byte in a record line: {}",
                quote(line, 80)
            ));
        }
        text = &line[last_nul + 1..];
    }
    clean_text(text, seen_record)
}

/// A pax extended-header record: `<decimal length> <key>=<value>`, e.g.
/// `28 ctime=1410563671.7201132`.
fn is_pax_record(text: &[u8]) -> bool {
    let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || text.get(digits) != Some(&b' ') {
        return false;
    }
    let rest = &text[digits + 1..];
    let key = rest
        .iter()
        .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_')
        .count();
    key > 0 && rest[0].is_ascii_alphabetic() && rest.get(key) == Some(&b'=')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tar_junk_is_skipped_only_before_the_first_record() {
        let pax = &b"28 ctime=1410563671.7201132"[..];
        assert_eq!(clean_line(b"\0\0\0 \0", true), Ok(None));
        assert_eq!(clean_line(pax, false), Ok(None));
        assert_eq!(clean_line(pax, true), Ok(Some(pax)));
        assert_eq!(
            clean_line(b"./PaxHeaders.1/x\0\0ustar\0\x0030 atime=1", false),
            Ok(None)
        );
        assert_eq!(
            clean_line(b"hdr\0\0  1 2 3 ", false),
            Ok(Some(&b"1 2 3"[..]))
        );
        assert!(clean_line(b"1 2\x003", true).unwrap_err().contains("NUL"));
        assert_eq!(clean_line(b"  # comment", false), Ok(None));
        assert_eq!(clean_line(b" \t ", false), Ok(None));
    }
}
