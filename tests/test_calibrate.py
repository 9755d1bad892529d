"""``flashsched calibrate``: fitting a preset's timings to probe points.

The probe points here come from the simulator itself with known timings
(and a different seed from the fit's), so the fit must recover them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import flashsched
import pytest

SIZES = [4096, 65536, 262144, 1048576]
TRUTH = ["timing.read_us=90", "timing.program_us=1100", "timing.channel_mb_s=500"]


def sim_probe(overrides: list[str], ops: tuple[str, ...] = ("read", "write")) -> dict[str, Any]:
    """What `flashsched probe --json` would report for a simulated device."""
    pts = []
    for op in ops:
        for size in SIZES:
            r = flashsched.run(
                synthetic=f"read={int(op == 'read')},bs={size},pattern=random,qd=1,n=100,align=4k",
                device="default",
                overrides=overrides,
                seed=5,
                keep_records=False,
            )
            lat = r.summary["latency_us"]
            pts.append({"op": op, "size": size, "mean_us": lat["mean"], "p50_us": lat["p50"]})
    return {"points": pts}


def test_recovers_known_timings() -> None:
    cal = flashsched.calibrate(sim_probe(TRUTH), device="default", per_point=100)
    got = dict(zip(cal.params["key"], cal.params["fitted"]))
    assert got["timing.read_us"] == pytest.approx(90, rel=0.03)
    assert got["timing.program_us"] == pytest.approx(1100, rel=0.03)
    assert got["timing.channel_mb_s"] == pytest.approx(500, rel=0.05)
    assert cal.params["identifiable"].all()
    # The preset (60/700 us, 1200 MB/s) is far off; the fit is not.
    assert cal.rms_pct("preset_us") > 30 and cal.rms_pct() < 2
    assert (cal.points["residual_us"] == cal.points["measured_us"] - cal.points["fitted_us"]).all()


def test_hidden_parameter_is_kept_and_said(tmp_path: Path) -> None:
    # A DRAM write cache with free DRAM makes every simulated write take no
    # time, whatever program_us is: it cannot be fitted.
    probe = sim_probe(TRUTH, ops=("read",))
    probe["points"] += [{"op": "write", "size": s, "p50_us": 30.0} for s in SIZES]
    cal = flashsched.calibrate(
        probe, device="default", overrides=["cache.mib=1024"], per_point=100, stat="p50"
    )
    row = cal.params.set_index("key").loc["timing.program_us"]
    assert not row["identifiable"] and row["fitted"] == row["preset"] == 700
    assert any("timing.program_us" in n for n in cal.notes)
    got = dict(zip(cal.params["key"], cal.params["fitted"]))
    assert got["timing.read_us"] == pytest.approx(90, rel=0.03)


def test_cli_writes_a_device_file_run_accepts(tmp_path: Path, run_cli: Callable[..., Any]) -> None:
    pj = tmp_path / "probe.json"
    pj.write_text(json.dumps(sim_probe(TRUTH)))
    out = tmp_path / "cal.toml"
    p = run_cli(
        "calibrate", "--probe", str(pj), "--device", "default", "--per-point", "100",
        "--out", str(out), "--json", str(tmp_path / "cal.json"),
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert "RMS relative residual" in p.stdout
    cfg = flashsched.load_config(str(out))
    assert "read_us = 90." in cfg and 'preset = "default"' in cfg
    j = json.loads((tmp_path / "cal.json").read_text())
    assert j["rms_residual_pct"] < 2 and len(j["points"]) == 2 * len(SIZES)


def test_bad_input_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(flashsched.ConfigError, match="bad.json: not JSON"):
        flashsched.calibrate(bad)
    with pytest.raises(flashsched.ConfigError, match="no `points` list"):
        flashsched.calibrate({"fits": []})
    with pytest.raises(flashsched.ConfigError, match=r"points\[1\]"):
        flashsched.calibrate({"points": [{"op": "read", "size": 4096, "mean_us": 50},
                                         {"op": "read", "size": 4096}]})  # fmt: skip
    with pytest.raises(flashsched.ConfigError, match=r"points\[0\].*op read\|write"):
        flashsched.calibrate({"points": [{"op": "trim", "size": 4096, "mean_us": 5}]})
    with pytest.raises(flashsched.ConfigError, match="unknown .*erase_us"):
        flashsched.calibrate(sim_probe([], ops=("read",)), params=["erase_us"])
    with pytest.raises(flashsched.ConfigError, match="stat: `p90`"):
        flashsched.calibrate(sim_probe([], ops=("read",)), stat="p90")
    with pytest.raises(flashsched.ConfigError, match=r"points\[0\]: bad or missing 'p50_us'"):
        flashsched.calibrate({"points": [{"op": "read", "size": 4096, "mean_us": 5}]}, stat="p50")
    with pytest.raises(FileNotFoundError):
        flashsched.calibrate(tmp_path / "absent.json")
