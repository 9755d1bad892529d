//! fio's job-file words in synthetic specs: `rw=randrw,rwmixread=70,
//! iodepth=32,bs=4k,size=1g` means what it means to fio, rewritten here into
//! the spec's own keys before they are parsed.
//!
//! Accepted: `rw`/`readwrite`, `rwmixread`, `rwmixwrite`, `iodepth`,
//! `rate_iops`, `bsrange`/`blocksize_range`, `blocksize`, `blockalign`/`ba`,
//! `size`, `io_size`/`io_limit`, `number_ios`, `runtime`, `time_based`,
//! `numjobs`. As in fio, a job without `time_based` ends after `io_size` (or
//! `size`) bytes, `runtime` caps its time, a mixed `rw` without a mix reads
//! half the time, and `numjobs` copies of a job add their depths, rates and
//! request counts (here one generator with `streams = numjobs` over the
//! shared region). A fio word and the spec key it becomes cannot both be
//! given; fio features with no spec equivalent (trim, `rw=...:N`, a rate cap
//! on a deep queue, per-direction values) are errors naming the word.

use super::synthetic::{parse_bytes, parse_duration};
use crate::engine::NS_PER_S;
use crate::error::{SimError, SimResult};

/// fio spellings and the canonical word each stands for.
const WORDS: &[(&str, &str)] = &[
    ("rw", "rw"),
    ("readwrite", "rw"),
    ("rwmixread", "rwmixread"),
    ("rwmixwrite", "rwmixwrite"),
    ("iodepth", "iodepth"),
    ("rate_iops", "rate_iops"),
    ("bsrange", "bsrange"),
    ("blocksize_range", "bsrange"),
    ("blocksize", "blocksize"),
    ("blockalign", "blockalign"),
    ("ba", "blockalign"),
    ("size", "size"),
    ("io_size", "io_size"),
    ("io_limit", "io_size"),
    ("number_ios", "number_ios"),
    ("runtime", "runtime"),
    ("time_based", "time_based"),
    ("numjobs", "numjobs"),
];

fn bad(key: &str, msg: impl Into<String>) -> Box<SimError> {
    SimError::config(format!("synthetic.{key}"), msg.into())
}

/// A fio word as given (its spelling and value).
struct Given {
    key: String,
    value: String,
}

/// Rewrite the fio words among `pairs` into spec keys; other pairs pass
/// through unchanged and in order.
pub(super) fn to_native(pairs: Vec<(String, String)>) -> SimResult<Vec<(String, String)>> {
    let mut native = Vec::new();
    let mut fio: Vec<(&'static str, Given)> = Vec::new();
    for (k, v) in pairs {
        match WORDS.iter().find(|(w, _)| *w == k) {
            Some((_, canon)) => {
                if let Some((_, g)) = fio.iter().find(|(c, _)| c == canon) {
                    return Err(bad(&k, format!("given twice (also as `{}`)", g.key)));
                }
                fio.push((canon, Given { key: k, value: v }));
            }
            None => native.push((k, v)),
        }
    }
    if fio.is_empty() {
        return Ok(native);
    }
    Rewrite { native, fio }.run()
}

struct Rewrite {
    native: Vec<(String, String)>,
    fio: Vec<(&'static str, Given)>,
}

impl Rewrite {
    fn get(&self, canon: &str) -> Option<&Given> {
        self.fio.iter().find(|(c, _)| *c == canon).map(|(_, g)| g)
    }

    fn has_native(&self, keys: &[&str]) -> bool {
        self.native.iter().any(|(k, _)| keys.contains(&k.as_str()))
    }

    /// `g` becomes spec key `to`, which must not also be given.
    fn claim(&self, g: &Given, to: &str, also: &[&str]) -> SimResult<()> {
        let mut keys = vec![to];
        keys.extend_from_slice(also);
        match self.native.iter().find(|(k, _)| keys.contains(&k.as_str())) {
            Some((k, _)) => Err(bad(
                &g.key,
                format!(
                    "fio's `{}` and the spec's `{k}` set the same thing; give one",
                    g.key
                ),
            )),
            None => Ok(()),
        }
    }

    fn push(&mut self, key: &str, value: String) {
        self.native.push((key.to_string(), value));
    }

    fn run(mut self) -> SimResult<Vec<(String, String)>> {
        let jobs = match self.get("numjobs") {
            Some(g) => {
                self.claim(g, "streams", &[])?;
                positive_int(g)?
            }
            None => 1,
        };
        self.direction()?;
        self.depth_and_rate(jobs)?;
        self.sizes()?;
        self.extent_and_end(jobs)?;
        if jobs > 1 {
            self.push("streams", jobs.to_string());
        }
        Ok(self.native)
    }

    /// `rw` and the read/write mix become `pattern` and `read`.
    fn direction(&mut self) -> SimResult<()> {
        // (read fraction for a one-way job, random)
        let kind = match self.get("rw") {
            Some(g) => {
                self.claim(g, "pattern", &[])?;
                let kind = match g.value.as_str() {
                    "read" => (Some(1.0), false),
                    "write" => (Some(0.0), false),
                    "randread" => (Some(1.0), true),
                    "randwrite" => (Some(0.0), true),
                    "rw" | "readwrite" => (None, false),
                    "randrw" => (None, true),
                    v if v.contains(':') => {
                        return Err(bad(
                            &g.key,
                            format!("`{v}`: fio's `:N` offset modifier is not supported"),
                        ))
                    }
                    v => {
                        return Err(bad(
                            &g.key,
                            format!(
                                "`{v}` is not supported (known: read, write, randread, randwrite, \
                                 rw, readwrite, randrw; trims are not simulated)"
                            ),
                        ))
                    }
                };
                Some(kind)
            }
            None => None,
        };
        let mix = match (self.get("rwmixread"), self.get("rwmixwrite")) {
            (Some(r), Some(w)) => {
                let (pr, pw) = (percent(r)?, percent(w)?);
                if (pr + pw - 100.0).abs() > 1e-9 {
                    return Err(bad(
                        &r.key,
                        format!("{pr} and {} = {pw} do not add up to 100", w.key),
                    ));
                }
                Some((r, pr / 100.0))
            }
            (Some(r), None) => Some((r, percent(r)? / 100.0)),
            (None, Some(w)) => Some((w, 1.0 - percent(w)? / 100.0)),
            (None, None) => None,
        };
        let read = match (kind, mix) {
            (Some((Some(_), _)), Some((g, _))) => {
                return Err(bad(
                    &g.key,
                    "applies only to a mixed job (rw=rw, readwrite or randrw)",
                ))
            }
            (Some((Some(f), _)), None) => Some((self.get("rw"), f)),
            (_, Some((g, f))) => Some((Some(g), f)),
            // A mixed job without a mix: fio reads half the time.
            (Some((None, _)), None) => Some((self.get("rw"), 0.5)),
            (None, None) => None,
        };
        let read = match read {
            Some((Some(g), f)) => {
                self.claim(g, "read", &[])?;
                Some(f)
            }
            _ => None,
        };
        if let Some(f) = read {
            self.push("read", format!("{f}"));
        }
        if let Some((_, random)) = kind {
            self.push("pattern", if random { "random" } else { "seq" }.to_string());
        }
        Ok(())
    }

    /// `iodepth` becomes `qd`, `rate_iops` `iops`, each times `numjobs`.
    fn depth_and_rate(&mut self, jobs: u64) -> SimResult<()> {
        let depth = self.get("iodepth");
        let rate = self.get("rate_iops");
        if let (Some(d), Some(r)) = (depth, rate) {
            return Err(bad(
                &d.key,
                format!(
                    "fio's `{}` with `{}` (a rate-capped queue) has no spec equivalent: give \
                     iodepth (closed loop) or rate_iops (open loop)",
                    d.key, r.key
                ),
            ));
        }
        if let Some(g) = depth {
            self.claim(g, "qd", &["iops"])?;
            let qd = positive_int(g)? * jobs;
            self.push("qd", qd.to_string());
        }
        if let Some(g) = self.get("rate_iops") {
            self.claim(g, "iops", &["qd"])?;
            let iops: f64 = g
                .value
                .parse()
                .ok()
                .filter(|f: &f64| f.is_finite() && *f > 0.0)
                .ok_or_else(|| {
                    bad(
                        &g.key,
                        format!(
                            "`{}` is not a positive number (one value for reads and writes)",
                            g.value
                        ),
                    )
                })?;
            self.push("iops", format!("{}", iops * jobs as f64));
        }
        Ok(())
    }

    /// `blocksize`, `bsrange` and `blockalign` become `bs` and `align`.
    fn sizes(&mut self) -> SimResult<()> {
        let (bs, range) = (self.get("blocksize"), self.get("bsrange"));
        if let (Some(b), Some(r)) = (bs, range) {
            return Err(bad(
                &r.key,
                format!("give `{}` or `{}`, not both", b.key, r.key),
            ));
        }
        if let Some(g) = bs.or(range) {
            self.claim(g, "bs", &[])?;
            let v = g.value.clone();
            self.push("bs", v);
        }
        if let Some(g) = self.get("blockalign") {
            self.claim(g, "align", &[])?;
            let v = g.value.clone();
            self.push("align", v);
        }
        Ok(())
    }

    /// `size` becomes `span`; how the job ends becomes `n` and `time`.
    fn extent_and_end(&mut self, jobs: u64) -> SimResult<()> {
        let mut size_bytes = None;
        let mut size_share = None;
        if let Some(g) = self.get("size") {
            self.claim(g, "span", &[])?;
            let v = g.value.trim();
            if v.ends_with('%') {
                size_share = Some(g.key.clone());
            } else {
                size_bytes = Some(parse_bytes(&g.key, v)?);
            }
            let v = v.to_string();
            self.push("span", v);
        }
        let time_based = match self.get("time_based") {
            Some(g) => match g.value.as_str() {
                "" | "1" | "true" => true,
                "0" | "false" => false,
                v => return Err(bad(&g.key, format!("`{v}` is not 0 or 1"))),
            },
            None => false,
        };
        let runtime = match self.get("runtime") {
            Some(g) => {
                self.claim(g, "time", &[])?;
                Some(fio_seconds(g)?)
            }
            None => None,
        };
        if time_based && runtime.is_none() {
            return Err(bad("time_based", "needs `runtime` (how long the job runs)"));
        }
        if let Some(secs) = runtime {
            self.push("time", format!("{secs}s"));
        }
        let count = match (self.get("number_ios"), self.get("io_size")) {
            (Some(g), _) => {
                self.claim(g, "n", &["count"])?;
                Some(positive_int(g)?)
            }
            (None, Some(g)) => {
                self.claim(g, "n", &["count"])?;
                Some(self.requests_in(parse_bytes(&g.key, &g.value)?))
            }
            // Without time_based a job ends once it has moved `size` bytes.
            (None, None) if !time_based && !self.has_native(&["n", "count"]) => {
                if let Some(key) = size_share {
                    return Err(bad(
                        &key,
                        "a share of the device gives no request count before the device is \
                         known: add number_ios or io_size, or time_based with runtime",
                    ));
                }
                size_bytes.map(|b| self.requests_in(b))
            }
            (None, None) => None,
        };
        if let Some(n) = count {
            self.push("n", (n.max(1) * jobs).to_string());
        }
        Ok(())
    }

    /// Requests of the spec's mean size in `bytes` (at least one).
    fn requests_in(&self, bytes: u64) -> u64 {
        let bs = self
            .native
            .iter()
            .rev()
            .find(|(k, _)| k == "bs")
            .map(|(_, v)| mean_size(v))
            .unwrap_or(4096.0);
        ((bytes as f64 / bs).ceil() as u64).max(1)
    }
}

/// Mean of a `bs` value (`4k`, `4k-16k`, `4k/64k`); 4 KiB if unreadable
/// (the spec's own parser then names the bad value).
fn mean_size(v: &str) -> f64 {
    let one = |x: &str| parse_bytes("bs", x).map(|b| b as f64).unwrap_or(4096.0);
    if v.contains('/') {
        let sizes: Vec<f64> = v.split('/').map(one).collect();
        sizes.iter().sum::<f64>() / sizes.len() as f64
    } else if let Some((a, b)) = v.split_once('-') {
        (one(a) + one(b)) / 2.0
    } else {
        one(v)
    }
}

fn positive_int(g: &Given) -> SimResult<u64> {
    g.value
        .parse::<u64>()
        .ok()
        .filter(|&n| n > 0 && n <= u32::MAX as u64)
        .ok_or_else(|| bad(&g.key, format!("`{}` is not a positive integer", g.value)))
}

fn percent(g: &Given) -> SimResult<f64> {
    g.value
        .parse::<f64>()
        .ok()
        .filter(|p| (0.0..=100.0).contains(p))
        .ok_or_else(|| {
            bad(
                &g.key,
                format!("`{}` is not a percentage in [0, 100]", g.value),
            )
        })
}

/// fio's time values: bare seconds, or with `us`, `ms`, `s`, `m`, `h`, `d`.
fn fio_seconds(g: &Given) -> SimResult<f64> {
    let v = g.value.trim();
    let scaled = |n: &str, mult: f64| -> SimResult<f64> {
        n.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .map(|x| x * mult)
            .ok_or_else(|| {
                bad(
                    &g.key,
                    format!("`{v}` is not a duration (e.g. 30, 30s, 2m)"),
                )
            })
    };
    if let Some(n) = v.strip_suffix('m').filter(|n| !n.ends_with('m')) {
        return scaled(n, 60.0);
    }
    if let Some(n) = v.strip_suffix('h') {
        return scaled(n, 3600.0);
    }
    if let Some(n) = v.strip_suffix('d') {
        return scaled(n, 86400.0);
    }
    Ok(parse_duration(&g.key, v)? as f64 / NS_PER_S as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn native(text: &str) -> SimResult<String> {
        let pairs = text
            .split(',')
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (k.to_string(), v.to_string())
            })
            .collect();
        Ok(to_native(pairs)?
            .into_iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(","))
    }

    #[test]
    fn rewrites_fio_words() {
        assert_eq!(
            native("rw=randrw,rwmixread=70,iodepth=32,bs=4k,n=10").unwrap(),
            "bs=4k,n=10,read=0.7,pattern=random,qd=32"
        );
        assert_eq!(
            native("rw=read,time=1s").unwrap(),
            "time=1s,read=1,pattern=seq"
        );
        // A mixed job without a mix reads half the time; rwmixwrite is its complement.
        assert_eq!(native("rw=rw,n=1").unwrap(), "n=1,read=0.5,pattern=seq");
        assert_eq!(
            native("rw=randrw,rwmixwrite=25,n=1").unwrap(),
            "n=1,read=0.75,pattern=random"
        );
        // 1 GiB of 4 KiB requests, four jobs: 4 x 262144 requests at 4 x depth 8.
        assert_eq!(
            native("rw=randwrite,bs=4k,size=1g,iodepth=8,numjobs=4").unwrap(),
            "bs=4k,read=0,pattern=random,qd=32,span=1g,n=1048576,streams=4"
        );
        // time_based: runtime only, no request count from size; 2m = 120 s.
        assert_eq!(
            native("rw=randread,size=1g,runtime=2m,time_based,rate_iops=500").unwrap(),
            "read=1,pattern=random,iops=500,span=1g,time=120s"
        );
        // A share of the device ends by time (or a count).
        assert_eq!(
            native("size=50%,runtime=10,time_based").unwrap(),
            "span=50%,time=10s"
        );
        assert_eq!(native("size=50%,number_ios=7").unwrap(), "span=50%,n=7");
        // A 4k-12k range averages 8 KiB: 64 KiB is 8 requests.
        assert_eq!(
            native("bsrange=4k-12k,io_size=64k").unwrap(),
            "bs=4k-12k,n=8"
        );
    }

    #[test]
    fn names_the_fio_word_on_errors() {
        for (text, key, what) in [
            ("rw=randtrim,n=1", "synthetic.rw", "trims"),
            ("rw=randread:8,n=1", "synthetic.rw", ":N"),
            (
                "rw=randread,rwmixread=70,n=1",
                "synthetic.rwmixread",
                "mixed",
            ),
            ("rw=randrw,read=0.5,n=1", "synthetic.rw", "same thing"),
            ("iodepth=8,qd=4,n=1", "synthetic.iodepth", "same thing"),
            (
                "iodepth=8,rate_iops=100,n=1",
                "synthetic.iodepth",
                "rate-capped",
            ),
            ("iodepth=0,n=1", "synthetic.iodepth", "positive"),
            (
                "bs=4k,blocksize=8k,n=1",
                "synthetic.blocksize",
                "same thing",
            ),
            ("rwmixread=170,n=1", "synthetic.rwmixread", "percentage"),
            ("runtime=soon", "synthetic.runtime", "duration"),
            ("time_based,size=1g", "synthetic.time_based", "runtime"),
            (
                "rw=read,size=50%,runtime=10",
                "synthetic.size",
                "number_ios",
            ),
            (
                "rw=read,readwrite=write,n=1",
                "synthetic.readwrite",
                "twice",
            ),
        ] {
            let e = native(text).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains(what), "{text}: {e}");
        }
    }
}
