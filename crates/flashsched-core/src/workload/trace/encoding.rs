//! Text encodings and line endings of trace files, recognised from their
//! first bytes: a UTF-8 byte-order mark is skipped, UTF-16 (little or big
//! endian, with a BOM or recognisably without one) is transcoded to UTF-8 as
//! it streams, UTF-32 is refused with a message naming it, and a file whose
//! first line break is a lone CR (classic Mac line endings) has every CR read
//! as a line feed. Everything else passes through untouched (no cost on the
//! fast path of plain UTF-8/ASCII traces).

use std::io::{self, Cursor, ErrorKind, Read};

/// Decoded text: what was read ahead (already decoded) and the rest.
pub(super) struct Text {
    pub head: Vec<u8>,
    pub rest: Box<dyn Read + Send>,
    /// `rest` reached its end while `head` was read.
    pub eof: bool,
    /// What was done to the bytes, for the run summary ("UTF-8 BOM", ...).
    pub notes: Vec<&'static str>,
}

/// Bytes looked at for a byte-order mark or UTF-16 without one.
const HEAD: usize = 512;
/// Bytes looked at for the first line break.
const LINE_BREAK_WINDOW: usize = 64 * 1024;

/// Read up to `n` bytes (fewer only at the end of the input).
pub(super) fn read_up_to(r: &mut dyn Read, n: usize, out: &mut Vec<u8>) -> io::Result<bool> {
    let start = out.len();
    out.resize(start + n, 0);
    let mut got = 0;
    let mut eof = false;
    while got < n {
        match r.read(&mut out[start + got..]) {
            Ok(0) => {
                eof = true;
                break;
            }
            Ok(k) => got += k,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => {
                out.truncate(start + got);
                return Err(e);
            }
        }
    }
    out.truncate(start + got);
    Ok(eof)
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(ErrorKind::InvalidData, msg)
}

/// Recognise the encoding and line endings of `src` (already decompressed).
pub(super) fn decode(mut src: Box<dyn Read + Send>) -> io::Result<Text> {
    let mut head = Vec::with_capacity(HEAD);
    let mut eof = read_up_to(&mut src, HEAD, &mut head)?;
    let mut notes = Vec::new();
    let utf16 = if head.starts_with(&[0xEF, 0xBB, 0xBF]) {
        head.drain(..3);
        notes.push("UTF-8 BOM skipped");
        None
    } else if head.starts_with(&[0xFF, 0xFE, 0, 0]) || head.starts_with(&[0, 0, 0xFE, 0xFF]) {
        return Err(invalid(
            "the trace is UTF-32 text, which is not supported: convert it to UTF-8 \
             (e.g. `iconv -f UTF-32 -t UTF-8`)"
                .to_string(),
        ));
    } else if head.starts_with(&[0xFF, 0xFE]) {
        head.drain(..2);
        notes.push("UTF-16LE (BOM) transcoded");
        Some(false)
    } else if head.starts_with(&[0xFE, 0xFF]) {
        head.drain(..2);
        notes.push("UTF-16BE (BOM) transcoded");
        Some(true)
    } else {
        let guess = utf16_without_bom(&head);
        match guess {
            Some(false) => notes.push("UTF-16LE (no BOM) transcoded"),
            Some(true) => notes.push("UTF-16BE (no BOM) transcoded"),
            None => {}
        }
        guess
    };
    if let Some(big_endian) = utf16 {
        let raw = Cursor::new(std::mem::take(&mut head)).chain(src);
        src = Box::new(Utf16Reader::new(raw, big_endian));
        eof = read_up_to(&mut src, HEAD, &mut head)?;
    }
    // The first line break decides the line endings.
    loop {
        match head.iter().position(|&b| b == b'\n' || b == b'\r') {
            Some(i) if head[i] == b'\r' && i + 1 == head.len() && !eof => {}
            Some(i) => {
                if head[i] == b'\r' && head.get(i + 1) != Some(&b'\n') {
                    for b in head.iter_mut().filter(|b| **b == b'\r') {
                        *b = b'\n';
                    }
                    src = Box::new(CrAsLf(src));
                    notes.push("CR line endings");
                }
                break;
            }
            None if eof || head.len() >= LINE_BREAK_WINDOW => break,
            None => {}
        }
        eof = read_up_to(&mut src, 4096, &mut head)?;
    }
    Ok(Text {
        head,
        rest: src,
        eof,
        notes,
    })
}

/// UTF-16 text without a BOM: Latin-1 characters with a NUL byte beside
/// each one. `Some(big_endian)` when at least 80 % of the first (>= 8) byte
/// pairs look like that. Tar padding (NUL pairs) and UTF-8 text never do.
fn utf16_without_bom(head: &[u8]) -> Option<bool> {
    let pairs = head.len() / 2;
    if pairs < 8 {
        return None;
    }
    let count = |f: fn(&[u8]) -> bool| head.chunks_exact(2).filter(|p| f(p)).count();
    let le = count(|p| p[0] != 0 && p[1] == 0);
    let be = count(|p| p[0] == 0 && p[1] != 0);
    if le * 10 >= pairs * 8 {
        Some(false)
    } else if be * 10 >= pairs * 8 {
        Some(true)
    } else {
        None
    }
}

/// Reads every CR as a line feed (files with CR-only line endings).
struct CrAsLf(Box<dyn Read + Send>);

impl Read for CrAsLf {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.read(buf)?;
        for b in buf[..n].iter_mut().filter(|b| **b == b'\r') {
            *b = b'\n';
        }
        Ok(n)
    }
}

/// UTF-16 to UTF-8, streaming. Unpaired surrogates become U+FFFD (the line
/// then fails to parse and is reported with its number).
struct Utf16Reader<R> {
    inner: R,
    big_endian: bool,
    /// Undecoded input: at most one odd byte or one high surrogate between
    /// reads, plus the chunk being decoded.
    raw: Vec<u8>,
    out: Vec<u8>,
    out_pos: usize,
    eof: bool,
}

impl<R: Read> Utf16Reader<R> {
    fn new(inner: R, big_endian: bool) -> Self {
        Utf16Reader {
            inner,
            big_endian,
            raw: Vec::new(),
            out: Vec::new(),
            out_pos: 0,
            eof: false,
        }
    }

    /// Decode the next chunk into `out`.
    fn refill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.out_pos = 0;
        while self.out.is_empty() && !self.eof {
            self.eof = read_up_to(&mut self.inner, 64 * 1024, &mut self.raw)?;
            let units: Vec<u16> = self
                .raw
                .chunks_exact(2)
                .map(|p| {
                    if self.big_endian {
                        u16::from_be_bytes([p[0], p[1]])
                    } else {
                        u16::from_le_bytes([p[0], p[1]])
                    }
                })
                .collect();
            let mut used = units.len();
            // A high surrogate at the end of the chunk waits for its pair.
            if !self.eof && units.last().is_some_and(|u| (0xD800..0xDC00).contains(u)) {
                used -= 1;
            }
            let mut tmp = [0u8; 4];
            for c in char::decode_utf16(units[..used].iter().copied()) {
                let c = c.unwrap_or(char::REPLACEMENT_CHARACTER);
                self.out
                    .extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
            }
            self.raw.drain(..used * 2);
            if self.eof && !self.raw.is_empty() {
                // An odd trailing byte.
                self.raw.clear();
                self.out.extend_from_slice(
                    char::REPLACEMENT_CHARACTER.encode_utf8(&mut tmp).as_bytes(),
                );
            }
        }
        Ok(())
    }
}

impl<R: Read> Read for Utf16Reader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.out_pos == self.out.len() {
            self.refill()?;
        }
        let n = buf.len().min(self.out.len() - self.out_pos);
        buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.out_pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(bytes: &[u8]) -> (Vec<u8>, Vec<&'static str>) {
        let mut t = decode(Box::new(Cursor::new(bytes.to_vec()))).unwrap();
        let mut out = t.head;
        t.rest.read_to_end(&mut out).unwrap();
        (out, t.notes)
    }

    fn utf16(text: &str, big_endian: bool, bom: bool) -> Vec<u8> {
        let mut v = Vec::new();
        if bom {
            v.extend_from_slice(if big_endian {
                &[0xFE, 0xFF]
            } else {
                &[0xFF, 0xFE]
            });
        }
        for u in text.encode_utf16() {
            v.extend_from_slice(&if big_endian {
                u.to_be_bytes()
            } else {
                u.to_le_bytes()
            });
        }
        v
    }

    #[test]
    fn plain_text_passes_through() {
        let text = b"1 0 0 512 1\r\n2 0 0 512 1\n\0\0tar";
        assert_eq!(all(text), (text.to_vec(), vec![]));
        assert_eq!(all(b""), (vec![], vec![]));
    }

    #[test]
    fn utf8_bom_is_skipped() {
        assert_eq!(
            all(b"\xEF\xBB\xBFa,b\n"),
            (b"a,b\n".to_vec(), vec!["UTF-8 BOM skipped"])
        );
    }

    #[test]
    fn utf16_is_transcoded_across_chunks() {
        // Long enough to cross the 64 KiB chunk, with a non-BMP character
        // (a surrogate pair) and a non-ASCII one.
        let line = "1 0 4096 4096 1 é𝄞\n2 0 4096 4096 1 abc\n";
        let text: String = line.repeat(10_000);
        for be in [false, true] {
            for bom in [true, false] {
                let (out, notes) = all(&utf16(&text, be, bom));
                assert!(out == text.as_bytes(), "be {be} bom {bom}");
                assert_eq!(notes.len(), 1);
                assert!(notes[0].starts_with(if be { "UTF-16BE" } else { "UTF-16LE" }));
            }
        }
        // A lone surrogate and an odd last byte are replaced, not fatal.
        let mut bad = utf16("a\n", false, true);
        bad.extend_from_slice(&[0x00, 0xD8, b'b', 0, b'\n', 0, b'x']);
        let (out, _) = all(&bad);
        assert_eq!(String::from_utf8(out).unwrap(), "a\n\u{fffd}b\n\u{fffd}");
    }

    #[test]
    fn utf32_is_refused_by_name() {
        let e = decode(Box::new(Cursor::new(vec![0xFF, 0xFE, 0, 0, b'a', 0, 0, 0])))
            .err()
            .unwrap();
        assert_eq!(e.kind(), ErrorKind::InvalidData);
        assert!(e.to_string().contains("UTF-32"), "{e}");
    }

    #[test]
    fn cr_only_line_endings() {
        let (out, notes) = all(b"a\rb\r\rc");
        assert_eq!(
            (out, notes),
            (b"a\nb\n\nc".to_vec(), vec!["CR line endings"])
        );
        // CRLF and LF files are left alone, CRs elsewhere too.
        assert_eq!(all(b"a\r\nb\r").1, Vec::<&str>::new());
        assert_eq!(all(b"a\nb\rc").0, b"a\nb\rc".to_vec());
        // The first break found after the head (a long first line).
        let mut long = vec![b'x'; 3000];
        long.extend_from_slice(b"\ry\rz");
        let (out, notes) = all(&long);
        assert_eq!(&out[3000..], b"\ny\nz");
        assert_eq!(notes, vec!["CR line endings"]);
    }

    #[test]
    fn tar_padding_is_not_utf16() {
        let mut v = b"./PaxHeaders.1/x".to_vec();
        v.extend(std::iter::repeat_n(0u8, 200));
        assert_eq!(utf16_without_bom(&v), None);
        assert_eq!(utf16_without_bom(b"0 0 4096 4096 1\n0 0 0 512 0\n"), None);
    }
}
