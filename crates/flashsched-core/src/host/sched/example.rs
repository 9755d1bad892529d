//! How to add a host scheduler: this file plus one registry line
//! (`entry::<Lifo>()` in `mod.rs`; compiled for tests only, so it is not
//! offered to users). Its tunables are a choice and a number; the config
//! finds them as `[host.example-lifo]` through the registry, checks their
//! types, choices and ranges, and names the key of a bad value. The tests
//! below drive it only through the config, as a user would.

use serde::{Deserialize, Serialize};

use super::{HostCtx, HostEnv, HostScheduler, HostSchedulerType, Pick};
use crate::engine::Ns;
use crate::error::SimResult;
use crate::host::HostRequest;
use crate::registry::{check_range, Params};

/// `[host.example-lifo]` tunables.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub(crate) struct LifoParams {
    /// Which queued request goes first.
    pub(crate) order: Order,
    /// Requests this scheduler lets be outstanding at the device.
    pub(crate) depth_limit: u32,
}

/// `order`: newest first (a stack) or oldest first (a queue).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Order {
    /// Newest first (a stack).
    Newest,
    /// Oldest first (a queue).
    Oldest,
}

impl Default for LifoParams {
    fn default() -> Self {
        LifoParams {
            order: Order::Newest,
            depth_limit: 32,
        }
    }
}

impl Params for LifoParams {
    fn validate(&self, key: &str) -> SimResult<()> {
        check_range(key, "depth_limit", self.depth_limit as f64, 1.0, 65536.0)
    }
}

/// A stack of request ids.
pub(crate) struct Lifo {
    p: LifoParams,
    held: std::collections::VecDeque<u32>,
}

impl HostSchedulerType for Lifo {
    const NAME: &'static str = "example-lifo";
    const ABOUT: &'static str = "example: newest request first (tests only)";
    type Params = LifoParams;

    fn new(p: LifoParams, _env: &HostEnv) -> Self {
        Lifo {
            p,
            held: Default::default(),
        }
    }
}

impl HostScheduler for Lifo {
    fn enqueue(&mut self, req: &HostRequest, _now: Ns) {
        self.held.push_back(req.id);
    }

    fn dispatch(&mut self, ctx: &HostCtx, _merged: &mut Vec<u32>) -> Option<Pick> {
        if ctx.outstanding >= self.p.depth_limit {
            return None;
        }
        match self.p.order {
            Order::Newest => self.held.pop_back(),
            Order::Oldest => self.held.pop_front(),
        }
        .map(Pick::Req)
    }

    fn len(&self) -> usize {
        self.held.len()
    }
}

#[cfg(test)]
mod tests {
    use crate::config::DeviceConfig;
    use crate::run::{self, RunSpec, WorkloadSpec};

    fn load(sets: &[&str]) -> crate::error::SimResult<DeviceConfig> {
        let mut ov = vec!["host.scheduler=example-lifo".to_string()];
        ov.extend(sets.iter().map(|s| s.to_string()));
        DeviceConfig::load("ssdsim-default", &ov)
    }

    #[test]
    fn tunables_are_config_keys_with_named_errors() {
        let c = load(&["host.example-lifo.order=oldest"]).unwrap();
        assert_eq!(
            c.host.sched["example-lifo"]["order"].as_str(),
            Some("oldest")
        );
        assert_eq!(
            c.host.sched["example-lifo"]["depth_limit"].as_integer(),
            Some(32),
            "defaults fill the table"
        );
        for (set, key, says) in [
            (
                "host.example-lifo.order=middle",
                "host.example-lifo.order",
                "newest",
            ),
            (
                "host.example-lifo.depth_limit=0",
                "host.example-lifo.depth_limit",
                "[1, 65536]",
            ),
            (
                "host.example-lifo.depth=3",
                "host.example-lifo.depth",
                "depth_limit",
            ),
            (
                "host.example-lifo.depth_limit=x",
                "host.example-lifo.depth_limit",
                "integer",
            ),
        ] {
            let e = load(&[set]).unwrap_err().to_string();
            assert!(e.contains(key) && e.contains(says), "{set}: {e}");
        }
    }

    /// Three reads of different sizes arrive together at a queue depth of
    /// one: newest-first serves them in the reverse of arrival order.
    #[test]
    fn serves_newest_first_through_the_simulator() {
        // ascii-ns: time(ns) dev sector size(sectors) op(1 = read).
        let trace = std::env::temp_dir().join(format!("lifo-{}.trace", std::process::id()));
        std::fs::write(&trace, "0 0 0 4 1\n0 0 64 8 1\n0 0 128 16 1\n").unwrap();
        let run_with = |order: &str| {
            let spec = RunSpec {
                device: "ssdsim-default".into(),
                overrides: vec![
                    "host.scheduler=example-lifo".into(),
                    format!("host.example-lifo.order={order}"),
                    "host.queue_depth=1".into(),
                ],
                workload: WorkloadSpec::Trace {
                    path: trace.clone(),
                    format: "ascii-ns".into(),
                    intensity: 1.0,
                    limit: None,
                    options: Default::default(),
                },
                seed: 1,
                keep_records: true,
            };
            let mut sim = run::build(&spec).unwrap();
            sim.run().unwrap();
            let r = &sim.metrics.records;
            let mut rows: Vec<(u64, u32)> = r
                .complete
                .iter()
                .copied()
                .zip(r.size.iter().copied())
                .collect();
            rows.sort();
            rows.into_iter().map(|(_, size)| size).collect::<Vec<_>>()
        };
        let (newest, oldest) = (run_with("newest"), run_with("oldest"));
        std::fs::remove_file(&trace).ok();
        assert_eq!(oldest, [2048, 4096, 8192]);
        assert_eq!(newest, [8192, 4096, 2048]);
    }
}
