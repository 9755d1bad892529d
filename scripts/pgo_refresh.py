#!/usr/bin/env python3
"""Train the PGO profile ``pip install .`` builds with (``pgo/``).

Builds the extension instrumented (``-Cprofile-generate``, the build
backend's profile off), installs it into a scratch virtual environment that
sees this environment's packages, runs the training workloads below through
the ``flashsched`` command line, merges the counts with the toolchain's
``llvm-profdata`` (``rustup component add llvm-tools``) and writes
``pgo/flashsched.profdata.xz`` and ``pgo/profile.json``.

The training runs every part users run, not only the benchmarks' hot path:
a function that never ran in training is laid out as cold and built for
size, so it would run slower than without a profile. Hence all five quick
reproductions (every host and device scheduler, arrays, the real-trace
readers), the peer validation cases (MQSim and SSDsim modes), the bench
cases (GC, preconditioning, arrays), every trace reader, and the three
``bench --versus`` cases at reduced size. Runs are in-process
(``--workers 1``): a pool worker leaves with ``os._exit`` and would never
write its counts.

Refresh after changing hot code (a changed function loses its profile and
is built as without one) or the toolchain; BENCHMARKS.md records which
profile each measurement used. Takes ~4 min on 2 cores (~2 min when the
instrumented build is still in `target/pgo-generate`).

    python scripts/pgo_refresh.py [--traces DIR] [--keep DIR]
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import lzma
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "pgo"
sys.path.insert(0, str(ROOT / "build_backend"))
from flashsched_build import rustc_info, sources_digest  # noqa: E402


def sh(cmd: list[str], **kw: object) -> str:
    print("+", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, check=True, text=True, stdout=subprocess.PIPE, **kw)  # type: ignore[call-overload]
    return str(r.stdout)


def llvm_profdata(host: str) -> Path:
    sysroot = sh(["rustc", "--print", "sysroot"]).strip()
    tool = Path(sysroot) / "lib" / "rustlib" / host / "bin" / "llvm-profdata"
    if not tool.is_file():
        sys.exit(
            f"pgo_refresh: {tool} not found; install it with `rustup component add llvm-tools` "
            "(it must be the toolchain's own: another LLVM cannot read rustc's counts)"
        )
    return tool


# The three `bench --versus` cases, run as that command runs flashsched
# (the peer's base settings plus the case's), at reduced size.
VERSUS = """
import subprocess, sys
from pathlib import Path
from flashsched import bench_peers as b
from flashsched.validate import cases as v
work, traces = Path(sys.argv[1]), Path(sys.argv[2])
inputs = {
    "mqsim-trace-1m": b.random_trace(work, None, 300_000),
    "ssdsim-x100": b.ssdsim_example_x100(work, traces),
    "mqsim-gc-2.4m": None,
}
for name, trace in inputs.items():
    case, cmd = b.CASES[name], [sys.executable, "-m", "flashsched", "run"]
    base = v.load(case.peer)
    cmd += ["--device", base.device]
    for o in [*base.overrides, *case.overrides]:
        cmd += ["--set", o]
    ours = list(case.ours)
    if trace is None:
        ours[-1] = ours[-1].replace("n=2400000", "n=400000")
    else:
        cmd += ["--trace", str(trace)]
    subprocess.run([*cmd, *ours, "--no-progress"], check=True, stdout=subprocess.DEVNULL)
"""


# How much more the `--versus` cases' counts weigh than the other steps'.
VERSUS_WEIGHT = 4


def training(py: str, work: Path, traces: Path) -> list[list[str]]:
    """The commands that train the profile, run with the instrumented build."""
    fs = [py, "-m", "flashsched"]
    out = str(work / "out")
    cmds = [[py, "-c", VERSUS, str(work), str(traces)]]
    for paper in ("foundation", "amphibian", "aos", "vios", "serial-array"):
        cmds.append(
            [*fs, "reproduce", paper, "--quick", "--workers", "1", "--traces", str(traces)]
            + ["--out", f"{out}/{paper}", "--no-progress"]
        )
    cmds.append([*fs, "validate", "--traces", str(traces)])
    # The oracle and audits of --check, and per-request records to Parquet.
    cmds.append([*fs, "run", "--check", "--synthetic", "read=0.5,bs=4k-64k,n=100000"])
    cmds[-1] += ["--device", "mqsim-default", "--no-progress"]
    cmds.append([*fs, "run", "--trace", str(traces / "msr" / "hm_0.first1000.csv")])
    cmds[-1] += ["--intensity", "10", "--out", str(work / "records"), "--no-progress"]
    cmds.append([*fs, "bench", "--requests", "200000"])
    cmds.append([*fs, "bench", "--parse", "--parse-lines", "200000"])
    cmds[-1] += ["--parse-dir", str(work / "parse")]
    return cmds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--traces",
        type=Path,
        default=Path(os.environ.get("FLASHSCHED_TRACES") or ROOT.parent / "shared" / "traces"),
    )
    ap.add_argument("--keep", type=Path, help="work here and keep it (default: a temp dir)")
    args = ap.parse_args()
    if not (args.traces / "ascii").is_dir():
        sys.exit(
            f"pgo_refresh: the sample traces are needed for training: {args.traces} "
            "(--traces DIR or FLASHSCHED_TRACES)"
        )
    info = rustc_info()
    profdata = llvm_profdata(info["host"])
    t0 = time.monotonic()
    sources = sources_digest(ROOT)
    with tempfile.TemporaryDirectory(prefix="flashsched-pgo-") as tmp:
        work = args.keep or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        raw, wheels = work / "raw", work / "wheel"
        # Old results would be reused (a reproduction keeps its runs) and
        # train nothing.
        for d in (raw, wheels, work / "out", work / "records"):
            shutil.rmtree(d, ignore_errors=True)
        env = {
            **os.environ,
            "FLASHSCHED_PGO": "0",
            "CARGO_ENCODED_RUSTFLAGS": f"-Cprofile-generate={work / 'build-raw'}",
            "CARGO_TARGET_DIR": str(ROOT / "target" / "pgo-generate"),
        }
        env.pop("RUSTFLAGS", None)
        sh(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT)],
            env=env,
        )
        (wheel,) = wheels.glob("flashsched-*.whl")
        venv = work / "venv"
        if not venv.exists():
            sh([sys.executable, "-m", "venv", str(venv)])
        py = str(venv / "bin" / "python")
        site = sh([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip()
        # This environment's packages (numpy, pandas, ...) behind the venv's own.
        Path(site, "outer.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        sh([py, "-m", "pip", "install", "-q", "--no-deps", "--force-reinstall", str(wheel)])
        train_env = {
            k: v for k, v in os.environ.items() if k not in ("FLASHSCHED_PGO", "PYTHONPATH")
        }
        train_env["LLVM_PROFILE_FILE"] = str(raw / "flashsched-%p-%m.profraw")
        # Steps that find the sample traces themselves (`bench --parse`)
        # run in the work dir, where the default relative path is wrong.
        train_env["FLASHSCHED_TRACES"] = str(args.traces.resolve())
        cmds = training(py, work, args.traces)
        for i, cmd in enumerate(cmds):
            # The `bench --versus` cases (the first step) are what users
            # time against the peers: their counts are weighted up at the
            # merge, so inlining and code layout lean towards them. (Not
            # measured to matter: the 12 % `ssdsim-x100` lost in session
            # 51 was these steps writing no counts at all, the CLI's fast
            # exit skipping the profile's exit handler; BENCHMARKS.md.)
            prefix = "versus" if i == 0 else "flashsched"
            step_env = {**train_env, "LLVM_PROFILE_FILE": str(raw / f"{prefix}-%p-%m.profraw")}
            try:
                sh(cmd, env=step_env, cwd=work)
            except subprocess.CalledProcessError as e:
                sys.exit(
                    f"pgo_refresh: a training step failed (exit {e.returncode}); no profile written"
                )
        files = sorted(str(p) for p in raw.glob("*.profraw"))
        if not files:
            sys.exit("pgo_refresh: the training wrote no counts")
        merged = work / "merged.profdata"
        inputs = [
            f"--weighted-input={VERSUS_WEIGHT},{f}" if Path(f).name.startswith("versus-") else f
            for f in files
        ]
        sh([str(profdata), "merge", "-o", str(merged), *inputs])
        data = merged.read_bytes()
    commit = sh(["git", "-C", str(ROOT), "rev-parse", "HEAD"]).strip()
    dirty = bool(sh(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"]))
    OUT.mkdir(exist_ok=True)
    (OUT / "flashsched.profdata.xz").write_bytes(lzma.compress(data, preset=9))
    meta = {
        "rustc": info["release"],
        "llvm": info.get("LLVM version", "?"),
        "commit": commit + ("+changes" if dirty else ""),
        "trained": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "sha256": hashlib.sha256(data).hexdigest(),
        # The build backend compares this with the sources it builds.
        "sources": sources,
        "processes": len(files),
        "training": [
            " ".join(c[1:] if c[1] != "-c" else ["(the --versus cases)"])
            .replace(str(work), "WORK")
            .replace(str(args.traces), "TRACES")
            for c in cmds
        ],
    }
    (OUT / "profile.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(
        f"pgo_refresh: wrote {OUT}/ ({len(data) / 1e6:.1f} MB raw, {len(files)} processes) "
        f"in {time.monotonic() - t0:.0f} s; rebuild with `pip install .`"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
