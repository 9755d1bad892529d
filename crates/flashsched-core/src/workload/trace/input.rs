//! Opening a trace: a file, `-` (standard input) or a pipe such as
//! `/dev/stdin`, opened once and read once. Compression is recognised by its
//! magic bytes (not the file name) and decoded as a stream: gzip (also
//! multi-member, as bgzip and pigz write), zstd, xz and bzip2. The text
//! encoding and line endings are handled by `encoding.rs`. What is read ahead
//! to recognise all this, and later the format (`detect.rs`), stays in a
//! buffer that the reader consumes first, so nothing needs a second open.
//! Decompression runs on its own thread, a few chunks ahead of the parser.

use std::fs::File;
use std::io::{self, Cursor, ErrorKind, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver};

use super::encoding::{self, read_up_to};
use crate::error::{SimError, SimResult};

/// A compression format recognised by its magic bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// gzip (`1f 8b`).
    Gzip,
    /// Zstandard.
    Zstd,
    /// xz (LZMA2).
    Xz,
    /// bzip2.
    Bzip2,
}

impl Compression {
    fn sniff(magic: &[u8]) -> Option<Compression> {
        if magic.starts_with(&[0x1F, 0x8B]) {
            Some(Compression::Gzip)
        } else if magic.starts_with(&[0x28, 0xB5, 0x2F, 0xFD]) {
            Some(Compression::Zstd)
        } else if magic.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0]) {
            Some(Compression::Xz)
        } else if magic.len() >= 4 && magic.starts_with(b"BZh") && (b'1'..=b'9').contains(&magic[3])
        {
            Some(Compression::Bzip2)
        } else {
            None
        }
    }

    /// `gzip`, `zstd`, `xz` or `bzip2`.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
        }
    }

    fn decoder(self, src: Box<dyn Read + Send>) -> io::Result<Box<dyn Read + Send>> {
        let inner: Box<dyn Read + Send> = match self {
            Compression::Gzip => Box::new(flate2::read::MultiGzDecoder::new(src)),
            Compression::Zstd => Box::new(zstd::stream::read::Decoder::new(src)?),
            Compression::Xz => Box::new(liblzma::read::XzDecoder::new_multi_decoder(src)),
            Compression::Bzip2 => Box::new(bzip2::read::MultiBzDecoder::new(src)),
        };
        Ok(Box::new(Named { inner, what: self }))
    }
}

/// Containers and compressors that are not read, with what to do instead.
fn unsupported(magic: &[u8]) -> Option<&'static str> {
    if magic.starts_with(b"PK\x03\x04") {
        Some("a zip archive: extract the trace first (e.g. `unzip -p FILE | ... --trace -`)")
    } else if magic.starts_with(&[0x04, 0x22, 0x4D, 0x18]) {
        Some("lz4-compressed, which is not read directly: `lz4 -dc FILE | ... --trace -`")
    } else if magic.starts_with(b"7z\xBC\xAF\x27\x1C") {
        Some("a 7-Zip archive: extract the trace first (e.g. `7z x -so FILE | ... --trace -`)")
    } else {
        None
    }
}

/// Decoder errors say which decoder failed ("gzip-compressed data: ...").
struct Named {
    inner: Box<dyn Read + Send>,
    what: Compression,
}

impl Read for Named {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            let kind = match e.kind() {
                ErrorKind::Interrupted => return e,
                ErrorKind::UnexpectedEof => ErrorKind::UnexpectedEof,
                _ => ErrorKind::InvalidData,
            };
            io::Error::new(
                kind,
                format!("{}-compressed data is damaged: {e}", self.what.name()),
            )
        })
    }
}

/// Bytes handed from the decompression thread to the reader.
enum Chunk {
    Data(Vec<u8>),
    End,
    Failed(io::Error),
}

/// Decompression on its own thread, a few chunks ahead of the parser, so a
/// compressed trace is read in about the time of the slower of the two
/// rather than their sum (when a second core is free). Memory: at most
/// `AHEAD` + 2 chunks. Dropping the reader stops the thread at its next
/// chunk.
struct Pipelined {
    rx: Receiver<Chunk>,
    chunk: Vec<u8>,
    pos: usize,
    done: bool,
}

const CHUNK: usize = 256 * 1024;
const AHEAD: usize = 2;

impl Pipelined {
    fn spawn(mut src: Box<dyn Read + Send>) -> io::Result<Pipelined> {
        let (tx, rx) = sync_channel(AHEAD);
        std::thread::Builder::new()
            .name("trace-decompress".into())
            .spawn(move || loop {
                let mut buf = Vec::with_capacity(CHUNK);
                let msg = match read_up_to(&mut src, CHUNK, &mut buf) {
                    Ok(eof) => {
                        if !buf.is_empty() && tx.send(Chunk::Data(buf)).is_err() {
                            return;
                        }
                        if !eof {
                            continue;
                        }
                        Chunk::End
                    }
                    Err(e) => Chunk::Failed(e),
                };
                let _ = tx.send(msg);
                return;
            })?;
        Ok(Pipelined {
            rx,
            chunk: Vec::new(),
            pos: 0,
            done: false,
        })
    }
}

impl Read for Pipelined {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.pos == self.chunk.len() {
            if self.done {
                return Ok(0);
            }
            match self.rx.recv() {
                Ok(Chunk::Data(c)) => {
                    self.chunk = c;
                    self.pos = 0;
                }
                Ok(Chunk::End) => self.done = true,
                Ok(Chunk::Failed(e)) => {
                    self.done = true;
                    return Err(e);
                }
                // Never a silent end: the thread always says how it ended.
                Err(_) => {
                    self.done = true;
                    return Err(io::Error::other("the decompression thread stopped"));
                }
            }
        }
        let n = buf.len().min(self.chunk.len() - self.pos);
        buf[..n].copy_from_slice(&self.chunk[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// A trace's decoded text, ready for a [`super::TraceReader`]: bytes read
/// ahead first, then the rest of the stream.
pub struct TraceInput {
    path: PathBuf,
    head: Vec<u8>,
    pos: usize,
    rest: Box<dyn Read + Send>,
    /// `rest` reached its end while `head` was filled.
    eof: bool,
    compression: Option<Compression>,
    notes: Vec<&'static str>,
}

/// The name standard input gets in messages.
pub const STDIN_NAME: &str = "<stdin>";

impl TraceInput {
    /// Open `path`; `-` is standard input (named `<stdin>` in messages).
    pub fn open(path: &Path) -> SimResult<TraceInput> {
        if path.as_os_str() == "-" {
            return TraceInput::from_reader(Path::new(STDIN_NAME), Box::new(io::stdin()));
        }
        let file = File::open(path).map_err(|source| SimError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        TraceInput::from_reader(path, Box::new(file))
    }

    /// Decode any byte source; `path` is only used in messages.
    pub fn from_reader(path: &Path, mut raw: Box<dyn Read + Send>) -> SimResult<TraceInput> {
        let io_err = |source| SimError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut magic = Vec::with_capacity(8);
        read_up_to(&mut raw, 8, &mut magic).map_err(io_err)?;
        if let Some(what) = unsupported(&magic) {
            return Err(io_err(io::Error::new(
                ErrorKind::InvalidData,
                format!("the trace is {what}"),
            ))
            .into());
        }
        let compression = Compression::sniff(&magic);
        let mut src: Box<dyn Read + Send> = Box::new(Cursor::new(magic).chain(raw));
        if let Some(c) = compression {
            src = Box::new(Pipelined::spawn(c.decoder(src).map_err(io_err)?).map_err(io_err)?);
        }
        let text = encoding::decode(src).map_err(io_err)?;
        let mut notes = Vec::new();
        if let Some(c) = compression {
            notes.push(match c {
                Compression::Gzip => "gzip-decompressed",
                Compression::Zstd => "zstd-decompressed",
                Compression::Xz => "xz-decompressed",
                Compression::Bzip2 => "bzip2-decompressed",
            });
        }
        notes.extend(text.notes);
        Ok(TraceInput {
            path: path.to_path_buf(),
            head: text.head,
            pos: 0,
            rest: text.rest,
            eof: text.eof,
            compression,
            notes,
        })
    }

    /// The name used in messages (`<stdin>` for `-`).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The compression recognised, if any.
    pub fn compression(&self) -> Option<Compression> {
        self.compression
    }

    /// What was done to the bytes: decompression, BOM, UTF-16, CR endings.
    pub fn notes(&self) -> &[&'static str] {
        &self.notes
    }

    /// The first `want` bytes of the text not consumed yet (fewer at the end
    /// of the input), and whether they are all there is.
    pub(super) fn peek(&mut self, want: usize) -> SimResult<(&[u8], bool)> {
        let have = self.head.len() - self.pos;
        if have < want && !self.eof {
            self.eof =
                read_up_to(&mut self.rest, want - have, &mut self.head).map_err(|source| {
                    SimError::Io {
                        path: self.path.clone(),
                        source,
                    }
                })?;
        }
        Ok((&self.head[self.pos..], self.eof))
    }
}

impl Read for TraceInput {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos < self.head.len() {
            let n = buf.len().min(self.head.len() - self.pos);
            buf[..n].copy_from_slice(&self.head[self.pos..self.pos + n]);
            self.pos += n;
            if self.pos == self.head.len() {
                // Read-ahead done: give its memory back.
                self.head = Vec::new();
                self.pos = 0;
            }
            return Ok(n);
        }
        if self.eof {
            return Ok(0);
        }
        self.rest.read(buf)
    }
}

/// The file-name extension that says what the text is (`csv` for
/// `x.csv.gz`), lower case.
pub(super) fn text_extension(path: &Path) -> Option<String> {
    let mut p = path.to_path_buf();
    loop {
        let ext = p.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "gz" | "gzip" | "zst" | "zstd" | "xz" | "bz2" | "bzip2" => {
                p = p.with_extension("");
            }
            _ => return Some(ext),
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::io::Write;

    const TEXT: &[u8] = b"0.0 0 4096 4096 1\n1.5 0 8192 512 0\n";

    pub(crate) fn compress(c: Compression, data: &[u8]) -> Vec<u8> {
        match c {
            Compression::Gzip => {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
            Compression::Zstd => zstd::stream::encode_all(data, 3).unwrap(),
            Compression::Xz => {
                let mut e = liblzma::write::XzEncoder::new(Vec::new(), 1);
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
            Compression::Bzip2 => {
                let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
                e.write_all(data).unwrap();
                e.finish().unwrap()
            }
        }
    }

    fn read_all(bytes: Vec<u8>) -> SimResult<(Vec<u8>, TraceInput)> {
        let mut input =
            TraceInput::from_reader(Path::new("t.trace"), Box::new(Cursor::new(bytes)))?;
        let mut out = Vec::new();
        input.read_to_end(&mut out).map_err(|source| SimError::Io {
            path: "t.trace".into(),
            source,
        })?;
        Ok((out, input))
    }

    #[test]
    fn every_compression_by_magic_bytes() {
        for c in [
            Compression::Gzip,
            Compression::Zstd,
            Compression::Xz,
            Compression::Bzip2,
        ] {
            let (out, input) = read_all(compress(c, TEXT)).unwrap();
            assert_eq!(out, TEXT, "{c:?}");
            assert_eq!(input.compression(), Some(c));
            assert!(input.notes()[0].starts_with(c.name()));
            // Two members/frames/streams back to back are one text.
            let two = [compress(c, TEXT), compress(c, TEXT)].concat();
            assert_eq!(read_all(two).unwrap().0, [TEXT, TEXT].concat(), "{c:?}");
        }
        let (out, input) = read_all(TEXT.to_vec()).unwrap();
        assert_eq!((out.as_slice(), input.compression()), (TEXT, None));
    }

    #[test]
    fn peeked_bytes_are_read_again() {
        let gz = compress(Compression::Gzip, TEXT);
        let mut input = TraceInput::from_reader(Path::new("x"), Box::new(Cursor::new(gz))).unwrap();
        let (head, eof) = input.peek(5).unwrap();
        assert!(head.len() >= 5 && head.starts_with(b"0.0 0"));
        let _ = eof;
        let (head, eof) = input.peek(1 << 20).unwrap();
        assert_eq!((head, eof), (TEXT, true));
        let mut out = Vec::new();
        input.read_to_end(&mut out).unwrap();
        assert_eq!(out, TEXT);
    }

    #[test]
    fn damaged_and_unsupported_data_are_named() {
        for c in [
            Compression::Gzip,
            Compression::Zstd,
            Compression::Xz,
            Compression::Bzip2,
        ] {
            let mut data = compress(c, &TEXT.repeat(1000));
            data.truncate(data.len() / 2);
            let e = match read_all(data) {
                Ok(_) => panic!("a truncated {c:?} stream was read"),
                Err(e) => e.to_string(),
            };
            let want = format!("t.trace: {}-compressed data is damaged", c.name());
            assert!(e.starts_with(&want), "{e}");
        }
        for (magic, needle) in [
            (&b"PK\x03\x04rest"[..], "zip archive"),
            (&[0x04, 0x22, 0x4D, 0x18, 0, 0][..], "lz4"),
        ] {
            let e = read_all(magic.to_vec()).err().unwrap().to_string();
            assert!(e.contains(needle), "{e}");
        }
    }

    #[test]
    fn extensions_see_through_compression() {
        assert_eq!(
            text_extension(Path::new("a/x.CSV.gz")).as_deref(),
            Some("csv")
        );
        assert_eq!(
            text_extension(Path::new("x.ascii.zst")).as_deref(),
            Some("ascii")
        );
        assert_eq!(text_extension(Path::new("x.gz")), None);
        assert_eq!(
            text_extension(Path::new("x.trace")).as_deref(),
            Some("trace")
        );
    }
}
