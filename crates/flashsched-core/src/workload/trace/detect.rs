//! Trace format auto-detection ("auto"): try every named format on the first
//! lines and take the one that fits, or refuse to guess.
//!
//! 1. Sample up to [`SNIFF_RECORDS`] candidate lines from the start of the
//!    (decompressed, decoded) text, within [`SNIFF_PHYSICAL_LINES`] physical
//!    lines, cleaned as the reader cleans lines before its first record
//!    (blank and `#` lines, NUL padding and tar/pax header junk dropped).
//! 2. Run every named format's parser over the sample. A format *fits* when
//!    it reads at least one record and fails on at most one line in ten (at
//!    least one failure is tolerated: a stray bad line). Of the formats that
//!    fit, only those with the fewest failures stay. `blkparse-q` is a
//!    candidate only when `blkparse` (D events) does not fit.
//! 3. Formats that read the sample as the same records (times relative to
//!    the first) are one reading, e.g. `ascii-ns` and `ssdsim`: the file
//!    extension picks among them (`.ascii` ssdsim, `.csv` msr, `.spc` spc,
//!    `.blkparse` blkparse), else the registry order.
//! 4. Several readings: the implausible ones are ruled out.
//!    - sizes in bytes, when a sampled size is under 512 B (but not 0) or
//!      under half of them are multiples of 512 B (no block device does
//!      that); sizes in 512-byte sectors, when every sampled size is a
//!      multiple of 512 sectors (256 KiB), which is what byte counts look
//!      like read as sectors; any reading with a request of 4 GiB or more;
//!    - whitespace formats timed in ns (`ascii-ns`, `ssdsim`), when a time
//!      has a fraction or the median gap between distinct times is under
//!      1 µs; timed in ms (`ascii-ms`, `heimdall`), when every time is an
//!      integer and the median gap is 10 s or more.
//!
//!    Exactly one reading left: that format. None or several: an error that
//!    lists the candidates and asks for the format explicitly. So a Heimdall
//!    file (ms, bytes) whose sizes are mostly but not all multiples of 512 is
//!    refused rather than read as DiskSim sectors (a single size that is
//!    not a multiple of 512 B is enough), and so is an integer-time
//!    ASCII trace whose gaps could be ns or ms.
//!
//! Column mappings (`csv:...`) are never guessed.

use std::path::Path;

use super::fields::{quote, Parsed, RawRecord};
use super::format::{Parser, TraceFormat};
use super::input::{text_extension, TraceInput};
use super::{clean_line, MAX_LINE};
use crate::error::{SimError, SimResult};

/// Candidate (non-junk) lines looked at.
pub(super) const SNIFF_RECORDS: usize = 50;
/// Physical lines read at most while looking for candidates.
pub(super) const SNIFF_PHYSICAL_LINES: u64 = 2000;
/// Text read ahead at most for the sample.
const SNIFF_MAX_BYTES: usize = 4 << 20;

/// Detect the format of the trace at `path` (`-`: standard input, which is
/// then consumed) from its first lines.
pub fn detect_format(path: &Path) -> SimResult<TraceFormat> {
    let mut input = TraceInput::open(path)?;
    detect_in(&mut input, text_extension(path).as_deref())
}

/// Detect from the text `input` holds, without consuming it.
pub(super) fn detect_in(input: &mut TraceInput, ext: Option<&str>) -> SimResult<TraceFormat> {
    let mut want = 64 * 1024;
    loop {
        let file = input.path().to_path_buf();
        let (text, eof) = input.peek(want)?;
        let mut sniffer = Sniffer::new(ext);
        let full = sniffer.add_text(text, eof);
        if full || eof || want >= SNIFF_MAX_BYTES {
            return sniffer.decide().map_err(|(line, msg)| {
                Box::new(SimError::Trace {
                    file,
                    line: if line == 0 { sniffer.lines } else { line },
                    msg,
                })
            });
        }
        want *= 4;
    }
}

pub(super) struct Sniffer {
    ext: Option<String>,
    /// Physical lines seen.
    lines: u64,
    /// (line number, cleaned text) of the candidate lines.
    candidates: Vec<(u64, Vec<u8>)>,
}

/// How a format read the sample.
struct Fit {
    format: TraceFormat,
    records: Vec<RawRecord>,
    errors: usize,
}

impl Fit {
    /// The records with times relative to the first: equal for formats that
    /// mean the same thing by these lines.
    fn reading(&self) -> Vec<(i128, u64, u64, crate::workload::Op, u32)> {
        let first = self.records.first().map_or(0, |r| r.ts_ns as i128);
        self.records
            .iter()
            .map(|r| (r.ts_ns as i128 - first, r.offset, r.size, r.op, r.stream))
            .collect()
    }
}

#[derive(PartialEq)]
enum SizeUnit {
    Bytes,
    Sectors,
}

fn size_unit(f: &TraceFormat) -> Option<SizeUnit> {
    use TraceFormat::*;
    match f {
        Msr | Spc | Heimdall | Systor | Alibaba | Vscsi | CloudPhysics => Some(SizeUnit::Bytes),
        AsciiNs | AsciiMs | Ssdsim | Blkparse | BlkparseQ | Fiu | Tencent => {
            Some(SizeUnit::Sectors)
        }
        Columns(_) => None,
    }
}

impl Sniffer {
    pub(super) fn new(ext: Option<&str>) -> Sniffer {
        Sniffer {
            ext: ext.map(str::to_string),
            lines: 0,
            candidates: Vec::new(),
        }
    }

    /// Sample the lines of `text` (its last line only if `eof`); true when
    /// the sample is complete.
    fn add_text(&mut self, text: &[u8], eof: bool) -> bool {
        let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        // The last piece is a partial line, or empty after the last newline.
        if !eof || lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        for line in lines {
            if self.full() {
                return true;
            }
            self.lines += 1;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            self.add(&line[..line.len().min(MAX_LINE)], self.lines);
        }
        self.full()
    }

    fn full(&self) -> bool {
        self.candidates.len() >= SNIFF_RECORDS || self.lines >= SNIFF_PHYSICAL_LINES
    }

    /// Look at one physical line (without its line ending).
    pub(super) fn add(&mut self, raw: &[u8], line_no: u64) {
        if let Ok(Some(line)) = clean_line(raw, false) {
            self.candidates.push((line_no, line.to_vec()));
        }
    }

    fn fit(&self, format: &TraceFormat) -> Fit {
        let mut parser = Parser::new(format);
        let mut fit = Fit {
            format: format.clone(),
            records: Vec::new(),
            errors: 0,
        };
        for (no, line) in &self.candidates {
            match parser.parse(line, *no) {
                Ok(Parsed::Record(r)) => fit.records.push(r),
                Ok(_) => {}
                Err(_) => fit.errors += 1,
            }
        }
        fit
    }

    /// Is `fit` a believable reading of the sample (step 4)?
    fn plausible(&self, fit: &Fit) -> bool {
        use TraceFormat::*;
        let recs = &fit.records;
        if recs.iter().any(|r| r.size > u64::from(u32::MAX)) {
            return false;
        }
        let unit_ok = match size_unit(&fit.format) {
            Some(SizeUnit::Bytes) => {
                let aligned = recs.iter().filter(|r| r.size % 512 == 0).count();
                let sub_sector = recs.iter().any(|r| r.size > 0 && r.size < 512);
                !sub_sector && aligned * 2 >= recs.len()
            }
            Some(SizeUnit::Sectors) => !recs.iter().all(|r| r.size % (512 * 512) == 0),
            None => true,
        };
        if !unit_ok {
            return false;
        }
        // The numeric whitespace formats, whose time is the first field.
        let fraction = self.candidates.iter().any(|(_, l)| {
            l.split(|b| b.is_ascii_whitespace())
                .next()
                .is_some_and(|t| t.contains(&b'.'))
        });
        let gap_ns = median_gap(recs);
        match fit.format {
            AsciiNs | Ssdsim => !fraction && gap_ns.is_none_or(|g| g >= 1_000),
            AsciiMs | Heimdall => fraction || gap_ns.is_none_or(|g| g < 10_000_000_000),
            _ => true,
        }
    }

    fn ext_hint(&self) -> Option<TraceFormat> {
        match self.ext.as_deref() {
            Some("csv") => Some(TraceFormat::Msr),
            Some("spc") => Some(TraceFormat::Spc),
            Some("blkparse") => Some(TraceFormat::Blkparse),
            Some("ascii") => Some(TraceFormat::Ssdsim),
            _ => None,
        }
    }

    /// The detected format, or (line, message) for the error.
    pub(super) fn decide(&self) -> Result<TraceFormat, (u64, String)> {
        let Some((first_line, first_text)) = self.candidates.first() else {
            return Err((
                0,
                "cannot detect the trace format: no data lines found (empty file?)".to_string(),
            ));
        };
        let tolerated = (self.candidates.len() / 10).max(1);
        let mut fits: Vec<Fit> = TraceFormat::all()
            .iter()
            .map(|f| self.fit(f))
            .filter(|f| !f.records.is_empty() && f.errors <= tolerated)
            .collect();
        if fits.iter().any(|f| f.format == TraceFormat::Blkparse) {
            fits.retain(|f| f.format != TraceFormat::BlkparseQ);
        }
        let Some(least) = fits.iter().map(|f| f.errors).min() else {
            let known: Vec<&str> = TraceFormat::all().iter().map(|f| f.name()).collect();
            let control = first_text
                .iter()
                .filter(|&&b| b < 0x20 && !b.is_ascii_whitespace())
                .count();
            let binary = if control * 10 > first_text.len() {
                " (binary data: an unsupported compression or a binary trace format?)"
            } else {
                ""
            };
            return Err((
                *first_line,
                format!(
                    "cannot detect the trace format: {}{binary} does not look like any of {}; \
                     pass the format explicitly, or map its columns, e.g. \
                     csv:time=0:s,op=1:R/W,offset=2:B,size=3:B",
                    quote(first_text, 80),
                    known.join(", ")
                ),
            ));
        };
        fits.retain(|f| f.errors == least);
        // Readings: formats that agree on every record.
        let mut readings: Vec<Vec<Fit>> = Vec::new();
        for fit in fits {
            match readings
                .iter_mut()
                .find(|g| g[0].reading() == fit.reading())
            {
                Some(g) => g.push(fit),
                None => readings.push(vec![fit]),
            }
        }
        if readings.len() > 1 {
            let believable: Vec<Vec<Fit>> = readings
                .iter()
                .map(|g| {
                    g.iter()
                        .filter(|f| self.plausible(f))
                        .map(clone_fit)
                        .collect()
                })
                .filter(|g: &Vec<Fit>| !g.is_empty())
                .collect();
            if believable.len() != 1 {
                let shown = if believable.is_empty() {
                    &readings
                } else {
                    &believable
                };
                return Err((*first_line, ambiguity(shown)));
            }
            readings = believable;
        }
        let group = &readings[0];
        let pick = self
            .ext_hint()
            .and_then(|h| group.iter().find(|f| f.format == h))
            .unwrap_or(&group[0]);
        Ok(pick.format.clone())
    }
}

fn clone_fit(f: &Fit) -> Fit {
    Fit {
        format: f.format.clone(),
        records: f.records.clone(),
        errors: f.errors,
    }
}

/// Median of the positive gaps between the sorted sample times, in ns.
fn median_gap(recs: &[RawRecord]) -> Option<u128> {
    let mut ts: Vec<u128> = recs.iter().map(|r| r.ts_ns).collect();
    ts.sort_unstable();
    let mut gaps: Vec<u128> = ts
        .windows(2)
        .map(|w| w[1] - w[0])
        .filter(|&g| g > 0)
        .collect();
    gaps.sort_unstable();
    gaps.get(gaps.len() / 2).copied()
}

/// The refusal: every reading, its formats and what they mean.
fn ambiguity(readings: &[Vec<Fit>]) -> String {
    let names: Vec<String> = readings
        .iter()
        .map(|g| {
            let same: Vec<&str> = g.iter().map(|f| f.format.name()).collect();
            format!("{} ({})", same.join(" = "), g[0].format.describe())
        })
        .collect();
    let first: Vec<&str> = readings.iter().map(|g| g[0].format.name()).collect();
    format!(
        "cannot choose the trace format: the first lines fit {} formats that read them \
         differently: {}; pass the one you mean explicitly ({} on the command line, \
         format=\"{}\" in Python)",
        readings.len(),
        names.join("; "),
        first
            .iter()
            .map(|n| format!("--format {n}"))
            .collect::<Vec<_>>()
            .join(" or "),
        first[0]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sniff(ext: Option<&str>, text: &[u8]) -> Result<TraceFormat, (u64, String)> {
        let mut s = Sniffer::new(ext);
        s.add_text(text, true);
        s.decide()
    }

    #[test]
    fn every_format_is_recognised() {
        use TraceFormat::*;
        let cases: Vec<(Option<&str>, &[u8], TraceFormat)> = vec![
            (Some("csv"), b"128166385295514663,hm,0,Write,9056014336,2048,2833\n", Msr),
            (None, b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n1,h,0,read,0,512,1\n", Msr),
            (Some("spc"), b"0,657728,8192,R,0.011413\n1,31244784,32768,w,0.011565", Spc),
            (None, b"0.000 0 11562803200 4096 1\n22.810 0 2205343744 4096 1\n45.304 0 11403917312 512 0\n", Heimdall),
            (None, b"13.191135\t30\t0\t5\t1\n17.829285\t20\t576560\t6\t1\n", AsciiMs),
            (None, b"938513000 4 264719034 16 0\n938828000 3 197570570 16 0\n", AsciiNs),
            (Some("ascii"), b"0 0 303567 7 0\n0 1 55590 6 0\n", Ssdsim),
            (Some("txt"), b"  8,16   3        7     0.000020122  4528  I   R 584808 + 936 [java]\n  8,16   3        9     0.000032064  4528  D   R 584808 + 936 [java]\n", Blkparse),
            (None, b"  8,16   3        7     0.000020122  4528  Q   R 584808 + 936 [java]\nCPU0 (8,16):\n Reads Queued: 0, 0KiB\n", BlkparseQ),
            (Some("blkparse"), b"./PaxHeaders.1/x\0\0ustar\0\x0030 atime=1\n28 ctime=1.5\n\0\0\x0089966522969723 4270 rpc.mountd 18579576 8 W 6 0 d6c75ba46e82326fefa545b57a12e221\n89966527950584 4253 nfsd 508516672 8 W 6 0 88b93b628d84082186026d9da044f173\n", Fiu),
            (None, b"Timestamp,Response,IOType,LUN,Offset,Size\n1456135200.013118000,0.000648000,W,4,8192,4096\n1456135200.1,0.1,R,4,0,512\n", Systor),
            (None, b"0,R,126703644672,4096,1577808000000626\n0,W,4096,8192,1577808000001626\n", Alibaba),
            (None, b"1538323200,4096,16,0,1063\n1538323201,8,8,1,1063\n", Tencent),
            (None, b"#Vscsi Cmd Trace.\n2147483692,4096,1,write,24048792,2756778716647\n2147483769,4096,1,read,6322464,2756783857269\n", Vscsi),
            (None, b"1000,8,r,4096\n1500,16,w,512\n", CloudPhysics),
            // A stray bad line does not outvote the rest.
            (None, b"1000000 0 0 8 1\nbad line\n3000000 0 8 8 0\n5000000 0 8 8 0\n", AsciiNs),
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
    fn refuses_to_guess_between_readings() {
        // Heimdall-like lines (ms, bytes) with one size that is not a multiple
        // of 512: bytes or sectors? Both fit; refused, naming both.
        let text = b"0.5 0 4096 4096 1\n1.5 0 8192 4096 0\n2.5 0 8192 1000 0\n3.5 0 0 8192 1\n4.5 0 0 512 1\n";
        let (line, msg) = sniff(None, text).unwrap_err();
        assert_eq!(line, 1);
        assert!(
            msg.starts_with("cannot choose the trace format: the first lines fit 2 formats"),
            "{msg}"
        );
        assert!(
            msg.contains("ascii-ms (") && msg.contains("heimdall ("),
            "{msg}"
        );
        assert!(
            msg.contains("--format ascii-ms or --format heimdall"),
            "{msg}"
        );
        // One unaligned size in four is enough to refuse (it used to be
        // read as DiskSim sectors, 512 times the bytes).
        let text = b"0.5 0 4096 4096 1\n1.5 0 8192 4096 0\n2.5 0 8192 1000 0\n3.5 0 0 8192 1\n";
        let (_, msg) = sniff(None, text).unwrap_err();
        assert!(
            msg.contains("--format ascii-ms or --format heimdall"),
            "{msg}"
        );
        // A size under one sector cannot be bytes.
        let text = b"0.5 0 4096 4096 1\n1.5 0 8192 8 0\n";
        assert_eq!(sniff(None, text), Ok(TraceFormat::AsciiMs));
        // All sizes aligned: only bytes are believable.
        let text = b"0.5 0 4096 4096 1\n1.5 0 8192 4096 0\n2.5 0 8192 1024 0\n";
        assert_eq!(sniff(None, text), Ok(TraceFormat::Heimdall));
        // Integer times with µs-scale gaps: ns or ms? Refused.
        let text = b"0 0 8 8 1\n5000 0 16 8 1\n10000 0 24 8 0\n";
        let (_, msg) = sniff(None, text).unwrap_err();
        assert!(
            msg.contains("ascii-ns = ssdsim (") && msg.contains("ascii-ms ("),
            "{msg}"
        );
        // Gaps of one unit are ms; gaps of ms in ns are ns.
        assert_eq!(
            sniff(None, b"1 0 0 8 1\n2 0 8 8 0\n3 0 8 8 0\n"),
            Ok(TraceFormat::AsciiMs)
        );
        assert_eq!(
            sniff(None, b"1000000 0 0 8 1\n3000000 0 8 8 0\n"),
            Ok(TraceFormat::AsciiNs)
        );
    }

    #[test]
    fn failures_name_the_line() {
        let (line, msg) = sniff(None, b"\n# header\nhello world\n").unwrap_err();
        assert_eq!(line, 3);
        assert!(
            msg.contains("\"hello world\" does not look like any of msr, spc"),
            "{msg}"
        );
        assert!(msg.contains("csv:time=0:s"), "{msg}");
        let (line, msg) = sniff(None, b"\n\n").unwrap_err();
        assert_eq!(line, 0);
        assert!(msg.contains("empty file"), "{msg}");
        let (_, msg) = sniff(None, b"\x01\x02\x03\x04\x05binary\x06\x07\x08\n").unwrap_err();
        assert!(msg.contains("binary data"), "{msg}");
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
        assert!(matches!(*e, SimError::Io { .. }), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_sample_grows_until_it_is_complete() {
        // 60 KiB of comments, then records: the first 64 KiB read ahead do
        // not hold a record, the next peek does.
        let mut text = "# padding padding padding padding padding padding\n".repeat(1300);
        text.push_str("1000,8,r,4096\n1500,16,w,512\n");
        let mut input = TraceInput::from_reader(
            Path::new("x"),
            Box::new(std::io::Cursor::new(text.into_bytes())),
        )
        .unwrap();
        assert_eq!(
            detect_in(&mut input, None).unwrap(),
            TraceFormat::CloudPhysics
        );
    }
}
