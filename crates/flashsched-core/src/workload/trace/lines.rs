//! The physical-line source of the trace readers: one reused buffer filled in
//! large chunks, lines handed out as slices of it (no copy, no allocation per
//! line). The newline search runs eight bytes at a time and notes NUL bytes
//! on the way, so the tar-junk handling of the reader costs nothing on clean
//! lines.
//!
//! Memory is bounded: the buffer holds one chunk plus at most one line of up
//! to [`MAX_LINE`] bytes; a longer line is reported as [`Next::TooLong`] and
//! its remaining bytes are discarded up to the next newline.

use std::io::{ErrorKind, Read};
use std::ops::Range;

/// Longest accepted physical line (without its line ending). Protects against
/// binary files without newlines (tar padding lines are at most ~10 KiB).
pub(super) const MAX_LINE: usize = 1 << 20;

/// Bytes requested from the file per read.
const CHUNK: usize = 256 * 1024;

/// What [`LineSource::next_line`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Next {
    /// A line (range into [`LineSource::bytes`], without `\n`; a trailing
    /// `\r` is kept) and whether it contains a NUL byte.
    Line { range: Range<usize>, nul: bool },
    /// A line longer than [`MAX_LINE`]; the rest of it is skipped.
    TooLong,
    /// End of input.
    Eof,
}

pub(super) struct LineSource {
    inner: Box<dyn Read + Send>,
    buf: Vec<u8>,
    /// Start of the current (unfinished) line.
    pos: usize,
    /// Where the newline search resumes (>= pos).
    scan: usize,
    /// End of the valid bytes in `buf`.
    end: usize,
    /// The current line has a NUL byte before `scan`.
    nul: bool,
    /// Bytes up to the next newline belong to an over-long line.
    discarding: bool,
    eof: bool,
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;
const NL: u64 = LO * b'\n' as u64;

/// Index of the first `\n` or NUL byte in `data`. SWAR: the lowest byte
/// flagged by the has-zero test is always a true match.
#[inline]
fn find_nl_or_nul(data: &[u8]) -> Option<usize> {
    let mut chunks = data.chunks_exact(8);
    let mut base = 0;
    for c in chunks.by_ref() {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let x = w ^ NL;
        let m = (x.wrapping_sub(LO) & !x & HI) | (w.wrapping_sub(LO) & !w & HI);
        if m != 0 {
            return Some(base + (m.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == b'\n' || b == 0)
        .map(|i| base + i)
}

impl LineSource {
    pub(super) fn new(inner: Box<dyn Read + Send>) -> LineSource {
        LineSource {
            inner,
            buf: vec![0; CHUNK],
            pos: 0,
            scan: 0,
            end: 0,
            nul: false,
            discarding: false,
            eof: false,
        }
    }

    /// The bytes a [`Next::Line`] range refers to (valid until the next call).
    #[inline]
    pub(super) fn bytes(&self, range: Range<usize>) -> &[u8] {
        &self.buf[range]
    }

    /// The next physical line.
    pub(super) fn next_line(&mut self) -> std::io::Result<Next> {
        loop {
            match find_nl_or_nul(&self.buf[self.scan..self.end]) {
                Some(i) if self.buf[self.scan + i] == b'\n' => {
                    let range = self.pos..self.scan + i;
                    let nul = std::mem::take(&mut self.nul);
                    self.pos = range.end + 1;
                    self.scan = self.pos;
                    if std::mem::take(&mut self.discarding) {
                        continue;
                    }
                    if range.len() > MAX_LINE {
                        return Ok(Next::TooLong);
                    }
                    return Ok(Next::Line { range, nul });
                }
                Some(i) => {
                    self.nul = true;
                    self.scan += i + 1;
                }
                None => {
                    self.scan = self.end;
                    if self.discarding {
                        self.pos = self.end;
                    } else if self.end - self.pos > MAX_LINE {
                        self.discarding = true;
                        self.pos = self.end;
                        self.nul = false;
                        return Ok(Next::TooLong);
                    }
                    if self.eof {
                        if self.pos < self.end && !self.discarding {
                            let range = self.pos..self.end;
                            self.pos = self.end;
                            return Ok(Next::Line {
                                range,
                                nul: std::mem::take(&mut self.nul),
                            });
                        }
                        return Ok(Next::Eof);
                    }
                    self.fill()?;
                }
            }
        }
    }

    /// Move the unfinished line to the front and read more after it.
    fn fill(&mut self) -> std::io::Result<()> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.scan -= self.pos;
            self.pos = 0;
        }
        if self.buf.len() - self.end < CHUNK / 2 {
            // Only a line longer than a chunk grows the buffer (to at most
            // MAX_LINE + CHUNK bytes, as longer lines are discarded).
            self.buf.resize(self.end + CHUNK, 0);
        }
        loop {
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(());
                }
                Ok(n) => {
                    self.end += n;
                    return Ok(());
                }
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    /// A reader that hands out at most `step` bytes per read.
    struct Trickle(Cursor<Vec<u8>>, usize);
    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.1);
            self.0.read(&mut buf[..n])
        }
    }

    fn lines(text: &[u8], step: usize) -> Vec<(Vec<u8>, bool)> {
        let mut src = LineSource::new(Box::new(Trickle(Cursor::new(text.to_vec()), step)));
        let mut out = Vec::new();
        loop {
            match src.next_line().unwrap() {
                Next::Line { range, nul } => out.push((src.bytes(range).to_vec(), nul)),
                Next::TooLong => out.push((b"<too long>".to_vec(), false)),
                Next::Eof => return out,
            }
        }
    }

    #[test]
    fn splits_like_read_until_at_any_read_size() {
        let text = b"a\nbb\r\n\nccc\0c\nlast-without-newline-0123456789";
        for step in [1, 3, 7, 8, 9, 64, CHUNK] {
            let got = lines(text, step);
            let want: Vec<(Vec<u8>, bool)> = vec![
                (b"a".to_vec(), false),
                (b"bb\r".to_vec(), false),
                (b"".to_vec(), false),
                (b"ccc\0c".to_vec(), true),
                (b"last-without-newline-0123456789".to_vec(), false),
            ];
            assert_eq!(got, want, "step {step}");
        }
        assert!(lines(b"", 5).is_empty());
        assert_eq!(lines(b"\n", 5), vec![(vec![], false)]);
    }

    #[test]
    fn finds_every_position_in_a_word() {
        for k in 0..20 {
            let mut v = vec![b'x'; 20];
            v[k] = b'\n';
            assert_eq!(find_nl_or_nul(&v), Some(k));
            v[k] = 0;
            assert_eq!(find_nl_or_nul(&v), Some(k));
            v[k] = b'x';
            assert_eq!(find_nl_or_nul(&v), None);
        }
        // Bytes just above/below the targets never match.
        assert_eq!(
            find_nl_or_nul(&[0x0b, 0x09, 0x01, 0x80, 0x8a, 0xff, 0x0a]),
            Some(6)
        );
    }

    #[test]
    fn over_long_lines_are_skipped_to_the_next_newline() {
        let mut text = vec![b'1'; MAX_LINE + 1];
        text.extend_from_slice(b"\nok\n");
        text.extend(std::iter::repeat_n(b'2', 3 * MAX_LINE));
        text.extend_from_slice(b"\nend");
        for step in [CHUNK, 1000, MAX_LINE + 5] {
            let got: Vec<Vec<u8>> = lines(&text, step).into_iter().map(|l| l.0).collect();
            assert_eq!(
                got,
                vec![
                    b"<too long>".to_vec(),
                    b"ok".to_vec(),
                    b"<too long>".to_vec(),
                    b"end".to_vec()
                ],
                "step {step}"
            );
        }
        let exact = [vec![b'3'; MAX_LINE], b"\n".to_vec()].concat();
        assert_eq!(lines(&exact, CHUNK)[0].0.len(), MAX_LINE);
    }
}
