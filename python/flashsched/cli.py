"""The ``flashsched`` command line: one parser, one sub-command module each
(``flashsched/commands/``), and one place where errors become a one-line
message and exit status 2 (never a traceback)."""

from __future__ import annotations

import argparse
import atexit
import gc
import os
import sys
import threading
from collections.abc import Sequence

from flashsched import _core
from flashsched.commands import args as A
from flashsched.exceptions import FlashschedError

EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a killed writer


def describe_build(pgo: str | None) -> str:
    """A build as reports name it, from its ``BUILD_PGO``."""
    return f"PGO profile {pgo}" if pgo else "no PGO profile"


def build_note() -> str:
    """How this extension was built: its PGO profile, or that it has none."""
    return describe_build(getattr(_core, "BUILD_PGO", None))


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given the arguments, only the command they name is built
    (the full parser when they name none, e.g. ``--help``)."""
    p = argparse.ArgumentParser(
        prog="flashsched",
        description="Trace-driven flash SSD simulator for evaluating I/O schedulers.",
        formatter_class=A.HelpFormatter,
    )
    p.add_argument(
        "--version",
        action="version",
        version=f"flashsched {_core.__version__} ({build_note()})",
        help="print the version and exit",
    )
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    from flashsched.commands import register_all

    register_all(sub, argv[0] if argv else None)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    # numpy's OpenBLAS starts a thread per core at import that spins for a
    # while (~4 % of a `run --out`'s samples) on the core the trace reader
    # and the Parquet writer share; nothing here does BLAS work that needs
    # them, and sweep workers inherit one thread each (no oversubscription).
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser(words).parse_args(words)
    try:
        return int(args.func(args))
    except BrokenPipeError:
        # stdout's reader went away (`flashsched presets | head`): stop
        # quietly; point stdout at /dev/null so the exit flush cannot fail.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except (FlashschedError, OSError) as e:
        print(f"flashsched: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("flashsched: interrupted", file=sys.stderr)
        return 130


def script_main() -> int:
    """The entry point of the ``flashsched`` script and ``python -m
    flashsched``: :func:`main`, in a process that ends when it returns."""
    code = main()
    # Python's exit first runs its cycle collector over every object still
    # tracked (with pyarrow loaded, ~20 ms of a one-second `run --out`,
    # walking objects the exit frees anyway). Frozen objects are skipped.
    # Not in `main`, which tests call in-process.
    gc.freeze()
    _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """End the process with ``code`` without the interpreter's teardown:
    freeing every module and object (pyarrow's and numpy's included) took
    ~9 ms of a one-second `run --out` after the collection above
    (BENCHMARKS.md, session 51). What an exit must still do is done first:
    the atexit handlers run (``weakref.finalize`` cleanups, logging's
    flush) and stdout and stderr are flushed. Every file the package writes
    is closed by a ``with`` block before `main` returns. While a thread
    that an exit would wait for is still running, the ordinary exit is
    taken, as it is under an instrumented build (``LLVM_PROFILE_FILE``:
    the PGO training), whose counts are written by a C exit handler that
    ``os._exit`` would skip."""
    if "LLVM_PROFILE_FILE" in os.environ:
        return
    main_thread = threading.main_thread()
    if any(t is not main_thread and not t.daemon for t in threading.enumerate()):
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        # The reader went away after `main` wrote its last line.
        code = code or EXIT_BROKEN_PIPE
    except OSError:
        code = code or 2  # output lost (a full disk): not a success
    os._exit(code)


if __name__ == "__main__":
    sys.exit(script_main())
