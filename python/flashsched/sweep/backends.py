"""Where sweep runs execute: a local process pool (default) or a Ray cluster.

Both call :func:`flashsched.sweep.runs.execute` on each task and hand every
result, as soon as it arrives, to ``on_result`` in the driver (which writes it
atomically), so an interrupted sweep keeps everything that finished. A failed
run does not stop the others; failures are collected and returned.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from flashsched.sweep.lifeline import tie_to_parent
from flashsched.sweep.runs import execute

Task = dict[str, Any]
OnResult = Callable[[dict[str, Any]], None]
Failures = list[tuple[str, str]]  # (key, error message)

BACKENDS = ("local", "ray")


def default_workers() -> int:
    """One worker per available core."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _bar(total: int, progress: bool | None, desc: str) -> Any:
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit="run",
        disable=None if progress is None else not progress,
        smoothing=0.1,
        dynamic_ncols=True,
    )


def _describe(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def run_local(
    tasks: Sequence[Task],
    on_result: OnResult,
    workers: int | None = None,
    progress: bool | None = None,
    desc: str = "sweep",
) -> Failures:
    """Execute ``tasks`` on ``workers`` processes (1 = in this process)."""
    n = min(workers or default_workers(), max(len(tasks), 1))
    if n <= 1:
        return _run_inline(tasks, on_result, progress, desc)
    failures: Failures = []
    # Fork where available (no re-import of __main__, so scripts without a
    # main guard work); the pool is created before tqdm starts its thread.
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    # Workers exit if this process dies (SIGKILL included): sweep/lifeline.py.
    with ProcessPoolExecutor(
        max_workers=n, mp_context=ctx, initializer=tie_to_parent, initargs=(os.getpid(),)
    ) as pool:
        pending: dict[Future[dict[str, Any]], Task] = {pool.submit(execute, t): t for t in tasks}
        with _bar(len(tasks), progress, desc) as bar:
            try:
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for f in done:
                        t = pending.pop(f)
                        try:
                            result = f.result()
                        except BrokenProcessPool:
                            raise
                        except Exception as e:  # noqa: BLE001 - reported per run
                            failures.append((t["key"], _describe(e)))
                        else:
                            on_result(result)
                        bar.update(1)
            except BaseException:
                for f in pending:
                    f.cancel()
                raise
    return failures


def _run_inline(
    tasks: Sequence[Task], on_result: OnResult, progress: bool | None, desc: str
) -> Failures:
    failures: Failures = []
    with _bar(len(tasks), progress, desc) as bar:
        for t in tasks:
            try:
                result = execute(t)
            except Exception as e:  # noqa: BLE001 - reported per run
                failures.append((t["key"], _describe(e)))
            else:
                on_result(result)
            bar.update(1)
    return failures


def run_ray(
    tasks: Sequence[Task],
    on_result: OnResult,
    address: str | None = None,
    progress: bool | None = None,
    desc: str = "sweep (ray)",
) -> Failures:
    """Execute ``tasks`` as Ray remote functions. ``address`` is a cluster
    address (``ray://host:10001`` or ``auto``); without it Ray starts (or
    joins) a local instance. Every node needs flashsched installed, and trace
    paths must be readable on the nodes (a shared filesystem)."""
    try:
        import ray
    except ImportError as e:
        raise ImportError("the ray backend needs Ray: pip install 'flashsched[ray]'") from e
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, ignore_reinit_error=True, log_to_driver=False)
    remote = ray.remote(execute)
    failures: Failures = []
    refs = {remote.remote(t): t for t in tasks}
    try:
        with _bar(len(tasks), progress, desc) as bar:
            while refs:
                done, _ = ray.wait(list(refs), num_returns=1)
                for ref in done:
                    t = refs.pop(ref)
                    try:
                        result = ray.get(ref)
                    except Exception as e:  # noqa: BLE001 - reported per run
                        failures.append((t["key"], _describe(e)))
                    else:
                        on_result(result)
                    bar.update(1)
    except BaseException:
        for ref in refs:
            ray.cancel(ref, force=True)
        raise
    finally:
        if started:
            ray.shutdown()
    return failures
