//! Per-second p99 latency when the per-request rows leave as the run goes
//! (streamed to a file): the p99 of a second needs all its latencies, so
//! the rows taken keep theirs here until no later row can complete in that
//! second. Then the second is settled: its p99 is kept and its latencies go.
//! What stays open is the latencies of the last second or so (more where
//! `host.buffered_latency` dates completions back to a request's arrival).

use crate::engine::{Ns, NS_PER_S};

use super::Records;

/// Settled p99s and the latencies of taken rows still open.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TailLatency {
    /// p99 (ns) of the first `settled.len()` seconds of the run's series
    /// (`Metrics::seconds`): seconds settle in order, and no row recorded
    /// after a second settled completes in or before it.
    settled: Vec<f64>,
    /// (completion second, latency ns) of each read and write taken whose
    /// second has not settled.
    open: Vec<(u64, u64)>,
    /// Those settling now (a reused buffer).
    settling: Vec<(u64, u64)>,
}

impl TailLatency {
    /// The settled p99s, one per series second from the first.
    pub fn settled(&self) -> &[f64] {
        &self.settled
    }

    /// Bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.settled.capacity() * 8 + (self.open.capacity() + self.settling.capacity()) * 16
    }

    /// Keep the latencies of `rows` (just taken), then settle every second
    /// of `secs` (the series' seconds, ascending) before the one holding
    /// `floor`, the earliest completion any row recorded from now on can
    /// have. This runs between the simulation's steps, once per row group
    /// of a streamed run, so it makes one pass over the rows.
    pub fn fold(&mut self, rows: &Records, secs: &[u64], floor: Ns) {
        let floor_sec = floor / NS_PER_S;
        let (settling, open) = (&mut self.settling, &mut self.open);
        settling.clear();
        open.retain(|&(s, l)| {
            let keep = s >= floor_sec;
            if !keep {
                settling.push((s, l));
            }
            keep
        });
        for item in latencies(rows) {
            match item.0 < floor_sec {
                true => settling.push(item),
                false => open.push(item),
            }
        }
        let first = self.settled.len();
        let end = first + secs[first..].partition_point(|&s| s < floor_sec);
        p99_by_second(&secs[first..end], settling, &mut self.settled);
    }

    /// The p99 of every second of `secs`: the settled ones, then the rest
    /// from the open latencies and those of `held`, the rows not taken.
    pub fn p99_per_second(&self, held: &Records, secs: &[u64]) -> Vec<f64> {
        let first = self.settled.len().min(secs.len());
        let mut out = self.settled[..first].to_vec();
        let mut rest = self.open.clone();
        rest.extend(latencies(held));
        p99_by_second(&secs[first..], &mut rest, &mut out);
        out
    }
}

/// (completion second, latency ns) of each read and write of `r`.
fn latencies(r: &Records) -> impl Iterator<Item = (u64, u64)> + '_ {
    let (op, complete, arrival) = (&r.op[..], &r.complete[..], &r.arrival[..]);
    op.iter()
        .zip(complete)
        .zip(arrival)
        .filter(|((&o, _), _)| o != 2)
        .map(|((_, &c), &a)| (c / NS_PER_S, c - a))
}

/// Append the nearest-rank p99 (ns) of each second of `secs` (ascending)
/// over `items` (second, latency), every one of whose seconds is in
/// `secs`, to `out`; 0 for a second with none. The items are in
/// completion order but for a few (SSDsim's clock, `host.buffered_latency`,
/// dates some earlier): a stable sort by second, which takes runs already
/// in order as they are, groups them, and each group's p99 is selected in
/// place.
fn p99_by_second(secs: &[u64], items: &mut [(u64, u64)], out: &mut Vec<f64>) {
    items.sort_by_key(|&(s, _)| s);
    let mut rest = &mut items[..];
    for &sec in secs {
        let n = rest.partition_point(|&(s, _)| s <= sec);
        let (group, after) = std::mem::take(&mut rest).split_at_mut(n);
        rest = after;
        debug_assert!(
            group.iter().all(|&(s, _)| s == sec),
            "a latency outside the series"
        );
        out.push(match group.len() {
            0 => 0.0,
            n => {
                let q = ((0.99 * n as f64).ceil() as usize).clamp(1, n) - 1;
                group.select_nth_unstable_by_key(q, |&(_, l)| l).1 .1 as f64
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::NS_PER_S;
    use crate::io::{Completion, Op};
    use crate::metrics::{Metrics, Records};

    const S: u64 = NS_PER_S;

    /// A request that completed at `complete` after `latency` ns.
    fn done(complete: u64, latency: u64, op: Op) -> Completion {
        crate::metrics::tests::done(complete - latency, complete, op)
    }

    /// Second 0 holds latencies 1..=100 ns (p99 99), second 1 a trim and a
    /// read of 7, second 3 a read of 5 recorded before a read of 300 dated
    /// back into second 1 (p99 of {7, 300} is 300). Taken in three pieces
    /// with the floors a run would give, the p99s are those of the rows kept.
    #[test]
    fn seconds_settle_below_the_floor_and_keep_their_p99() {
        let mut m = Metrics::new(true);
        for l in 1..=100 {
            m.record(&done(S / 2, l, Op::Read));
        }
        m.record(&done(S + 10, 10, Op::Trim));
        // Nothing can complete before 1.0 s from here on: second 0 settles.
        let first = m.swap_records(Records::default(), S);
        assert_eq!(first.len(), 101);
        assert_eq!(m.tail.settled(), &[99.0]);
        m.record(&done(S + 20, 7, Op::Read));
        m.record(&done(3 * S, 5, Op::Read));
        // A request that arrived at 1.0 s is still out: second 1 stays open.
        m.swap_records(Records::default(), S);
        assert_eq!(m.tail.settled(), &[99.0]);
        m.record(&done(S + 400, 300, Op::Write));
        assert_eq!(m.seconds.bins(), &[0, 1, 3]);
        assert_eq!(m.p99_per_second(), vec![99.0, 300.0, 5.0]);
        // The last piece (the run over: everything settles up to its end).
        m.swap_records(Records::default(), 3 * S + 1);
        assert_eq!(m.tail.settled(), &[99.0, 300.0]);
        assert_eq!(m.p99_per_second(), vec![99.0, 300.0, 5.0]);
        assert!(m.records.is_empty());
    }

    /// A floor at or before the first second settles nothing; the rows'
    /// latencies wait, and nothing is lost when a piece is empty.
    #[test]
    fn a_low_floor_settles_nothing() {
        let mut m = Metrics::new(true);
        m.record(&done(2 * S, 40, Op::Write));
        m.swap_records(Records::default(), 0);
        m.swap_records(Records::default(), S);
        assert!(m.tail.settled().is_empty());
        assert_eq!(m.p99_per_second(), vec![40.0]);
    }
}
