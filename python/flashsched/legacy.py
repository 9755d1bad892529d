"""Settings that give a preset back the device it was before it carried its
peer's controller model, for results established on that device (the
reproductions, the AOS evaluation, the ``ssdsim-default`` bench case)."""

from __future__ import annotations

from flashsched._core import SSDSIM_PLAIN as _SSDSIM_PLAIN

# ``ssdsim-default`` as it was before it carried SSDsim's controller model
# (the core's ``config::SSDSIM_PLAIN``, shared with its golden runs): every
# die on its own with a FIFO, GC moves interleaved with user I/O, an eager
# write buffer when a size is set, writes acknowledged when programmed. The
# reproductions established on that device (the theory checks, Amphibian's
# Fig. 5 example, the AOS evaluation of docs/devsched.md) keep it, so their
# settings and numbers stay what they were measured as.
SSDSIM_PLAIN: list[str] = list(_SSDSIM_PLAIN)

# The three Amphibian presets (``intel-x25e``, ``intel-dc-s3700``,
# ``intel-750``) as they were before they carried the faithful controller
# model (docs/amphibian.md, "The platform"): no host link, every die on its
# own with a FIFO, GC moves interleaved with user I/O, an eager write buffer
# whose DRAM takes no time (the X25-E had none). ``docs/amphibian-eval.sh``
# applies it, so the numbers of docs/amphibian-data/ (measured on those
# presets) stay what they were measured as.
_INTEL_CONTROLLER = [
    "interface.kind=none",
    "interface.rate_mb_s=0",
    "cache.policy=eager",
    "cache.dram_mb_s=0",
    "cache.dram_latency_ns=0",
    "controller.scheduler=fifo",
    "controller.busy_unit=die",
    "controller.interleave=false",
    "controller.multiplane=off",
    "controller.write_ack=programmed",
    "ftl.gc_mode=interleaved",
    "ftl.gc_block_unit=plane",
]
INTEL_PLAIN: dict[str, list[str]] = {
    "intel-x25e": [*_INTEL_CONTROLLER, "cache.mib=0"],
    "intel-dc-s3700": [*_INTEL_CONTROLLER, "cache.mib=8"],
    "intel-750": [*_INTEL_CONTROLLER, "cache.mib=512"],
}
