//! blkparse default text output (`blkparse -i dev`):
//!
//! ```text
//!   8,16   3        9     0.000032064  4528  D   R 584808 + 936 [java]
//!   maj,min cpu   seq     time(s)      pid  act RWBS sector + nsectors [process]
//! ```
//!
//! - Event lines are the ones whose first field is `maj,min`; their first 7
//!   fields must be well formed. Every other line (the per-CPU and total
//!   summary at the end, `Throughput ...`, `Events ...`) is not a record.
//! - Only events of the selected action are records: `D` (dispatch to the
//!   device, format `blkparse`) or `Q` (queued by the block layer,
//!   `blkparse-q`). Events without a `sector + n` range (flushes `FN`/`FWS`,
//!   plugs, messages) are not records.
//! - RWBS: `D` (discard) = Trim, else `R` = read, else `W` = write; an event
//!   with none of these letters is dropped (counted in `skipped`).
//! - Stream: pid. Time: seconds since the start of the trace; events from
//!   different CPUs may be slightly out of order (emitted as they are).
//! - Stale events: blktrace sequence numbers increase per device and CPU. An
//!   event whose sequence number is below one already seen for its
//!   device/CPU belongs to another trace session (e.g. a stale per-CPU buffer
//!   appended at the end, with a bogus time decades later): it is dropped and
//!   counted in `skipped`.

use super::{
    field_error, int_field, sectors_field, time_field, u32_field, Fields, Parsed, RawRecord,
};
use crate::workload::Op;

const LAYOUT: &str = "maj,min cpu seq time pid action RWBS ...";

pub(super) struct State {
    action: u8,
    /// (device, cpu, highest sequence number seen).
    max_seq: Vec<(u64, u32, u64)>,
}

impl State {
    pub(super) fn new(action: u8) -> State {
        State {
            action,
            max_seq: Vec::new(),
        }
    }

    /// Record `seq` for (dev, cpu); true when it is below the highest seen.
    fn is_stale(&mut self, dev: u64, cpu: u32, seq: u64) -> bool {
        match self
            .max_seq
            .iter_mut()
            .find(|(d, c, _)| *d == dev && *c == cpu)
        {
            Some((_, _, max)) if seq < *max => true,
            Some((_, _, max)) => {
                *max = seq;
                false
            }
            None => {
                self.max_seq.push((dev, cpu, seq));
                false
            }
        }
    }

    pub(super) fn parse(&mut self, line: &[u8]) -> Result<Parsed, String> {
        match super::fast::blkparse(line, self.action) {
            Some(ev) => Ok(self.event(&ev)),
            None => self.parse_full(line),
        }
    }

    /// A well-formed event from the fast path: the same decisions as
    /// [`State::parse_full`] in the same order.
    #[inline]
    fn event(&mut self, ev: &super::fast::BlkEvent<'_>) -> Parsed {
        let stale = self.is_stale(ev.dev, ev.cpu, ev.seq);
        // Other actions and events without a range carry no range.
        let Some((offset, size)) = ev.range else {
            return Parsed::NotRecord;
        };
        if stale {
            return Parsed::Dropped;
        }
        match op_of(ev.rwbs) {
            Some(op) => Parsed::Record(RawRecord {
                ts_ns: ev.ts_ns,
                offset,
                size,
                op,
                stream: ev.pid,
            }),
            None => Parsed::Dropped,
        }
    }

    pub(super) fn parse_full(&mut self, line: &[u8]) -> Result<Parsed, String> {
        let f = Fields::whitespace(line);
        let Some(dev) = parse_dev(f.get(0)) else {
            return Ok(Parsed::NotRecord);
        };
        if f.len() < 7 {
            return Err(super::count_error(
                "at least 7 whitespace-separated",
                LAYOUT,
                f.len(),
                line,
            ));
        }
        let cpu = u32_field(&f, 1, "cpu")?;
        let seq = int_field(&f, 2, "sequence")?;
        let ts_ns = time_field(&f, 3, "time s", 9)?;
        let pid = u32_field(&f, 4, "pid")?;
        let stale = self.is_stale(dev, cpu, seq);
        let action = f.get(5);
        if action.len() != 1 || action[0] != self.action {
            return Ok(Parsed::NotRecord);
        }
        let rwbs = f.get(6);
        if !rwbs.iter().all(u8::is_ascii_uppercase) {
            return Err(field_error(
                6,
                "RWBS",
                "RWBS letters such as R, WS, D",
                rwbs,
            ));
        }
        if f.len() < 10 || f.get(8) != b"+" {
            return Ok(Parsed::NotRecord);
        }
        let offset = sectors_field(&f, 7, "sector")?;
        let size = sectors_field(&f, 9, "nsectors")?;
        if stale {
            return Ok(Parsed::Dropped);
        }
        let Some(op) = op_of(rwbs) else {
            return Ok(Parsed::Dropped);
        };
        Ok(Parsed::Record(RawRecord {
            ts_ns,
            offset,
            size,
            op,
            stream: pid,
        }))
    }
}

/// RWBS: `D` (discard) = Trim, else `R` = read, else `W` = write.
fn op_of(rwbs: &[u8]) -> Option<Op> {
    if rwbs.contains(&b'D') {
        Some(Op::Trim)
    } else if rwbs.contains(&b'R') {
        Some(Op::Read)
    } else if rwbs.contains(&b'W') {
        Some(Op::Write)
    } else {
        None
    }
}

/// `maj,min` as one key.
pub(super) fn parse_dev(s: &[u8]) -> Option<u64> {
    let comma = s.iter().position(|&b| b == b',')?;
    let maj = u32::try_from(super::parse_u64(&s[..comma])?).ok()?;
    let min = u32::try_from(super::parse_u64(&s[comma + 1..])?).ok()?;
    Some((u64::from(maj) << 32) | u64::from(min))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::*;
    use super::super::TraceFormat;
    use crate::workload::{IoRecord, Op};

    const F: TraceFormat = TraceFormat::Blkparse;

    const SAMPLE: &[u8] = b"\
  8,16   3        7     0.000020122  4528  I   R 584808 + 936 [java]
  8,16   3        8     0.000030000  4528  Q  WS 100 + 8 [java]
  8,16   3        9     0.000032064  4528  D   R 584808 + 936 [java]
  8,16   2        5     0.000031000  4529  D  WS 100 + 8 [kworker/u8:1]
  8,16   2        6     0.000040000  4529  D FWS [jbd2/sdb-8]
  8,16   2        7     0.000050000  4529  D  DS 2048 + 2048 [fstrim]
  8,16   2        8     0.000060000  4529  D   N 1 + 8 [x]
  8,16   2        9     0.000070000  4529  m   N cfq4529 insert_request
  8,16   0       10     0.000080000     0  C   R 584808 + 936 [0]
  8,16   1        4 1266874889.708658509  3646  D   R 5632664 + 256 [java]
  8,16   1        2 1266874889.708668759  3646  D   R 5632664 + 256 [java]
CPU0 (8,16):
 Reads Queued:           0,        0KiB\t Writes Queued:           0,        0KiB

Total (8,16):
Throughput (R/W): 878KiB/s / 214KiB/s
Events (8,16): 5472 entries
Skips: 0 forward (0 -   0.0%)
";

    #[test]
    fn d_events_are_sorted_by_default() {
        // The write on CPU 2 is 1064 ns earlier than the read listed before
        // it: the default time order for blkparse (sort) puts it first.
        let mut r = reader(F, SAMPLE);
        let recs: Vec<_> = r.by_ref().map(|x| x.unwrap()).collect();
        let got: Vec<(u64, u32)> = recs.iter().map(|r| (r.time_ns, r.stream)).collect();
        assert_eq!(
            got,
            [
                (0, 4529),
                (1064, 4528),
                (19_000, 4529),
                (1_266_874_889_708_658_509 - 31_000, 3646)
            ]
        );
        assert_eq!((r.stats().clamped, r.skipped()), (0, 2));
    }

    #[test]
    fn d_events() {
        let clamp = super::super::TraceOptions {
            skip_bad: false,
            time_order: super::super::TimeOrder::Clamp,
        };
        let mut r = reader(F, SAMPLE).with_options(clamp);
        let recs: Vec<_> = r.by_ref().map(|x| x.unwrap()).collect();
        assert_eq!(
            recs,
            vec![
                IoRecord {
                    time_ns: 0,
                    offset: 584808 * 512,
                    size: 936 * 512,
                    op: Op::Read,
                    stream: 4528
                },
                // Slightly earlier (other CPU): clamped (saturates at 0).
                IoRecord {
                    time_ns: 0,
                    offset: 100 * 512,
                    size: 4096,
                    op: Op::Write,
                    stream: 4529
                },
                IoRecord {
                    time_ns: 17_936,
                    offset: 2048 * 512,
                    size: 2048 * 512,
                    op: Op::Trim,
                    stream: 4529
                },
                IoRecord {
                    time_ns: 1_266_874_889_708_658_509 - 32_064,
                    offset: 5632664 * 512,
                    size: 256 * 512,
                    op: Op::Read,
                    stream: 3646
                },
            ]
        );
        // `N` without direction, the stale sequence number 2 on CPU 1.
        assert_eq!(r.skipped(), 2);
    }

    #[test]
    fn q_events() {
        let recs = records(TraceFormat::BlkparseQ, SAMPLE);
        assert_eq!(
            recs,
            vec![IoRecord {
                time_ns: 0,
                offset: 51200,
                size: 4096,
                op: Op::Write,
                stream: 4528
            }]
        );
    }

    #[test]
    fn stale_session_is_dropped() {
        let text = b"8,16 1 15746 779.66 3436 D WS 8698688 + 8 [jbd2/sdb-8]\n\
                     8,16 1 15747 779.67 0 C WS 8698688 + 8 [0]\n\
                     8,16 1 4 1266874889.708658509 3646 I R 5632664 + 256 [java]\n\
                     8,16 1 6 1266874889.708668759 3646 D R 5632664 + 256 [java]\n\
                     8,32 1 6 779.68 3646 D R 1 + 8 [java]\n";
        let mut r = reader(F, text);
        let recs: Vec<_> = r.by_ref().map(|x| x.unwrap()).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[1].time_ns, 20_000_000);
        assert_eq!(r.skipped(), 1);
    }

    #[test]
    fn bad_fields() {
        let good = "8,16 3 9 0.1 4528 D R 584808 + 936 [java]\n";
        let cases: [(&str, &str); 8] = [
            ("8,16 x 9 0.1 4528 D R 1 + 8 [java]", "field 2 (cpu)"),
            ("8,16 3 y 0.1 4528 D R 1 + 8 [java]", "field 3 (sequence)"),
            (
                "8,16 3 10 0,1 4528 D R 1 + 8 [java]",
                "field 4 (time s): expected a non-negative number, got \"0,1\"",
            ),
            ("8,16 3 10 0.1 p D R 1 + 8 [java]", "field 5 (pid)"),
            ("8,16 3 10 0.1 4528 D r1 1 + 8 [java]", "field 7 (RWBS)"),
            (
                "8,16 3 10 0.1 4528 D R 1x + 8 [java]",
                "field 8 (sector): expected a non-negative integer, got \"1x\"",
            ),
            (
                "8,16 3 10 0.1 4528 D R 1 + 8k [java]",
                "field 10 (nsectors)",
            ),
            (
                "8,16 3 10 0.1",
                "expected at least 7 whitespace-separated fields",
            ),
        ];
        for (bad, needle) in cases {
            let text = format!("{good}{bad}\n");
            assert_error(F, text.as_bytes(), 2, needle);
        }
    }
}
