#!/usr/bin/env bash
# One batch of GPU work for the device machine: build there, run both ladders with the overhead
# benchmark, the GPU tests, and whatever extra steps are named. Everything lands in $OUT.
# The report's inputs: scripts/device_check.sh verify worst bench peers ladders extra wide decode sanitize
# stats sanitizebwd memcheck
# (then copy $OUT into reports/h200/ and run scripts/make_report).
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${OUT:-$root/out}"
mkdir -p "$out"
export LADDER_BUILD_DIR="$root/build-device" LADDER_CACHE_DIR="$root/.cache/ladder"
step() { echo "== $*"; }
# sanitize TOOL FILE LADDER_ARGS...: compute-sanitizer TOOL (racecheck, memcheck, synccheck) over one ladder
# command (children followed), its summary into $out/FILE.
sanitize() {
  local tool=$1 file=$2; shift 2
  timeout 170 compute-sanitizer --tool "$tool" --target-processes all --print-limit 5 "$bin" "$@" > /tmp/san.txt 2>&1
  { echo "exit $?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|rungs:|Hazard|Invalid|out of bounds|Program hit|Barrier error" /tmp/san.txt | sort | uniq -c; } | tee "$out/$file"
}
# sanitize_verify TOOL FILE TIMEOUT_S VERIFY_ARGS...: the same over `ladder verify` of the quick
# bf16 grid.
sanitize_verify() {
  local tool=$1 file=$2 limit=$3; shift 3
  sanitize "$tool" "$file" verify "$@" --dtype bf16 --quick --no-fixtures --jobs 8 --timeout "$limit"
}
if [ "${SKIP_BUILD:-0}" = 1 ]; then
  step "using the carried binary only (no build here)"
  bin="$root/.device/ladder"
elif [ "${BUILD_IN_BACKGROUND:-0}" = 1 ]; then
  # The carried binary runs the GPU work while the device's own toolchain builds beside it.
  step "build on the device machine, in the background"
  ( { time "$root/scripts/build"; } > /tmp/build.txt 2>&1 ) &
  build_pid=$!
  bin="$root/.device/ladder"
else
  step "build on the device machine"
  { time "$root/scripts/build"; } > /tmp/build.txt 2>&1
  grep -E "error|Error|real" /tmp/build.txt | head -20
  bin="$LADDER_BUILD_DIR/ladder"
  if [ ! -x "$bin" ]; then
    echo "device build failed; using the carried binary"
    bin="$root/.device/ladder"
  fi
fi
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1
for s in "$@"; do
  case "$s" in
    carried) step "the binary built on the CPU machine, carried here"
             "$root/.device/ladder" run --compile-only p0_three_buffers 2>&1 | tail -3
             "$root/.device/ladder" run p0_three_buffers 2>&1 | tail -3 ;;
    ladders) step "both ladders, cold cache, overhead benchmark"
             rm -rf "$LADDER_CACHE_DIR"
             "$bin" run --json /tmp/run-cold.json > /tmp/run-cold.txt 2>&1; echo "exit $?"
             step "the H200 lowering ladder alone, warm cache, overhead benchmark"
             "$bin" run --ladder "$root/probes/ladder.json" --json "$out/ladder.json" --measure-overhead 12 2>&1 | tail -3
             step "both ladders, warm cache"
             "$bin" run --json "$out/run.json" --measure-overhead 12 2>&1 | tail -30; echo "exit ${PIPESTATUS[0]}" ;;
    tests)   step "ctest (gpu label included)"
             (cd "$LADDER_BUILD_DIR" && ctest --output-on-failure 2>&1 | tail -15) ;;
    verify)  step "verify"
             "$bin" verify --jobs 12 --json "$out/verify.json" > "$out/verify.txt" 2>&1; echo "exit $?"; grep -E "FAIL|UNRESOLVED|XPASS|rungs:" "$out/verify.txt" | head -40 ;;
    verifyq) step "verify --quick"
             "$bin" verify --quick --jobs 12 --json "$out/verify.json" > /tmp/verify.txt 2>&1; echo "exit $?"; grep -E "FAIL|UNRESOLVED|XPASS|rungs:" "$out/verify.txt" | head -40 ;;
    bench)   step "bench"
             "$bin" bench --json "$out/bench.json" 2>&1 ;;
    peers)   step "peers"
             timeout "${PEERS_TIMEOUT:-240}" python3 "$root/scripts/bench_peers.py" --json "$out/peers.json" > /tmp/peers.txt 2>&1; echo "exit $?"; tail -30 /tmp/peers.txt ;;
    fixtures) step "FLA Triton fixture columns (one op at a time, each time-boxed)"
             python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site "$root"/.whl/*.whl && export PYTHONPATH=/tmp/site
             mkdir -p "$out/gpu"
             for op in rmsnorm add_rmsnorm layernorm; do
               PYTHONUNBUFFERED=1 timeout 200 python3 "$root/scripts/gen_fixtures.py" --gpu --ops "$op" --out-dir "$out/gpu" 2>&1 | grep -v Warning | tail -3
             done ;;
    sweep)   step "bench sweeps of ITEMS (every op) and rows per block (forward): tuning data"
             for op in rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd; do
               for dt in bf16 f32; do for items in 1 2 3 4 8; do
                 "$bin" bench "$op" --dtype $dt --shape 16384x4096 --shape 8192x2049 --shape 4096x16384 \
                   --variant items=$items 2>&1 | grep " ladder" | sed "s/^/items=$items /"
               done; done
             done > "$out/sweep-items.txt"
             for op in rmsnorm add_rmsnorm layernorm; do for dt in bf16 f32; do for rpb in 1 2 4; do
               "$bin" bench "$op" --dtype $dt --shape 16384x4096 --shape 65536x1024 --variant rpb=$rpb \
                 2>&1 | grep " ladder" | sed "s/^/rpb=$rpb /"
             done; done; done > "$out/sweep-rpb.txt"
             awk '{print $1, $2, $3, $4, $5, $NF}' "$out/sweep-items.txt" "$out/sweep-rpb.txt" ;;
    unit)    step "unit tests built by the device's own toolchain (Catch2 v3)"
             [ -n "${build_pid:-}" ] && wait "$build_pid"
             grep -E "error|real" /tmp/build.txt | head -10
             "$LADDER_BUILD_DIR/ladder_tests" "[manifest],[coverage],[expr],[verdict],[half],[tolerance],[isolation],[fixtures]" 2>&1 | tail -3 ;;
    racecheck) step "compute-sanitizer racecheck on p9 (small shape) and p5"
             compute-sanitizer --tool racecheck "$bin" __selftest-child ok >/dev/null 2>&1
             for r in p5_tree_reduction p9_tree_no_barrier; do
               compute-sanitizer --tool racecheck --target-processes all "$bin" run --timeout 120 "$r" 2>&1 | grep -E "RACECHECK SUMMARY|hazard|verdict|PASS|XFAIL|FAIL" | head -8
             done ;;
    extra)   step "bench beside the default list: rows off the grid, wide rows, f16 (bench-extra.txt)"
             { "$bin" bench rmsnorm add_rmsnorm --dtype f32 --shape 16384x2049 --shape 8192x2049 --shape 4096x16384
               "$bin" bench rmsnorm add_rmsnorm --dtype f16 --shape 16384x4096 --shape 4096x16384 --shape 2048x32768 --shape 512x32768
               "$bin" bench rmsnorm --dtype bf16 --shape 512x32768 --shape 4096x32768; } > "$out/bench-extra.txt" 2>&1
             grep -E " ladder " "$out/bench-extra.txt" ;;
    schedules) step "rmsnorm: register kernel against two and four rows a thread (sweep-rows.txt)"
             for rep in 1 2; do for sc in regs rows2 rows4; do for dt in bf16 f16 f32; do
               "$bin" bench rmsnorm --dtype $dt --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 \
                 --shape 4096x16384 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
             done; done; done | tee "$out/sweep-rows.txt" ;;
    decode)  step "Nsight Compute kernel time of the decode row, caches flushed and not (ncu-decode.txt)"
             for op in rmsnorm add_rmsnorm; do for cc in all none; do
               echo "## $op 1x4096 bf16, --cache-control $cc (all: flushed before each profiled launch; none: not)"
               timeout 60 ncu --target-processes all --clock-control none --cache-control $cc \
                 --metrics gpu__time_duration.sum --launch-skip 2 --launch-count 8 -k regex:"^${op}_fwd" \
                 "$bin" bench $op --dtype bf16 --shape 1x4096 --iters 20 2>&1 | grep gpu__time_duration | awk '{print $NF}' | tr '\n' ' '
               echo
             done; done | tee "$out/ncu-decode.txt" ;;
    wide)    step "schedule=wide (auto) against the kernel auto took before it, two repeats (bench-wide.txt)"
             for rep in 1 2; do
               for dt in bf16 f16; do for sc in auto regs; do
                 "$bin" bench rmsnorm --dtype $dt --shape 4096x16384 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
               done; for sc in auto staged; do
                 "$bin" bench add_rmsnorm --dtype $dt --shape 4096x16384 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
               done; done
               for sc in auto regs; do
                 "$bin" bench layernorm --dtype f32 --shape 16384x4096 --shape 8192x8192 --variant schedule=$sc 2>&1 | grep " ladder" | sed "s/^/$sc /"
               done
             done | tee "$out/bench-wide.txt" ;;
    stats)   step "layernorm_bwd with saved statistics against recomputing them, two repeats (bench-bwd.txt)"
             for rep in 1 2; do for st in saved recompute; do for dt in bf16 f16 f32; do
               "$bin" bench layernorm_bwd --dtype $dt --shape 16384x4096 --shape 8192x2049 --shape 4096x8192 \
                 --shape 65536x1024 --variant stats=$st 2>&1 | grep " ladder" | sed "s/^/$st /"
             done; done; done | tee "$out/bench-bwd.txt" ;;
    sanitizebwd) step "compute-sanitizer racecheck over the layernorm and backward bf16 rungs (sanitizer-bwd.txt)"
             sanitize_verify racecheck sanitizer-bwd.txt 140 layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd ;;
    worst)   step "the worst-error tables of the verify step's document (verify-worst.txt)"
             "$bin" verify --worst-from "$out/verify.json" | tee "$out/verify-worst.txt" ;;
    memcheck) step "memcheck shown red: a rung that reads one element past its input, bare allocations (memcheck-red.txt)"
             sanitize memcheck memcheck-red.txt run --bare-allocations --ladder "$root/probes/memcheck_demo.json" --timeout 60
             step "memcheck over the forward bf16 rungs, bare allocations: no read or write outside a tensor (memcheck-forward.txt)"
             sanitize_verify memcheck memcheck-forward.txt 140 rmsnorm add_rmsnorm layernorm --bare-allocations
             step "memcheck over the backward bf16 rungs, bare allocations (memcheck-backward.txt)"
             sanitize_verify memcheck memcheck-backward.txt 140 rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd --bare-allocations ;;
    synccheck) step "synccheck shown red: a warp split over two barriers (reported) and an early return before one (not reported), in kernels that pass every value check (synccheck-red.txt)"
             sanitize synccheck synccheck-red.txt run --ladder "$root/probes/synccheck_demo.json" --timeout 60
             step "synccheck over every op's bf16 rungs (synccheck-ops.txt)"
             sanitize_verify synccheck synccheck-ops.txt 140 rmsnorm add_rmsnorm layernorm rmsnorm_bwd add_rmsnorm_bwd layernorm_bwd ;;
    sanitize) step "compute-sanitizer racecheck over the forward bf16 rungs, staged and wide included (sanitizer-wide.txt)"
             sanitize_verify racecheck sanitizer-wide.txt 120 rmsnorm add_rmsnorm layernorm ;;
  esac
done
