#!/bin/sh
# Build the libFuzzer targets without cargo-fuzz (same instrumentation as
# `cargo fuzz build -O --debug-assertions` minus ASan, which safe Rust does
# not need). With cargo-fuzz installed, `cargo +nightly fuzz run <target>`
# works as well. Binaries: $CARGO_TARGET_DIR/<host triple>/release/<target>.
set -e
cd "$(dirname "$0")"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
# --target keeps the flags off build scripts and proc macros.
exec cargo +nightly build --release --bins --target "$(rustc -vV | sed -n "s/host: //p")" "$@"
