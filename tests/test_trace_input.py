"""Traces as users have them, from Python and the CLI: compressed files and
standard input, the published cloud formats, column mappings (text and
TOML), other encodings and line endings, and detection that refuses to
guess. The readers themselves are tested in Rust (tests/trace_input.rs,
tests/trace_formats.rs); these check what the bindings and the CLI expose."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import shutil
import subprocess
import sys
from pathlib import Path

import flashsched
import pytest
from flashsched import _core

DEVICE = "ssdsim-default"
# Alibaba block trace lines: device, R/W, offset B, length B, time us.
ALIBABA = "".join(
    f"{i % 3},{'RW'[i % 2]},{(i * 7919 % 5000) * 4096},{4096 * (1 + i % 4)},"
    f"{1577808000000000 + i * 250}\n"
    for i in range(400)
)


def _compressors() -> dict[str, object]:
    out: dict[str, object] = {
        "gz": gzip.compress,
        "xz": lzma.compress,
        "bz2": bz2.compress,
    }
    if shutil.which("zstd"):
        out["zst"] = lambda data: (
            subprocess.run(["zstd", "-q", "-c"], input=data, capture_output=True, check=True).stdout
        )
    return out


@pytest.mark.parametrize("ext", sorted(_compressors()))
def test_compressed_trace_reads_like_plain(tmp_path: Path, ext: str) -> None:
    plain = tmp_path / "a.csv"
    plain.write_text(ALIBABA)
    packed = tmp_path / f"a.csv.{ext}"
    packed.write_bytes(_compressors()[ext](ALIBABA.encode()))  # type: ignore[operator]
    want = _core.scan_trace(plain)
    got = _core.scan_trace(packed)
    assert want["format"] == got["format"] == "alibaba"
    assert got["records"] == want["records"] == 400
    name = {"gz": "gzip", "xz": "xz", "bz2": "bzip2", "zst": "zstd"}[ext]
    assert got["decoding"] == [f"{name}-decompressed"]
    a = flashsched.run(trace=plain, device=DEVICE).summary
    b = flashsched.run(trace=packed, device=DEVICE).summary
    for key in ("requests", "reads", "bytes_written", "latency_us"):
        assert a[key] == b[key], key
    assert b["input"]["decoding"] == [f"{name}-decompressed"]


def test_cli_reads_a_gzipped_trace_from_stdin(tmp_path: Path) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "flashsched",
            "run",
            "--trace",
            "-",
            "--device",
            DEVICE,
            "--json",
            "-",
        ],
        input=gzip.compress(ALIBABA.encode()),
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    s = json.loads(proc.stdout)
    assert s["requests"] == 400
    assert s["input"]["decoding"] == ["gzip-decompressed"]
    assert "<stdin> (alibaba" in s["workload"]


def test_stdin_errors_name_stdin(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "flashsched", "run", "--trace", "-", "--device", DEVICE],
        input=b"3,W,4096,8192,1577808000000000\n3,X,0,4096,1577808000000250\n",
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "<stdin>:2: field 2 (opcode): expected `R` or `W`" in proc.stderr.decode()


def test_column_mapping_text_and_toml(tmp_path: Path) -> None:
    trace = tmp_path / "t.txt"
    trace.write_text("time;op;off;len\n0.5;R;0;8\n1.5;W;8;16\n2.5;r;24;8\n")
    spec = "csv:time=0:ms,op=1:R/W,offset=2:sector,size=3:sector,skip=1,sep=semicolon"
    res = flashsched.run(trace=trace, format=spec, device=DEVICE)
    s = res.summary
    assert (s["reads"], s["writes"], s["bytes_written"]) == (2, 1, 16 * 512)
    assert spec in s["workload"]
    arrivals = res.requests["arrival_ns"].tolist()
    assert arrivals == [0, 1_000_000, 2_000_000]
    mapping = tmp_path / "map.toml"
    mapping.write_text(
        'sep = "semicolon"\nskip = 1\n'
        'time = { column = 0, unit = "ms" }\n'
        'op = { column = 1, read = "R", write = "W" }\n'
        'offset = { column = 2, unit = "sector" }\n'
        'size = { column = 3, unit = "sector" }\n'
    )
    s2 = flashsched.run(trace=trace, format=str(mapping), device=DEVICE).summary
    for key in ("requests", "reads", "bytes_written", "latency_us"):
        assert s2[key] == s[key], key
    with pytest.raises(flashsched.ConfigError, match=r"column mapping: `size` is required"):
        flashsched.run(trace=trace, format="csv:time=0:ms,op=1:R/W,offset=2:B", device=DEVICE)


def test_encodings_and_line_endings(tmp_path: Path) -> None:
    lines = [
        f"{128166385295514663 + i * 10_000},hm,0,Write,{i * 4096},4096,2833" for i in range(50)
    ]
    text = "\n".join(lines) + "\n"
    cases = {
        "cr.csv": (text.replace("\n", "\r").encode(), ["CR line endings"]),
        "bom.csv": (b"\xef\xbb\xbf" + text.encode(), ["UTF-8 BOM skipped"]),
        "u16.csv": (text.encode("utf-16"), ["UTF-16LE (BOM) transcoded"]),
        "u16be.csv": (text.encode("utf-16-be"), ["UTF-16BE (no BOM) transcoded"]),
    }
    for name, (data, notes) in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        st = _core.scan_trace(p)
        assert (st["format"], st["records"], st["decoding"]) == ("msr", 50, notes), name


def test_detection_refuses_to_guess(tmp_path: Path) -> None:
    p = tmp_path / "cut.trace"
    p.write_text("0.5 0 4096 4096 1\n1.5 0 8192 4096 0\n2.5 0 8192 1000 0\n3.5 0 0 8192 1\n")
    with pytest.raises(flashsched.TraceError, match="--format ascii-ms or --format heimdall"):
        flashsched.run(trace=p, device=DEVICE)
    assert flashsched.run(trace=p, format="heimdall", device=DEVICE).summary["requests"] == 4


def test_reject_accepts_equal_times(tmp_path: Path) -> None:
    p = tmp_path / "eq.trace"
    p.write_text("0 0 0 4096 1\n0 0 4096 4096 1\n1 0 0 4096 0\n1 0 0 4096 1\n")
    s = flashsched.run(trace=p, format="heimdall", device=DEVICE, time_order="reject").summary
    assert (s["requests"], s["input"]["clamped"], s["input"]["time_order"]) == (4, 0, "reject")


def test_formats_and_help_list_every_format(run_cli) -> None:
    out = run_cli("formats", check=True).stdout
    for name in ("systor", "alibaba", "tencent", "vscsi", "cloudphysics", "csv", "heimdall"):
        assert f"\n{name} " in out, name
    assert "gzip" in out and "'-'" in out
    help_text = " ".join(run_cli("run", "--help", check=True).stdout.split())
    for needle in ("systor", "tencent", "csv:time=0:ms", "FILE.toml", "'-' = standard input"):
        assert needle in help_text, needle
    assert "auto = sort for blkparse" in help_text
    # The help's list (kept out of the native module for start-up time) is
    # the core's registry.
    from flashsched.commands.args import TRACE_FORMATS

    assert [name for name, _ in _core.formats() if name != "csv"] == TRACE_FORMATS


def test_stdin_warns_that_ssdsims_prepass_cannot_run(tmp_path: Path) -> None:
    """SSDsim's trace pre-pass (``ftl.update_reads = "ssdsim"``) needs the
    trace twice: from standard input the run goes on with each read marking
    its sectors when submitted, and says so (only in that mode)."""

    def run(*extra: str) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            [sys.executable, "-m", "flashsched", "run", "--trace", "-", "--device", DEVICE]
            + list(extra),
            input=ALIBABA.encode(),
            capture_output=True,
            cwd=tmp_path,
            timeout=120,
        )

    proc = run()
    assert proc.returncode == 0, proc.stderr.decode()
    assert "pre-pass" in proc.stderr.decode()
    proc = run("--set", "ftl.update_reads=mqsim")
    assert proc.returncode == 0, proc.stderr.decode()
    assert "pre-pass" not in proc.stderr.decode()
