//! Per-request rows gathered a few dozen at a time and appended to their
//! columns in bursts.
//!
//! Appended one request at a time, each row is seven scattered stores into
//! seven columns, interleaved with the simulation's own work, each new
//! cache line of a column read in for ownership in the middle of it. With
//! rows kept and drained as `run --out` does, the MQSim trace's core ran
//! 9 % slower than without rows and the GC case 12 % (cachegrind with a
//! 2 MiB L2 on the MQSim trace: +3.5 misses per request). Rows now go to a
//! small stage that stays in L1, and a full stage goes to each column in
//! one run: -3 to -4 % core time on the MQSim trace, -5 to -9 % on the GC
//! case, SSDsim's case within noise (BENCHMARKS.md, session 57). Stores
//! that bypass the caches gained no more in the core and cost SSDsim's
//! case end to end: the Parquet writer then read every row from memory.
//!
//! Staged rows are not in the columns yet: a model that stages flushes
//! whenever it returns to its caller (`engine::Model::pause`), so anyone
//! reading the columns between its steps sees every row.

use super::{op_code, Completion, Records};

/// Rows a stage holds (48 bytes each: 3 KiB).
const STAGE_ROWS: usize = 64;

/// One row as staged.
#[derive(Debug, Clone, Copy)]
struct Row {
    arrival: u64,
    dispatch: u64,
    complete: u64,
    offset: u64,
    size: u32,
    stream: u32,
    op: u8,
}

/// Rows not yet in their columns, oldest first.
#[derive(Debug, Clone)]
pub(crate) struct RowStage {
    rows: Vec<Row>,
}

impl Default for RowStage {
    fn default() -> Self {
        RowStage {
            rows: Vec::with_capacity(STAGE_ROWS),
        }
    }
}

impl RowStage {
    /// Stage `c`'s row; true when the stage is full (flush it).
    #[inline]
    pub(crate) fn push(&mut self, c: &Completion) -> bool {
        self.rows.push(Row {
            arrival: c.arrival,
            dispatch: c.dispatch,
            complete: c.complete,
            offset: c.offset,
            size: c.size,
            stream: c.stream,
            op: op_code(c.op),
        });
        self.rows.len() >= STAGE_ROWS
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Append the staged rows to `r`'s columns, in order, and empty the
    /// stage.
    #[inline(never)]
    pub(crate) fn flush_into(&mut self, r: &mut Records) {
        if self.rows.is_empty() {
            return;
        }
        let rows = &self.rows;
        r.arrival.owned().extend(rows.iter().map(|x| x.arrival));
        r.dispatch.owned().extend(rows.iter().map(|x| x.dispatch));
        r.complete.owned().extend(rows.iter().map(|x| x.complete));
        r.op.owned().extend(rows.iter().map(|x| x.op));
        r.offset.owned().extend(rows.iter().map(|x| x.offset));
        r.size.owned().extend(rows.iter().map(|x| x.size));
        r.stream.owned().extend(rows.iter().map(|x| x.stream));
        self.rows.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::Op;
    use crate::metrics::Metrics;

    fn done(i: u64) -> Completion {
        Completion {
            arrival: i,
            dispatch: i + 1,
            complete: i * 3 + 7,
            op: [Op::Read, Op::Write, Op::Trim][(i % 3) as usize],
            offset: i << 12,
            size: (i as u32) * 512,
            stream: (i % 5) as u32,
        }
    }

    /// Staged rows come out as rows recorded one by one do, across full
    /// stages, a partial one, and columns handed out in between (which
    /// must not change).
    #[test]
    fn staged_rows_match_rows_recorded_directly() {
        let mut direct = Metrics::new(true);
        let mut staged = Metrics::new(true);
        let mut handed = None;
        for i in 0..1000u64 {
            direct.record(&done(i));
            staged.record_staged(&done(i));
            if i == 500 {
                staged.flush_staged();
                let held = staged.records.arrival.share();
                assert_eq!(held.len(), 501);
                handed = Some(held);
            }
        }
        staged.flush_staged();
        assert!(staged.stage.is_empty());
        let (a, b) = (&direct.records, &staged.records);
        assert_eq!(b.len(), 1000);
        assert_eq!(&*a.arrival, &*b.arrival);
        assert_eq!(&*a.dispatch, &*b.dispatch);
        assert_eq!(&*a.complete, &*b.complete);
        assert_eq!(&*a.op, &*b.op);
        assert_eq!(&*a.offset, &*b.offset);
        assert_eq!(&*a.size, &*b.size);
        assert_eq!(&*a.stream, &*b.stream);
        assert_eq!(direct.all.count(), staged.all.count());
        let held = handed.expect("handed out");
        assert_eq!(held.len(), 501, "handed-out rows never change");
        assert_eq!(held[500], 500);
    }
}
