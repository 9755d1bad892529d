//! Line mutator shared by the property tests of the trace readers (the
//! fast/full agreement check here, and `tests/fuzz_props.rs` through
//! `mutate_line`). Deterministic for a given `Rng`.

use crate::rng::Rng;

/// Tokens that exercise the parsers' edges: signs, exponents, 19/20/21-digit
/// and u32/u64/sector-boundary numbers, hex, NUL, separators, CR.
const TOKENS: &[&[u8]] = &[
    b"0",
    b"1",
    b"-1",
    b"+1",
    b"R",
    b"W",
    b"r",
    b"w",
    b"Read",
    b"write",
    b"D",
    b"Q",
    b"WS",
    b"+",
    b",",
    b" ",
    b"\t",
    b".",
    b"1e3",
    b"1.5e-2",
    b"0x1f",
    b"4294967295",
    b"4294967296",
    b"36028797018963967",
    b"36028797018963968",
    b"9999999999999999999",
    b"18446744073709551615",
    b"18446744073709551616",
    b"999999999999999999999999",
    b"\0",
    b"\r",
    b"#",
    b"8,16",
    b"[java]",
    b"nan",
    b"inf",
    b"\xff\xfe",
    b"88b93b628d84082186026d9da044f173",
];

/// One random mutation of `line` (never containing `\n`).
pub fn mutate_line(rng: &mut Rng, line: &[u8]) -> Vec<u8> {
    let mut v = line.to_vec();
    let rounds = 1 + rng.below(3);
    for _ in 0..rounds {
        let n = v.len() as u64;
        match rng.below(9) {
            // Flip / replace one byte.
            0 if n > 0 => {
                let i = rng.below(n) as usize;
                v[i] = rng.below(256) as u8;
            }
            // Delete a range.
            1 if n > 0 => {
                let i = rng.below(n) as usize;
                let j = (i + 1 + rng.below(8) as usize).min(v.len());
                v.drain(i..j);
            }
            // Insert a token.
            2 => {
                let i = rng.below(n + 1) as usize;
                let t = TOKENS[rng.below(TOKENS.len() as u64) as usize];
                v.splice(i..i, t.iter().copied());
            }
            // Replace one field (between separators) by a token.
            3 => {
                let seps: Vec<usize> = v
                    .iter()
                    .enumerate()
                    .filter(|(_, &b)| b == b' ' || b == b',' || b == b'\t')
                    .map(|(i, _)| i)
                    .collect();
                let k = rng.below(seps.len() as u64 + 1) as usize;
                let start = if k == 0 { 0 } else { seps[k - 1] + 1 };
                let end = seps.get(k).copied().unwrap_or(v.len());
                let t = TOKENS[rng.below(TOKENS.len() as u64) as usize];
                v.splice(start..end, t.iter().copied());
            }
            // Duplicate a slice.
            4 if n > 0 => {
                let i = rng.below(n) as usize;
                let j = (i + 1 + rng.below(12) as usize).min(v.len());
                let dup = v[i..j].to_vec();
                v.splice(i..i, dup);
            }
            // Truncate.
            5 => v.truncate(rng.below(n + 1) as usize),
            // Digit run: lengthen a number.
            6 => {
                let i = rng.below(n + 1) as usize;
                let k = 1 + rng.below(22) as usize;
                v.splice(i..i, std::iter::repeat_n(b'9', k));
            }
            // Swap separators.
            7 => {
                for b in v.iter_mut() {
                    if *b == b' ' && rng.below(4) == 0 {
                        *b = if rng.below(2) == 0 { b',' } else { b'\t' };
                    }
                }
            }
            // Random bytes.
            _ => {
                let k = rng.below(16) as usize;
                let i = rng.below(n + 1) as usize;
                let junk: Vec<u8> = (0..k).map(|_| rng.below(256) as u8).collect();
                v.splice(i..i, junk);
            }
        }
    }
    v.retain(|&b| b != b'\n');
    v
}

#[cfg(test)]
mod tests {
    //! The fast path agrees with the full parsers: whenever it accepts a
    //! (mutated) line, the full parser gives the same record.

    use super::super::blkparse::State;
    use super::super::{clean_line, fast, Parsed, TraceFormat};
    use super::*;

    /// Well-formed seed lines per format with a fast path (none for the
    /// column-mapped formats).
    fn seeds(format: &TraceFormat) -> &'static [&'static [u8]] {
        use TraceFormat::*;
        match format {
            Msr => &[
                b"128166385295514663,hm,0,Write,9056014336,2048,2833",
                b"128166385295514878, hm ,1, read ,11855351808,512",
            ],
            Spc => &[
                b"0,657728,8192,R,0.011413",
                b"1, 31244784, 32768, w, 0.011565, extra",
            ],
            AsciiNs | AsciiMs | Ssdsim => &[
                b"13.191135\t30\t0\t5\t1",
                b"938513000 4 264719034 16 0",
                b"0 0 303567 7 0x3",
            ],
            Blkparse | BlkparseQ => &[
                b"  8,16   3        9     0.000032064  4528  D   R 584808 + 936 [java]",
                b"  8,16   3        8     0.000030000  4528  Q  WS 100 + 8 [java]",
                b"  8,16   2        6     0.000040000  4529  D FWS [jbd2/sdb-8]",
                b"  8,16   2        7     0.000050000  4529  D  DS 2048 + 2048 [fstrim]",
            ],
            Fiu => {
                &[b"89966527950584 4253 nfsd 508516672 8 W 6 0 88b93b628d84082186026d9da044f173"]
            }
            Heimdall => &[
                b"223.412 0 3159347200 36864 0",
                b"223.434\t3 3154132992 4096 1",
            ],
            Systor | Alibaba | Tencent | Vscsi | CloudPhysics | Columns(_) => &[],
        }
    }

    fn fast_of(format: &TraceFormat, line: &[u8]) -> Option<Parsed> {
        use TraceFormat::*;
        let r = match format {
            Msr => fast::msr(line),
            Spc => fast::spc(line),
            AsciiNs => fast::ascii(line, 0),
            AsciiMs => fast::ascii(line, 6),
            Ssdsim => fast::ssdsim(line),
            Fiu => fast::fiu(line),
            Heimdall => fast::heimdall(line),
            _ => return None,
        };
        r.map(Parsed::Record)
    }

    fn full_of(format: &TraceFormat, line: &[u8]) -> Result<Parsed, String> {
        use super::super::{ascii, fiu, heimdall, msr, spc, ssdsim};
        use TraceFormat::*;
        match format {
            Msr => msr::parse(line),
            Spc => spc::parse(line),
            AsciiNs => ascii::parse(line, 0),
            AsciiMs => ascii::parse(line, 6),
            Ssdsim => ssdsim::parse(line),
            Fiu => fiu::parse(line),
            Heimdall => heimdall::parse(line),
            _ => unreachable!("no fast path"),
        }
    }

    /// Iterations per format (`FLASHSCHED_FUZZ_ITERS` for longer runs).
    fn iters() -> u64 {
        std::env::var("FLASHSCHED_FUZZ_ITERS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(20_000)
    }

    #[test]
    fn fast_path_agrees_with_the_full_parsers() {
        let mut accepted = 0u64;
        for (k, format) in TraceFormat::all().iter().enumerate() {
            let mut rng = Rng::new(0xfa57 + k as u64);
            let blk = matches!(format, TraceFormat::Blkparse | TraceFormat::BlkparseQ);
            let seeds = seeds(format);
            if seeds.is_empty() {
                continue;
            }
            for i in 0..iters() {
                let seed = seeds[(i % seeds.len() as u64) as usize];
                let raw = mutate_line(&mut rng, seed);
                let Ok(Some(line)) = clean_line(&raw, true) else {
                    continue;
                };
                if blk {
                    // Two parsers with the same history (which makes low
                    // sequence numbers on CPU 3 stale): with and without
                    // the fast path.
                    let action = if *format == TraceFormat::Blkparse {
                        b'D'
                    } else {
                        b'Q'
                    };
                    let (mut with, mut without) = (State::new(action), State::new(action));
                    let history = b"8,16 3 100 0.0 1 C R 1 + 8 [x]";
                    assert_eq!(with.parse(history), without.parse_full(history));
                    if fast::blkparse(line, action).is_some() {
                        accepted += 1;
                    }
                    assert_eq!(
                        with.parse(line),
                        without.parse_full(line),
                        "{format}: {:?}",
                        String::from_utf8_lossy(line)
                    );
                    continue;
                }
                if let Some(p) = fast_of(format, line) {
                    accepted += 1;
                    assert_eq!(
                        full_of(format, line),
                        Ok(p),
                        "{format}: {:?}",
                        String::from_utf8_lossy(line)
                    );
                }
            }
        }
        assert!(
            accepted > iters(),
            "the mutations keep many lines valid: {accepted}"
        );
    }
}
