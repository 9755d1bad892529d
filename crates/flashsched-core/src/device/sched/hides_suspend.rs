//! Test-only: P/E suspension that hides `suspends` from its caps, to show
//! that `RunOptions::verify_hints` turns a wrong hint into an error (and
//! that without it the hint silently changes results).

use super::{PeSuspend, PeSuspendParams, PickCtx, TxCaps, TxScheduler, TxSchedulerType};
use crate::device::tx::{Tx, TxId};
use crate::engine::Ns;
use crate::flash::Geometry;

pub(crate) struct HidesSuspend(PeSuspend);

impl TxSchedulerType for HidesSuspend {
    const NAME: &'static str = "test-hides-suspend";
    const ABOUT: &'static str = "test: pe-suspend with a wrong `suspends` hint";
    type Params = PeSuspendParams;

    fn new(p: PeSuspendParams, g: &Geometry) -> Self {
        HidesSuspend(PeSuspend::new(p, g))
    }
}

impl TxScheduler for HidesSuspend {
    fn push(&mut self, id: TxId, tx: &Tx, now: Ns) {
        self.0.push(id, tx, now)
    }
    fn pick(&mut self, die: u32, ctx: &PickCtx) -> Option<TxId> {
        self.0.pick(die, ctx)
    }
    fn pending(&self) -> usize {
        self.0.pending()
    }
    fn caps(&self) -> TxCaps {
        TxCaps {
            suspends: false,
            ..self.0.caps()
        }
    }
    fn preempt(&mut self, die: u32, running: &Tx, remaining: Ns, ctx: &PickCtx) -> Option<TxId> {
        self.0.preempt(die, running, remaining, ctx)
    }
}

#[cfg(test)]
mod tests {
    use crate::config::DeviceConfig;
    use crate::sim::{RunOptions, Simulation};
    use crate::workload::synthetic::SyntheticSpec;

    fn run(verify: bool) -> crate::error::SimResult<Simulation> {
        let cfg = DeviceConfig::load(
            "ssdsim-default",
            &["controller.scheduler=test-hides-suspend".into()],
        )?;
        let wl =
            SyntheticSpec::parse("read=0.5,bs=4k,qd=16,n=3000")?.build(cfg.logical_bytes(), 1)?;
        let opts = RunOptions {
            verify_hints: verify,
            keep_records: false,
            ..RunOptions::default()
        };
        let mut sim = Simulation::new(cfg, wl, opts)?;
        sim.run()?;
        Ok(sim)
    }

    #[test]
    fn a_hidden_suspends_hint_is_caught_when_verified() {
        let sim = run(false).unwrap();
        assert_eq!(
            sim.ssd.stats.suspensions, 0,
            "the wrong hint silently disables suspension"
        );
        let e = run(true).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            e.contains("test-hides-suspend") && e.contains("suspends"),
            "{e}"
        );
    }
}
