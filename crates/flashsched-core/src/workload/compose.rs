//! Workload combinators: phases run one after another (an aging phase then a
//! measurement phase, as in Kim et al. HotStorage'17 §3.1), and concurrent
//! clients run side by side (the paper's 10 threads × 10 GB FTP writers,
//! §3.2).

use super::synthetic::SyntheticSpec;
use super::{IoRecord, Poll, Workload};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::io::Completion;

/// Workloads run in sequence; each phase sees time from its own start.
/// Completions of requests issued by an earlier phase are not passed on.
pub struct Phases {
    phases: Vec<Box<dyn Workload>>,
    cur: usize,
    start: Ns,
    /// Start time of every phase begun so far.
    pub starts: Vec<Ns>,
}

impl Phases {
    /// Run `phases` one after the other.
    pub fn new(phases: Vec<Box<dyn Workload>>) -> Phases {
        Phases {
            phases,
            cur: 0,
            start: 0,
            starts: vec![0],
        }
    }

    /// Phases from synthetic spec strings (each built for `capacity` bytes,
    /// phase i seeded with `seed + i` unless the spec sets `seed=`).
    pub fn from_specs(specs: &[String], capacity: u64, seed: u64) -> SimResult<Phases> {
        let ws = specs
            .iter()
            .enumerate()
            .map(|(i, s)| SyntheticSpec::parse(s)?.build(capacity, seed.wrapping_add(i as u64)))
            .collect::<SimResult<Vec<_>>>()?;
        Ok(Phases::new(ws))
    }
}

impl Workload for Phases {
    fn poll(&mut self, now: Ns, out: &mut Vec<IoRecord>) -> SimResult<Poll> {
        loop {
            let Some(w) = self.phases.get_mut(self.cur) else {
                return Ok(Poll::Done);
            };
            let from = out.len();
            let p = w.poll(now - self.start, out)?;
            for r in &mut out[from..] {
                r.time_ns += self.start;
            }
            match p {
                Poll::At(t) => return Ok(Poll::At(t + self.start)),
                Poll::Blocked => return Ok(Poll::Blocked),
                Poll::Wait(t) => return Ok(Poll::Wait(t + self.start)),
                Poll::Done if self.cur + 1 < self.phases.len() => {
                    self.cur += 1;
                    self.start = now;
                    self.starts.push(now);
                }
                Poll::Done => return Ok(Poll::Done),
            }
        }
    }

    fn on_complete(&mut self, c: &Completion, now: Ns) {
        if c.arrival >= self.start {
            if let Some(w) = self.phases.get_mut(self.cur) {
                w.on_complete(c, now - self.start);
            }
        }
    }

    /// The current phase's next request (at a phase boundary the next one
    /// may come from the next phase instead: `peek` is a hint).
    fn peek(&self) -> Option<IoRecord> {
        self.phases.get(self.cur)?.peek()
    }

    fn describe(&self) -> String {
        let parts: Vec<String> = self.phases.iter().map(|w| w.describe()).collect();
        format!("phases[{}]", parts.join("; "))
    }

    fn expected_requests(&self) -> Option<u64> {
        self.phases.iter().map(|w| w.expected_requests()).sum()
    }
}

/// Independent clients issuing at the same time; client i's requests carry
/// stream id i and its completions are routed back by stream. Closed-loop
/// clients are re-polled after completions when every client is blocked;
/// mixed with open-loop clients they are re-polled at the next arrival.
pub struct Concurrent {
    clients: Vec<Box<dyn Workload>>,
    state: Vec<Poll>,
    ready: Vec<bool>,
}

impl Concurrent {
    /// Run `clients` at the same time.
    pub fn new(clients: Vec<Box<dyn Workload>>) -> Concurrent {
        let n = clients.len();
        Concurrent {
            clients,
            state: vec![Poll::At(0); n],
            ready: vec![true; n],
        }
    }

    /// `count` writers, each writing its own `file` bytes sequentially in
    /// `bs` requests with `qd` outstanding (an FTP-like upload per client).
    pub fn writers(count: u32, file: u64, bs: u64, qd: u32, seed: u64) -> SimResult<Concurrent> {
        let n = file.div_ceil(bs.max(1));
        let clients = (0..count)
            .map(|i| {
                let spec = format!(
                    "read=0,bs={bs},pattern=seq,qd={qd},offset={},span={file},n={n},align=512",
                    i as u64 * file
                );
                SyntheticSpec::parse(&spec)?.build((i as u64 + 1) * file, seed + i as u64)
            })
            .collect::<SimResult<Vec<_>>>()?;
        Ok(Concurrent::new(clients))
    }
}

impl Workload for Concurrent {
    fn poll(&mut self, now: Ns, out: &mut Vec<IoRecord>) -> SimResult<Poll> {
        for i in 0..self.clients.len() {
            let due = match self.state[i] {
                Poll::At(t) => t <= now,
                Poll::Blocked => self.ready[i],
                Poll::Wait(t) => t <= now || self.ready[i],
                Poll::Done => false,
            };
            if !due {
                continue;
            }
            let from = out.len();
            self.state[i] = self.clients[i].poll(now, out)?;
            self.ready[i] = false;
            for r in &mut out[from..] {
                r.stream = i as u32;
            }
        }
        let next = self
            .state
            .iter()
            .filter_map(|p| match p {
                Poll::At(t) | Poll::Wait(t) => Some(*t),
                _ => None,
            })
            .min();
        let waits = self.state.iter().any(|p| matches!(p, Poll::Wait(_)));
        Ok(match next {
            // A client with think time needs completions too.
            Some(t) if waits => Poll::Wait(t),
            Some(t) => Poll::At(t),
            None if self.state.contains(&Poll::Blocked) => Poll::Blocked,
            None => Poll::Done,
        })
    }

    fn on_complete(&mut self, c: &Completion, now: Ns) {
        let i = c.stream as usize;
        if let Some(w) = self.clients.get_mut(i) {
            w.on_complete(c, now);
            self.ready[i] = true;
        }
    }

    fn describe(&self) -> String {
        format!(
            "{} concurrent clients [{}]",
            self.clients.len(),
            self.clients
                .first()
                .map(|w| w.describe())
                .unwrap_or_default()
        )
    }

    fn expected_requests(&self) -> Option<u64> {
        self.clients.iter().map(|w| w.expected_requests()).sum()
    }
}
