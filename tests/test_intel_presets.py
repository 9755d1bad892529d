"""The Amphibian paper's three drives (``intel-*`` presets): the controller
model they carry, the pin that gives back the devices the older numbers were
measured on, and the burstiness estimators the reproduction calibrates with."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import flashsched
import numpy as np
import pytest
from flashsched.legacy import INTEL_PLAIN
from flashsched.reproduce import burstiness as B


@pytest.mark.parametrize(
    ("preset", "link", "rate"),
    [
        ("intel-x25e", "sata", 300.0),
        ("intel-dc-s3700", "sata", 600.0),
        ("intel-750", "nvme", 4000.0),
    ],
)
def test_presets_carry_the_drives_controller(
    preset: str, link: str, rate: float, toml_loads: Callable[[str], dict[str, Any]]
) -> None:
    c = toml_loads(flashsched.load_config(preset))
    assert (c["interface"]["kind"], c["interface"]["rate_mb_s"]) == (link, rate)
    # §II-B: a chip in GC serves nothing until its GC ends.
    assert (c["ftl"]["gc_mode"], c["ftl"]["gc_block_unit"]) == ("blocking", "chip")
    assert c["controller"]["busy_unit"] == "chip" and c["controller"]["multiplane"] == "onfi"
    assert c["controller"]["scheduler"] == "mqsim-priority"  # reads before programs
    if c["cache"]["mib"] > 0:  # a buffered write costs its DRAM time
        assert c["cache"]["dram_mb_s"] > 0 and c["cache"]["dram_latency_ns"] > 0


def test_buffered_writes_take_dram_and_link_time() -> None:
    """A lone 4 KiB write to a buffer: the link moves it (750: NVMe at 4000
    MB/s, 1.024 µs; S3700: SATA at 600 MB/s, 6.827 µs), then DRAM at 1600
    MB/s takes 2.56 µs after 26 ns; no flash wait."""
    for dev, link_us in (("intel-750", 4096 / 4000), ("intel-dc-s3700", 4096 / 600)):
        res = flashsched.run(synthetic="read=0,bs=4k,iops=10,n=20", device=dev)
        w = res.requests["latency_us"].to_numpy()
        assert np.allclose(w, link_us + 4096 / 1600 + 0.026, atol=1e-3), (dev, w)


def test_plain_pin_gives_back_the_measured_devices(traces_dir: Path) -> None:
    """docs/amphibian-data/traces.csv (measured on the presets before the
    controller model): hm_0 at ×10, queue depth 16, noop."""
    trace = traces_dir / "msr" / "hm_0.first1000.csv"
    if not trace.is_file():
        pytest.skip("hm_0 sample not found")
    for preset, mean_us in (("intel-x25e", 503.59969), ("intel-750", 63.75828)):
        res = flashsched.run(
            trace=str(trace),
            intensity=10,
            device=preset,
            overrides=INTEL_PLAIN[preset],
            queue_depth=16,
        )
        assert res.summary["latency_us"]["mean"] == pytest.approx(mean_us, rel=1e-9)
    assert set(INTEL_PLAIN) == {"intel-x25e", "intel-dc-s3700", "intel-750"}


def test_burst_estimators_on_a_worked_case() -> None:
    """Gaps 0, 0, 0, 100 µs: 3 of 4 under 25 µs, so B = 1 / (1 − 3/4) = 4;
    mean 25, variance 1875, CV² = 3, so the moment estimate is (3 + 1) / 2 = 2."""
    g = [0.0, 0.0, 0.0, 100.0]
    assert B.burst_near_zero(g) == 4.0
    assert B.burst_moments(g) == pytest.approx(2.0)
    assert B.burst_near_zero([1.0, 2.0]) == math.inf
    assert math.isnan(B.burst_near_zero([]))
    # Poisson arrivals (exponential gaps, mean 1 ms): B ≈ 1 both ways; the
    # gap-share estimate is 1 / e^(−25/1000) = e^0.025 (its bias for Poisson).
    exp = np.random.default_rng(1).exponential(1000.0, 200_000)
    assert B.burst_near_zero(exp) == pytest.approx(math.exp(0.025), rel=0.002)
    assert B.burst_moments(exp) == pytest.approx(1.0, abs=0.02)
