//! The controller's front end: the host link (`[interface]`) a request's
//! command and data cross, and the DRAM its written data lands in
//! (`[cache]`). Requests and completions pass it in order per direction:
//! - a write's data crosses the link to the controller (`Arrive`), then is
//!   written to DRAM when there is a data cache;
//! - a read's data crosses back once its pages are read (after a DRAM read
//!   for pages answered from the cache);
//! - every completion costs `interface.command_us` before the host sees it
//!   (`Deliver`).
//!
//! Both resources serve transfers one at a time in the order they are
//! asked for (first come, first served). NVMe's PCIe link is full duplex
//! (a direction each), SATA half duplex (one for both), as MQSim models
//! them (`Host_Interface_NVMe`/`_SATA`, its PCIe link).

use super::config::{CacheConfig, InterfaceConfig, LinkKind};
use crate::divisor::ceil_u64;
use crate::engine::Ns;

/// Transfer direction on the host link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dir {
    ToDevice = 0,
    ToHost = 1,
}

/// A serial resource moving bytes at a fixed rate after a fixed latency.
#[derive(Debug, Clone)]
struct Pipe {
    /// ns per byte.
    ns_per_byte: f64,
    latency: Ns,
    /// DRAM row, bytes (0 = no row model) and its precharge time.
    row: u64,
    precharge: Ns,
    /// Requests wait for each other (a shared resource); `false` = each
    /// takes its own time from when it asks (SSDsim's fixed DRAM delay).
    serial: bool,
    /// PCIe packets (`interface.tlp_*`): payload bytes per packet (0 = no
    /// packets) and the bytes each adds.
    tlp_payload: u64,
    tlp_overhead: u64,
    free_at: Ns,
    /// `ns_per_byte` as `m / 2^k` when it is such a fraction (200 MB/s: 5
    /// ns per byte), so whole-byte times are integer arithmetic with the
    /// float's exact result.
    dyadic: Option<(u64, u32)>,
}

/// `x` as `(m, k)` with `x = m / 2^k` exactly, `m` below 2^32.
fn dyadic(x: f64) -> Option<(u64, u32)> {
    (0..=32).find_map(|k| {
        let m = x * (1u64 << k) as f64;
        (m.fract() == 0.0 && m >= 0.0 && m < (1u64 << 32) as f64).then_some((m as u64, k))
    })
}

impl Pipe {
    fn new(mb_s: f64, latency: Ns) -> Pipe {
        Pipe {
            ns_per_byte: 1000.0 / mb_s,
            dyadic: dyadic(1000.0 / mb_s),
            latency,
            row: 0,
            precharge: 0,
            serial: true,
            tlp_payload: 0,
            tlp_overhead: 0,
            free_at: 0,
        }
    }

    /// Time to move `bytes`. Up to a row (or without rows): the latency
    /// plus the bytes at the rate. Longer, as MQSim's
    /// `estimate_dram_access_time` has it: every pair of whole rows costs
    /// one row's bytes plus latency and precharge (an odd last row is not
    /// charged), then one latency, and the bytes past the whole rows cost
    /// their count divided by twice the ns per byte (MQSim divides by the
    /// burst time where it multiplies below a row; equal to its formula
    /// for its shipped 1-byte bursts).
    fn cost(&self, bytes: u64) -> Ns {
        let at_rate = |b: u64| match self.dyadic {
            // `b * m` below 2^53: the float product would be exact too.
            Some((m, k)) if b < (1 << 21) => (b * m).div_ceil(1 << k),
            _ => (b as f64 * self.ns_per_byte).ceil() as Ns,
        };
        if self.tlp_payload > 0 {
            // Every packet, the last partial one too, carries the overhead.
            let packets = ceil_u64(bytes, self.tlp_payload).max(1);
            return self.latency + at_rate(bytes + packets * self.tlp_overhead);
        }
        if self.row == 0 || bytes <= self.row {
            return self.latency + at_rate(bytes);
        }
        let pairs = bytes / (2 * self.row);
        let tail = ((bytes % self.row) as f64 / (2.0 * self.ns_per_byte)) as Ns;
        pairs * (self.latency + at_rate(self.row) + self.precharge) + self.latency + tail
    }

    /// Move `bytes` from `from` on: returns when they are through.
    fn transfer(&mut self, bytes: u64, from: Ns) -> Ns {
        if !self.serial {
            return from + self.cost(bytes);
        }
        let start = from.max(self.free_at);
        let end = start + self.cost(bytes);
        self.free_at = end;
        end
    }
}

/// What the front end does when a timed step ends.
#[derive(Debug, Clone, Copy)]
pub(super) enum Job {
    /// A write's data reached the controller: hand it to the cache / FTL.
    Arrive { r: u32, offset: u64, size: u32 },
    /// A shared read (`controller.shared_reads`) of a page of device
    /// request `r` is done.
    SharedRead { r: u32 },
    /// The completion of host request `host` reaches the host.
    Deliver { host: u32 },
    /// A page of device request `r` is written far enough to acknowledge
    /// (`controller.write_ack = "data-in"`: its data reached the chip).
    Written { r: u32 },
}

/// Host link, DRAM, and the steps in flight between them.
#[derive(Debug, Clone, Default)]
pub(super) struct Front {
    /// One pipe per direction (NVMe) or one shared (SATA); none = no link.
    link: Vec<Pipe>,
    dram: Option<Pipe>,
    command: Ns,
    /// NVMe queue messages (`interface.nvme_messages`): how long the
    /// command fetch takes before the device sees a request (doorbell,
    /// entry read request, the 64-byte entry), a write's data request, and
    /// the completion entry's crossing. They are latencies, not link time
    /// other transfers wait for: a request's completion may be planned
    /// ahead of transfers asked for before it happens, and a first-come
    /// pipe would then hold those back (MQSim's link queues them too, but
    /// they take 8-23 ns each).
    fetch: Ns,
    data_request: Ns,
    completion: Ns,
    jobs: Vec<Option<Job>>,
    free: Vec<u32>,
    /// Steps planned since the device last handed its events out, as
    /// (time, slot, plan order).
    planned: Vec<(Ns, u32, u32)>,
    /// Steps planned so far (wrapping): steps due at one instant run in
    /// the order they were planned ([`DevEvent::rank`](super::DevEvent)).
    seq: u32,
    /// Steps planned and not yet done.
    open: usize,
    /// `Arrive` steps planned and not yet done.
    arriving: usize,
}

impl Front {
    pub(super) fn new(hif: &InterfaceConfig, cache: &CacheConfig) -> Front {
        let us = |x: f64| (x * 1000.0).round() as Ns;
        let pipes = match hif.kind {
            LinkKind::None => 0,
            LinkKind::Nvme => 2,
            LinkKind::Sata => 1,
        };
        let link = Pipe {
            tlp_payload: hif.tlp_payload_bytes as u64,
            tlp_overhead: hif.tlp_overhead_bytes as u64,
            ..Pipe::new(hif.rate(), 0)
        };
        let nvme = hif.nvme_messages && pipes > 0;
        // MQSim's sizes: a 2-byte doorbell value, a read request's 4
        // bytes, the 64-byte submission and 16-byte completion entries.
        let msg = |bytes: u64| if nvme { link.cost(bytes) } else { 0 };
        Front {
            fetch: msg(2) + msg(4) + msg(64),
            data_request: msg(4),
            completion: msg(16),
            link: vec![link; pipes],
            dram: (cache.mib > 0.0 && cache.dram_mb_s > 0.0).then(|| Pipe {
                row: cache.dram_row_bytes as u64,
                precharge: cache.dram_precharge_ns.round() as Ns,
                serial: cache.dram_serial,
                ..Pipe::new(cache.dram_mb_s, cache.dram_latency_ns.round() as Ns)
            }),
            command: us(hif.command_us),
            ..Default::default()
        }
    }

    /// Whether any step takes time (else requests pass straight through).
    #[inline]
    pub(super) fn timed(&self) -> bool {
        !self.link.is_empty() || self.dram.is_some() || self.command > 0
    }

    /// `bytes` over the host link from `from`; returns when they are across.
    pub(super) fn link(&mut self, dir: Dir, bytes: u64, from: Ns) -> Ns {
        let n = self.link.len();
        match n {
            0 => from,
            _ => self.link[(dir as usize).min(n - 1)].transfer(bytes, from),
        }
    }

    /// `bytes` to or from DRAM from `from`; returns when done.
    pub(super) fn dram(&mut self, bytes: u64, from: Ns) -> Ns {
        match &mut self.dram {
            Some(d) if bytes > 0 => d.transfer(bytes, from),
            _ => from,
        }
    }

    /// How long a write's request for its data takes to reach the host.
    #[inline]
    pub(super) fn data_request(&self) -> Ns {
        self.data_request
    }

    /// When the host sees the completion whose entry is sent at `from`
    /// (after the request's data): the entry's crossing, and the command
    /// fetch the request began with. The fetch is charged here instead of
    /// delaying the request by it: every request waits the same fetch, so
    /// the device's timeline is the same shifted by it, and the run saves
    /// an event per request. (Not the same when the host queue is full: a
    /// request it releases then would wait the fetch once more.)
    #[inline]
    pub(super) fn completion(&self, from: Ns) -> Ns {
        from + self.completion + self.fetch
    }

    /// The per-request command cost.
    #[inline]
    pub(super) fn command(&self) -> Ns {
        self.command
    }

    /// Plan `job` for time `at` (inlined: the job is stored as built, not
    /// copied whole from the fields just written, which would stall).
    #[inline(always)]
    pub(super) fn plan(&mut self, at: Ns, job: Job) {
        self.arriving += matches!(job, Job::Arrive { .. }) as usize;
        let slot = match self.free.pop() {
            Some(s) => {
                self.jobs[s as usize] = Some(job);
                s
            }
            None => {
                self.jobs.push(Some(job));
                (self.jobs.len() - 1) as u32
            }
        };
        self.open += 1;
        self.planned.push((at, slot, self.seq));
        self.seq = self.seq.wrapping_add(1);
    }

    /// Steps planned since the last call, as (time, slot, plan order).
    pub(super) fn take_planned(&mut self) -> std::vec::Drain<'_, (Ns, u32, u32)> {
        self.planned.drain(..)
    }

    pub(super) fn has_planned(&self) -> bool {
        !self.planned.is_empty()
    }

    /// The step in `slot` is due: take it.
    pub(super) fn take(&mut self, slot: u32) -> Option<Job> {
        let job = self.jobs.get_mut(slot as usize)?.take()?;
        self.free.push(slot);
        self.open -= 1;
        self.arriving -= matches!(job, Job::Arrive { .. }) as usize;
        Some(job)
    }

    /// Whether a write's data is still on its way to the controller: a
    /// write whose data takes no time may then not overtake it.
    #[inline]
    pub(super) fn arriving(&self) -> bool {
        self.arriving > 0
    }

    /// Steps planned and not done.
    pub(super) fn open(&self) -> usize {
        self.open
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// MQSim's shipped DRAM: 100 MT/s × 1 byte, so 5 ns per byte (200
    /// MB/s), tRCD + tCL = 26 ns, tRP = 13 ns, 8 KiB rows.
    fn mqsim_dram() -> Pipe {
        Pipe {
            row: 8192,
            precharge: 13,
            ..Pipe::new(200.0, 26)
        }
    }

    #[test]
    fn dram_rows_are_charged_as_mqsim_charges_them() {
        let d = mqsim_dram();
        // Within a row: 26 + 4096 × 5.
        assert_eq!(d.cost(4096), 20_506);
        assert_eq!(d.cost(8192), 40_986);
        // Two rows are one pair: (26 + 40 960 + 13) + 26.
        assert_eq!(d.cost(16_384), 41_025);
        // 64 KiB, four pairs: 4 × 40 999 + 26 (MQSim's 164 µs).
        assert_eq!(d.cost(65_536), 164_022);
        // 12 KiB: no whole pair; 26 + 4096 / 10.
        assert_eq!(d.cost(12_288), 435);
        // 20 KiB: one pair, 26, and 4096 / 10.
        assert_eq!(d.cost(20_480), 40_999 + 26 + 409);
        // Without rows every byte is at the rate.
        assert_eq!(Pipe::new(200.0, 26).cost(65_536), 26 + 327_680);
    }
}
