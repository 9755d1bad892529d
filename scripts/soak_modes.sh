#!/usr/bin/env bash
# Soak of the --check oracle: every host scheduler × every device scheduler ×
# every controller mode (GC mode, busy unit, multi-plane, cache policy, host
# interface), REQS requests per combination (default 2000: 5292 × 2000 =
# 10.6 M requests). Runs at low priority; the log goes to $LOG (default
# soak_modes.log) and the last line is the summary. See docs/reliability.md.
#
#   scripts/soak_modes.sh                 # the full soak (minutes)
#   REQS=5000 scripts/soak_modes.sh       # longer
#   FLASHSCHED_MODE_SOAK_ONLY=1234 scripts/soak_modes.sh   # rerun one combination
set -euo pipefail
cd "$(dirname "$0")/.."
LOG=${LOG:-soak_modes.log}
export FLASHSCHED_MODE_SOAK_REQS=${REQS:-2000}
export FLASHSCHED_MODE_SOAK_STRIDE=${STRIDE:-1}
nice -n 19 cargo test --release -p flashsched-core --test soak_modes -- --nocapture 2>&1 | tee "$LOG"
