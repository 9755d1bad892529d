//! Synthetic open-loop workloads matching the published profile of a trace
//! (read ratio, IOPS, mean request size): the eight traces of Amphibian's
//! Table III. These are **synthetic stand-ins**, not the traces: only the
//! four published statistics are matched.
//!
//! Spec: `profile:fin1[,scale=10,burst=1,n=50000,time=...,streams=8,seed=...]`.
//! Arrivals are Poisson at `scale` × the published IOPS (the paper replays
//! ×10); with `burst=B` > 1 they come in bursts (batch Poisson: burst sizes
//! geometric with mean B, bursts at IOPS/B, requests of a burst at the same
//! instant), same mean rate: block traces are burstier than Poisson and
//! host reordering only matters when requests queue. Sizes are 4 KiB × k with k geometric on {1, 2, ...} of mean
//! `mean size / 4 KiB` (so the mean matches and small requests dominate, as
//! in block traces), capped at 1 MiB; offsets uniform over the device,
//! 4 KiB aligned; the direction is drawn with the read ratio; requests are
//! spread round-robin over `streams` streams.

use super::synthetic::parse_duration;
use super::{IoRecord, Poll, Workload};
use crate::engine::Ns;
use crate::error::{SimError, SimResult};
use crate::rng::Rng;
use crate::workload::Op;

/// A published trace profile.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    /// Trace name (`profile:NAME`).
    pub name: &'static str,
    /// Fraction of requests that are reads.
    pub read_ratio: f64,
    /// Published request rate, requests/s (before `scale`).
    pub iops: f64,
    /// Mean request size in bytes.
    pub mean_bytes: f64,
    /// Where the numbers are published.
    pub source: &'static str,
}

const KB: f64 = 1000.0;

/// Amphibian Table III (sizes in the table's KB, taken as 10^3 bytes).
pub const PROFILES: &[Profile] = &[
    Profile {
        name: "fin1",
        read_ratio: 0.328,
        iops: 52.0,
        mean_bytes: 11.9 * KB,
        source: "Amphibian Table III (UMass Financial1)",
    },
    Profile {
        name: "fin2",
        read_ratio: 0.824,
        iops: 127.0,
        mean_bytes: 6.2 * KB,
        source: "Amphibian Table III (UMass Financial2)",
    },
    Profile {
        name: "web1",
        read_ratio: 0.999,
        iops: 335.0,
        mean_bytes: 8.0 * KB,
        source: "Amphibian Table III (UMass WebSearch1)",
    },
    Profile {
        name: "web2",
        read_ratio: 0.999,
        iops: 331.0,
        mean_bytes: 15.1 * KB,
        source: "Amphibian Table III (UMass WebSearch2)",
    },
    Profile {
        name: "web3",
        read_ratio: 0.999,
        iops: 218.0,
        mean_bytes: 11.8 * KB,
        source: "Amphibian Table III (UMass WebSearch3)",
    },
    Profile {
        name: "proj_2",
        read_ratio: 0.775,
        iops: 81.0,
        mean_bytes: 40.2 * KB,
        source: "Amphibian Table III (MSR proj_2)",
    },
    Profile {
        name: "prxy_1",
        read_ratio: 0.653,
        iops: 266.0,
        mean_bytes: 12.5 * KB,
        source: "Amphibian Table III (MSR prxy_1)",
    },
    Profile {
        name: "usr_1",
        read_ratio: 0.855,
        iops: 64.0,
        mean_bytes: 45.4 * KB,
        source: "Amphibian Table III (MSR usr_1)",
    },
];

/// Look a profile up by name (case-insensitive).
pub fn profile(name: &str) -> SimResult<Profile> {
    let n = name.trim().to_ascii_lowercase();
    PROFILES
        .iter()
        .copied()
        .find(|p| p.name == n)
        .ok_or_else(|| {
            let names: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
            SimError::unknown("workload profile", name, &names)
        })
}

/// A parsed `profile:` spec.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileSpec {
    /// The trace profile matched.
    pub profile: Profile,
    /// Arrival-rate multiplier over the published IOPS (`scale`).
    pub scale: f64,
    /// Requests to generate (`n`).
    pub count: Option<u64>,
    /// Simulated time to generate requests for (`time`).
    pub duration: Option<Ns>,
    /// Streams the requests are spread over, round-robin.
    pub streams: u32,
    /// Mean burst size (1 = plain Poisson arrivals).
    pub burst: f64,
    /// Seed of the generator (the run's seed if `None`).
    pub seed: Option<u64>,
}

fn bad(key: &str, msg: String) -> Box<SimError> {
    SimError::config(format!("profile.{key}"), msg)
}

impl ProfileSpec {
    /// Parse the part after `profile:`, e.g. `fin1,scale=10,n=50000`.
    pub fn parse(text: &str) -> SimResult<ProfileSpec> {
        let mut parts = text.split(',').map(str::trim);
        let name = parts.next().unwrap_or("");
        let mut s = ProfileSpec {
            profile: profile(name)?,
            scale: 10.0,
            count: None,
            duration: None,
            streams: 8,
            burst: 1.0,
            seed: None,
        };
        for kv in parts.filter(|p| !p.is_empty()) {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| bad(kv, "expected key=value".into()))?;
            let v = v.trim();
            let n = |v: &str| -> SimResult<f64> {
                v.parse()
                    .map_err(|_| bad(k, format!("`{v}` is not a number")))
            };
            match k.trim() {
                "scale" => s.scale = n(v)?,
                "n" => s.count = Some(n(v)? as u64),
                "time" => s.duration = Some(parse_duration("profile.time", v)?),
                "streams" => s.streams = n(v)? as u32,
                "burst" => s.burst = n(v)?,
                "seed" => s.seed = Some(n(v)? as u64),
                other => {
                    return Err(bad(
                        other,
                        "unknown key (known: scale, burst, n, time, streams, seed)".into(),
                    ))
                }
            }
        }
        if !(s.scale > 0.0 && s.scale.is_finite()) {
            return Err(bad("scale", format!("{} must be > 0", s.scale)));
        }
        if !(s.burst >= 1.0 && s.burst <= 1e6) {
            return Err(bad("burst", format!("{} is outside [1, 1e6]", s.burst)));
        }
        if s.streams == 0 {
            return Err(bad("streams", "must be at least 1".into()));
        }
        if s.count.is_none() && s.duration.is_none() {
            s.count = Some(50_000);
        }
        Ok(s)
    }

    /// The generator for a device of `capacity` logical bytes; `seed` is the
    /// run's seed.
    pub fn build(&self, capacity: u64, seed: u64) -> SimResult<Box<dyn Workload>> {
        if capacity < 2 << 20 {
            return Err(bad("capacity", "device too small".into()));
        }
        let p = self.profile;
        Ok(Box::new(ProfileGen {
            spec: self.clone(),
            pages: capacity / 4096,
            rng: Rng::derive(self.seed.unwrap_or(seed), 0x7072),
            next_t: 0,
            issued: 0,
            // Geometric on {1, 2, ...} with mean m: success probability 1/m.
            p_stop: (4096.0 / p.mean_bytes).min(1.0),
        }))
    }
}

struct ProfileGen {
    spec: ProfileSpec,
    pages: u64,
    rng: Rng,
    next_t: Ns,
    issued: u64,
    p_stop: f64,
}

impl ProfileGen {
    fn done(&self, t: Ns) -> bool {
        self.spec.count.is_some_and(|n| self.issued >= n)
            || self.spec.duration.is_some_and(|d| t >= d)
    }

    fn make(&mut self) -> IoRecord {
        let mut k = 1u64;
        while k < 256 && self.rng.f64() >= self.p_stop {
            k += 1;
        }
        let start = self.rng.below(self.pages - k);
        let op = if self.rng.f64() < self.spec.profile.read_ratio {
            Op::Read
        } else {
            Op::Write
        };
        let stream = (self.issued % self.spec.streams as u64) as u32;
        self.issued += 1;
        IoRecord {
            time_ns: self.next_t,
            offset: start * 4096,
            size: (k * 4096) as u32,
            op,
            stream,
        }
    }
}

impl Workload for ProfileGen {
    fn poll(&mut self, now: Ns, out: &mut Vec<IoRecord>) -> SimResult<Poll> {
        let burst = self.spec.burst;
        let mean = 1e9 * burst / (self.spec.profile.iops * self.spec.scale);
        while self.next_t <= now {
            // One burst: geometric size with mean `burst` (1 = Poisson).
            loop {
                if self.done(self.next_t) {
                    return Ok(Poll::Done);
                }
                let r = self.make();
                out.push(r);
                if burst <= 1.0 || self.rng.f64() < 1.0 / burst {
                    break;
                }
            }
            self.next_t += (self.rng.exp(mean).round() as Ns).max(1);
        }
        if self.done(self.next_t) {
            return Ok(Poll::Done);
        }
        Ok(Poll::At(self.next_t))
    }

    fn describe(&self) -> String {
        let p = self.spec.profile;
        format!(
            "synthetic profile {} (read {:.1} %, {} IOPS x{}, burst {}, mean {:.1} KB; {})",
            p.name,
            p.read_ratio * 100.0,
            p.iops,
            self.spec.scale,
            self.spec.burst,
            p.mean_bytes / 1000.0,
            p.source
        )
    }

    fn expected_requests(&self) -> Option<u64> {
        self.spec.count
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_stream_matches_the_profile() {
        let s = ProfileSpec::parse("prxy_1,scale=10,n=40000").unwrap();
        let mut w = s.build(64 << 30, 3).unwrap();
        let mut out = Vec::new();
        let mut t = 0;
        while let Poll::At(n) = w.poll(t, &mut out).unwrap() {
            t = n;
        }
        assert_eq!(out.len(), 40_000);
        let reads = out.iter().filter(|r| r.op == Op::Read).count() as f64 / 40_000.0;
        assert!((reads - 0.653).abs() < 0.01, "{reads}");
        let mean = out.iter().map(|r| r.size as f64).sum::<f64>() / 40_000.0;
        assert!((mean - 12_500.0).abs() / 12_500.0 < 0.03, "{mean}");
        let span_s = out.last().unwrap().time_ns as f64 / 1e9;
        let iops = 40_000.0 / span_s;
        assert!((iops - 2660.0).abs() / 2660.0 < 0.03, "{iops}");
        // Bursty arrivals keep the mean rate.
        let s = ProfileSpec::parse("web1,burst=8,n=40000").unwrap();
        let mut w = s.build(64 << 30, 3).unwrap();
        let (mut out, mut t) = (Vec::new(), 0);
        while let Poll::At(n) = w.poll(t, &mut out).unwrap() {
            t = n;
        }
        let iops = out.len() as f64 / (out.last().unwrap().time_ns as f64 / 1e9);
        assert!((iops - 3350.0).abs() / 3350.0 < 0.05, "{iops}");
        assert!(ProfileSpec::parse("fin9")
            .unwrap_err()
            .to_string()
            .contains("fin1"));
    }
}
