#!/usr/bin/env bash
# Reproduces the numbers in docs/amphibian.md (writes CSVs to $OUT).
# Needs the shared trace samples (FLASHSCHED_TRACES or ../shared/traces).
set -euo pipefail
T=${FLASHSCHED_TRACES:-$(dirname "$0")/../../shared/traces}
OUT=${OUT:-docs/amphibian-data}
mkdir -p "$OUT"
# These numbers were measured on the presets before they carried the
# controller model: flashsched.legacy.INTEL_PLAIN gives those devices back,
# written as resolved configs named after their presets (the device column
# is turned back into the preset name at the end).
PD=$(mktemp -d)
python - "$PD" <<'PY'
import subprocess, sys
from flashsched.legacy import INTEL_PLAIN
for name, sets in INTEL_PLAIN.items():
    args = [a for kv in sets for a in ("--set", kv)]
    out = subprocess.run(["flashsched", "config", name, *args], capture_output=True,
                         text=True, check=True).stdout
    open(f"{sys.argv[1]}/{name}.toml", "w").write(out)
PY
DEVS=$PD/intel-x25e.toml,$PD/intel-dc-s3700.toml,$PD/intel-750.toml
SCHEDS=noop,deadline,cfq,pardispatcher,amphibian
ABL=amphibian:gc_aware=false,amphibian:gc_aware=false:size_ordering=false,amphibian:gc_aware=false:type_queueing=false,amphibian:retry_ms=10,amphibian:gc_detect=oracle
TRACES=()
for f in msr/hm_0.first1000.csv msr/rsrch_0.first1000.csv msr/msr.cut.per_10k.most_thpt_rand_iops.1006.trace \
         msr/msr.cut.per_10k.rw_20_80.105.trace msr/msr.cut.per_10k.rw_40_60.1370.trace \
         ascii/websearch1.mqsim-ns.trace ascii/tpcc-small.mqsim-ns.trace ascii/ssdsim-example.ns.ascii \
         ascii/disksim-valid.ms.trace blkparse/fiu-mail-cheetah.first10000.blkparse; do
  TRACES+=(--trace "$T/$f")
done
# 1. Real trace samples, intensity x10, queue depth 16 (paper §IV-C).
flashsched compare "${TRACES[@]}" --intensity 10 --device $DEVS --queue-depth 16 \
  --host-sched $SCHEDS,$ABL --csv "$OUT/traces.csv" --plot "$OUT/traces-cdf.png" > "$OUT/traces.txt"
# 2. Table III profiles (synthetic), x10, Poisson and bursty arrivals.
for b in 1 16; do
  flashsched compare --profile all --profile-args "scale=10,n=50000,burst=$b" --device $DEVS \
    --queue-depth 16 --host-sched $SCHEDS,$ABL --csv "$OUT/profiles-burst$b.csv" > "$OUT/profiles-burst$b.txt"
done
# 3. Postmark-like closed loop (Fig. 8), queue length 16, then the Fig. 9 sweep.
flashsched compare --postmark files=500,tx=2000,qd=16 --device $DEVS --queue-depth 16 \
  --host-sched $SCHEDS,$ABL --csv "$OUT/postmark.csv" > "$OUT/postmark.txt"
for qd in 1 2 4 8 16 32 64; do
  flashsched compare --postmark files=500,tx=1000,qd=$qd --device $DEVS --queue-depth $qd \
    --host-sched noop,pardispatcher,amphibian --csv "$OUT/postmark-qd$qd.csv" > "$OUT/postmark-qd$qd.txt"
done
# 4. The GC-aware module under blocking GC (a victim's moves queued at once).
B=()
for f in msr/msr.cut.per_10k.rw_20_80.105.trace msr/msr.cut.per_10k.rw_40_60.1370.trace \
         ascii/tpcc-small.mqsim-ns.trace ascii/disksim-valid.ms.trace; do
  B+=(--trace "$T/$f")
done
flashsched compare "${B[@]}" --intensity 10 --device $PD/intel-x25e.toml,$PD/intel-dc-s3700.toml --queue-depth 16 \
  --set ftl.gc_move_window=0 \
  --host-sched noop,amphibian:gc_aware=false,amphibian,amphibian:retry_ms=10,amphibian:gc_detect=oracle \
  --csv "$OUT/blocking-gc.csv" > "$OUT/blocking-gc.txt"
sed -i "s#$PD/\([a-z0-9-]*\)\.toml#\1#g" "$OUT"/*.csv "$OUT"/*.txt
rm -rf "$PD"
