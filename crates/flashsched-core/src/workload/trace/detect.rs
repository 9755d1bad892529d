//! Trace format auto-detection ("auto").
//!
//! Heuristic, in order:
//!
//! 1. Read up to [`SNIFF_RECORDS`] candidate lines from the start of the file
//!    (at most [`SNIFF_PHYSICAL_LINES`] physical lines), cleaned exactly as the
//!    reader cleans lines before its first record: blank and `#` lines, NUL
//!    padding and tar/pax header junk are dropped (so the FIU samples cut out
//!    of a tarball are recognised by the record after the header).
//! 2. Classify every candidate line by its *shape*; a line may match none:
//!    - `msr`: comma separated, >= 6 fields, integer filetime, integer disk,
//!      field 4 `Read`/`Write` (any case), integer offset and size;
//!    - `spc`: comma separated, >= 5 fields, integer ASU, LBA and size, field 4
//!      a single `R`/`W` (any case), decimal time;
//!    - blkparse: whitespace separated, >= 7 fields, `maj,min cpu seq time pid
//!      ACTION RWBS` (the trailing summary lines match nothing and don't vote);
//!    - `fiu`: 9+ whitespace fields: `ts pid process... lba size R|W major
//!      minor md5` with a 32-hex-digit md5 last;
//!    - numeric-5: exactly 5 whitespace fields `time int int int hex`.
//! 3. The shape with the most matching lines wins; a tie goes to the shape
//!    the file extension suggests (`.csv` msr, `.spc` spc, `.blkparse`
//!    blkparse), then to the order above. If no line matches, detection fails
//!    with an error naming the file and quoting the first line.
//! 4. The winning shape gives the format directly, except:
//!    - blkparse: `blkparse` (D events) when the sample has D events, else
//!      `blkparse-q` when it has Q events, else `blkparse`;
//!    - numeric-5, over all numeric-5 sample lines:
//!      - every offset (field 3) and size (field 4) a multiple of 512 with
//!        size >= 512 -> `heimdall` (bytes; sector-unit formats essentially
//!        never have 50 sizes of >= 512 sectors that are all multiples of
//!        512);
//!      - else some time with a decimal point -> `ascii-ms` (DiskSim writes
//!        ms with a fraction, e.g. `13.191135`);
//!      - else (integer times) extension `.ascii` -> `ssdsim`;
//!      - else -> `ascii-ns` (MQSim).
//!
//!    ssdsim and ascii-ns files have the same shape and nearly the same
//!    meaning (ns, sectors, 1 = read); only the extension tells them apart.
//!    Likewise an ascii-ms file with integer times would be taken for
//!    ascii-ns: pass the format explicitly in such cases.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use super::{
    ascii, blkparse, clean_line, msr, open_file, parse_scaled, parse_u64, quote, spc, Fields,
};
use super::{TraceFormat, MAX_LINE};
use crate::error::{SimError, SimResult};

/// Candidate (non-junk) lines looked at.
pub(super) const SNIFF_RECORDS: usize = 50;
/// Physical lines read at most while looking for candidates.
pub(super) const SNIFF_PHYSICAL_LINES: u64 = 2000;

/// Detect the format of the trace at `path` from its first lines (see the
/// module documentation for the heuristic).
pub fn detect_format(path: &Path) -> SimResult<TraceFormat> {
    let file = open_file(path)?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let mut buf = Vec::with_capacity(256);
    let mut sniffer = Sniffer::new(extension(path));
    let mut line_no = 0u64;
    while sniffer.candidates < SNIFF_RECORDS && line_no < SNIFF_PHYSICAL_LINES {
        buf.clear();
        let n = (&mut reader)
            .take(MAX_LINE as u64)
            .read_until(b'\n', &mut buf)
            .map_err(|source| SimError::Io {
                path: path.to_path_buf(),
                source,
            })?;
        if n == 0 {
            break;
        }
        line_no += 1;
        while matches!(buf.last(), Some(b'\n' | b'\r')) {
            buf.pop();
        }
        sniffer.add(&buf, line_no);
    }
    sniffer.decide().map_err(|(line, msg)| SimError::Trace {
        file: path.to_path_buf(),
        line: if line == 0 { line_no } else { line },
        msg,
    })
}

fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase())
}

/// Shapes in tie-break order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Msr = 0,
    Spc = 1,
    Blkparse = 2,
    Fiu = 3,
    Numeric5 = 4,
}

const SHAPES: [Shape; 5] = [
    Shape::Msr,
    Shape::Spc,
    Shape::Blkparse,
    Shape::Fiu,
    Shape::Numeric5,
];

pub(super) struct Sniffer {
    ext: Option<String>,
    candidates: usize,
    /// (line number, quoted text) of the first candidate, for errors.
    first: Option<(u64, String)>,
    votes: [usize; 5],
    blk_d: bool,
    blk_q: bool,
    num_all_bytes: bool,
    num_any_fraction: bool,
}

impl Sniffer {
    pub(super) fn new(ext: Option<String>) -> Sniffer {
        Sniffer {
            ext,
            candidates: 0,
            first: None,
            votes: [0; 5],
            blk_d: false,
            blk_q: false,
            num_all_bytes: true,
            num_any_fraction: false,
        }
    }

    /// Look at one physical line (without its line ending).
    pub(super) fn add(&mut self, raw: &[u8], line_no: u64) {
        let Ok(Some(line)) = clean_line(raw, false) else {
            return;
        };
        self.candidates += 1;
        if self.first.is_none() {
            self.first = Some((line_no, quote(line, 80)));
        }
        if let Some(shape) = self.classify(line) {
            self.votes[shape as usize] += 1;
        }
    }

    fn classify(&mut self, line: &[u8]) -> Option<Shape> {
        if line.contains(&b',') {
            let f = Fields::commas(line);
            if f.len() >= 6 && ints(&f, &[0, 2, 4, 5]) && msr::op_of(f.get(3)).is_some() {
                return Some(Shape::Msr);
            }
            if f.len() >= 5
                && ints(&f, &[0, 1, 2])
                && spc::op_of(f.get(3)).is_some()
                && parse_scaled(f.get(4), 9).is_some()
            {
                return Some(Shape::Spc);
            }
        }
        let f = Fields::whitespace(line);
        let n = f.len();
        if n >= 7
            && blkparse::parse_dev(f.get(0)).is_some()
            && ints(&f, &[1, 2, 4])
            && parse_scaled(f.get(3), 9).is_some()
            && f.get(5).iter().all(u8::is_ascii_alphabetic)
        {
            match f.get(5) {
                b"D" => self.blk_d = true,
                b"Q" => self.blk_q = true,
                _ => {}
            }
            return Some(Shape::Blkparse);
        }
        if (9..=super::MAX_FIELDS).contains(&n)
            && ints(&f, &[0, 1, n - 6, n - 5, n - 3, n - 2])
            && spc::op_of(f.get(n - 4)).is_some()
            && f.get(n - 1).len() == 32
            && f.get(n - 1).iter().all(u8::is_ascii_hexdigit)
        {
            return Some(Shape::Fiu);
        }
        if n == 5
            && parse_scaled(f.get(0), 0).is_some()
            && ints(&f, &[1, 2, 3])
            && ascii::parse_hex(f.get(4)).is_some()
        {
            let offset = parse_u64(f.get(2)).unwrap_or(1);
            let size = parse_u64(f.get(3)).unwrap_or(1);
            if !offset.is_multiple_of(512) || !size.is_multiple_of(512) || size < 512 {
                self.num_all_bytes = false;
            }
            if f.get(0).contains(&b'.') {
                self.num_any_fraction = true;
            }
            return Some(Shape::Numeric5);
        }
        None
    }

    fn ext_hint(&self) -> Option<Shape> {
        match self.ext.as_deref() {
            Some("csv") => Some(Shape::Msr),
            Some("spc") => Some(Shape::Spc),
            Some("blkparse") => Some(Shape::Blkparse),
            _ => None,
        }
    }

    /// The detected format, or (line, message) for the error.
    pub(super) fn decide(&self) -> Result<TraceFormat, (u64, String)> {
        let best = SHAPES
            .iter()
            .map(|&s| self.votes[s as usize])
            .max()
            .unwrap_or(0);
        if best == 0 {
            let known: Vec<&str> = TraceFormat::all().iter().map(|f| f.name()).collect();
            return Err(match &self.first {
                None => (
                    0,
                    "cannot detect the trace format: no data lines found (empty file?)".to_string(),
                ),
                Some((line, text)) => (
                    *line,
                    format!(
                        "cannot detect the trace format: {text} does not look like any of {}; pass the format explicitly",
                        known.join(", ")
                    ),
                ),
            });
        }
        let tied = |s: Shape| self.votes[s as usize] == best;
        let shape = match self.ext_hint() {
            Some(h) if tied(h) => h,
            _ => SHAPES
                .iter()
                .copied()
                .find(|&s| tied(s))
                .unwrap_or(Shape::Numeric5),
        };
        Ok(match shape {
            Shape::Msr => TraceFormat::Msr,
            Shape::Spc => TraceFormat::Spc,
            Shape::Fiu => TraceFormat::Fiu,
            Shape::Blkparse => {
                if !self.blk_d && self.blk_q {
                    TraceFormat::BlkparseQ
                } else {
                    TraceFormat::Blkparse
                }
            }
            Shape::Numeric5 => {
                if self.num_all_bytes {
                    TraceFormat::Heimdall
                } else if self.num_any_fraction {
                    TraceFormat::AsciiMs
                } else if self.ext.as_deref() == Some("ascii") {
                    TraceFormat::Ssdsim
                } else {
                    TraceFormat::AsciiNs
                }
            }
        })
    }
}

fn ints(f: &Fields<'_>, idx: &[usize]) -> bool {
    idx.iter().all(|&i| parse_u64(f.get(i)).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff(ext: Option<&str>, text: &[u8]) -> Result<TraceFormat, (u64, String)> {
        let mut s = Sniffer::new(ext.map(str::to_string));
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            s.add(line, i as u64 + 1);
        }
        s.decide()
    }

    #[test]
    fn shapes() {
        use TraceFormat::*;
        let cases: [(Option<&str>, &[u8], TraceFormat); 12] = [
            (Some("csv"), b"128166385295514663,hm,0,Write,9056014336,2048,2833\n", Msr),
            (None, b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n1,h,0,read,0,512,1\n", Msr),
            (Some("spc"), b"0,657728,8192,R,0.011413\n1,31244784,32768,w,0.011565", Spc),
            (None, b"0.000 0 11562803200 4096 1\n22.810 0 2205343744 4096 1\n45.304 0 11403917312 512 0\n", Heimdall),
            (None, b"13.191135\t30\t0\t5\t1\n17.829285\t20\t576560\t6\t1\n", AsciiMs),
            (None, b"938513000 4 264719034 16 0\n938828000 3 197570570 16 0\n", AsciiNs),
            (Some("ascii"), b"0 0 303567 7 0\n0 1 55590 6 0\n", Ssdsim),
            (Some("txt"), b"  8,16   3        7     0.000020122  4528  I   R 584808 + 936 [java]\n  8,16   3        9     0.000032064  4528  D   R 584808 + 936 [java]\n", Blkparse),
            (None, b"  8,16   3        7     0.000020122  4528  Q   R 584808 + 936 [java]\nCPU0 (8,16):\n Reads Queued: 0, 0KiB\n", BlkparseQ),
            (None, b"  8,16   3        7     0.000020122  4528  I   R 584808 + 936 [java]\n", Blkparse),
            (Some("blkparse"), b"./PaxHeaders.1/x\0\0ustar\0\x0030 atime=1\n28 ctime=1.5\n\0\0\x0089966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\n89966527950584 4253 nfsd 508516672 8 W 6 0 88b93b628d84082186026d9da044f173\n", Fiu),
            // A stray bad line does not outvote the rest.
            (None, b"1 0 0 8 1\nbad line\n2 0 8 8 0\n", AsciiNs),
        ];
        for (ext, text, want) in cases {
            assert_eq!(
                sniff(ext, text),
                Ok(want),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn failures_name_the_line() {
        let (line, msg) = sniff(None, b"\n# header\nhello world\n").unwrap_err();
        assert_eq!(line, 3);
        assert!(
            msg.contains("\"hello world\" does not look like any of msr, spc"),
            "{msg}"
        );
        let (line, msg) = sniff(None, b"\n\n").unwrap_err();
        assert_eq!(line, 0);
        assert!(msg.contains("empty file"), "{msg}");
    }

    #[test]
    fn detect_from_files() {
        let dir = std::env::temp_dir().join(format!("flashsched-detect-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ok = dir.join("x.ascii");
        std::fs::write(&ok, "0 0 303567 7 0\n0 1 55590 6 0\n").unwrap();
        assert_eq!(detect_format(&ok).unwrap(), TraceFormat::Ssdsim);
        let bad = dir.join("bad.trace");
        std::fs::write(&bad, "what is this\n").unwrap();
        let e = detect_format(&bad).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}:1: cannot detect", bad.display())),
            "{e}"
        );
        let empty = dir.join("empty.trace");
        std::fs::write(&empty, "").unwrap();
        let e = detect_format(&empty).unwrap_err().to_string();
        assert!(e.contains("empty.trace:0: cannot detect"), "{e}");
        let missing = dir.join("missing.trace");
        let e = detect_format(&missing).unwrap_err();
        assert!(matches!(e, SimError::Io { .. }), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
