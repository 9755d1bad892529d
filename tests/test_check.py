"""Check mode (version oracle + invariants) from Python and the CLI."""

from __future__ import annotations

import json

import flashsched

DEVICE = "ssdsim-default"
MIX = "read=0.5,bs=2k-16k,iops=4000,n=3000"
AGED = ["ftl.precondition_fill=0.8", "variation.enabled=true"]


def _stable(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in ("wall_s", "requests_per_wall_s", "check")}


def test_check_mode_passes_and_does_not_change_results() -> None:
    for sched in flashsched.device_schedulers():
        kw = dict(synthetic=MIX, device=DEVICE, overrides=AGED, device_sched=sched, seed=5)
        checked = flashsched.run(check=True, **kw)
        plain = flashsched.run(**kw)
        assert checked.summary["requests"] == 3000
        assert checked.summary["check"]["enabled"] and not plain.summary["check"]["enabled"]
        assert _stable(checked.summary) == _stable(plain.summary), sched


def test_check_mode_on_an_array() -> None:
    res = flashsched.run_array(
        layout="raid5,chunk=16k",
        ssds=3,
        device=DEVICE,
        overrides=["ftl.precondition_fill=0.5"],
        phases=["read=0.4,bs=4k-64k,qd=16,n=1500"],
        check=True,
    )
    assert res.summary["requests"] == 1500


def test_cli_run_check(run_cli) -> None:
    proc = run_cli(
        "run", "--synthetic", MIX, "--device", DEVICE, "--check", "--json", "-", check=True
    )
    assert json.loads(proc.stdout)["requests"] == 3000
