#!/bin/bash
# Call 152: LayerNorm's register kernel at narrow rows by rows a block, and LayerNorm of two rows a
# thread. Call 151 measured LayerNorm bf16 65536x1024 at 73.7-73.9 us with one or two rows a block
# (rpb=1|2) against auto's eight (75.5-75.6). Part 1 (one binary, two repeats, cold): rows a block
# for the register kernels at one warp a row (LayerNorm, RMSNorm, add_rmsnorm at d = 768 and 1024),
# and layernorm_fwd_rows (schedule=rows2|rows4, ITEMS 1: 64 registers without spills at two rows)
# at d = 1024 in every dtype. Part 2: ladder verify layernorm on this binary (rows2 and rows4 among
# its variants). Part 3 (call 152 as prepared in the previous round): Nsight Compute of the
# streamed LayerNorm beside torch.compile's at bf16 4096x16384 with clean caches and stall reasons.
set -u
B=$PWD/.device/ladder
export LADDER_COMMIT=${LADDER_COMMIT:?} LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
K=$PWD/kernels
b() { local tag=$1; shift; LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc timeout 60 $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
{ for rep in 1 2; do
    for dt in bf16 f16 f32; do
      S="layernorm --dtype $dt --shape 65536x1024"
      b auto $S
      for r in 1 2 4; do b rpb$r $S --variant schedule=regs --variant rpb=$r; done
      b rows2 $S --variant schedule=rows2
      b rows2-rpb2 $S --variant schedule=rows2 --variant rpb=2
      b rows4 $S --variant schedule=rows4
    done
    for spec in "layernorm --dtype bf16 --shape 65536x768" "rmsnorm --dtype bf16 --shape 65536x768" "add_rmsnorm --dtype bf16 --shape 65536x768" "add_rmsnorm --dtype bf16 --shape 65536x1024" "layernorm --dtype bf16 --shape 16384x1024"; do
      b auto $spec
      for r in 1 2; do b rpb$r $spec --variant schedule=regs --variant rpb=$r; done
    done
    echo "rep $rep done at $SECONDS s" >&2
  done; } > $OUT/bench-rows-a-block.txt
grep -v "copy ceiling" $OUT/bench-rows-a-block.txt | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s | awk '{print $1,$2,$3,$4,$5,$8,$11,"clean",$13,$14}'
{ echo "== ladder verify layernorm"
  LADDER_KERNELS_DIR=$K LADDER_CACHE_DIR=/tmp/lc-v timeout 300 $B verify layernorm --jobs 14 2>&1 | grep -E "FAIL|UNRESOLVED|XPASS|rungs:" | tail -20
  echo "exit ${PIPESTATUS[0]} at $SECONDS s"; } | tee $OUT/verify-152.txt | tail -3
if [ $SECONDS -gt 420 ]; then echo "ncu skipped at $SECONDS s"; echo "total $SECONDS s"; exit 0; fi
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,smsp__inst_executed.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread
for r in long_scoreboard barrier short_scoreboard lg_throttle no_instruction; do M=$M,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio; done
{ for p in 3 2; do
    echo "## ladder layernorm_fwd_loop bf16 4096x16384, loop_passes=$p"
    timeout 120 ncu --target-processes all --clock-control none --cache-control all --metrics $M -k regex:"^layernorm" --launch-skip 2 --launch-count 1 \
      $B bench layernorm --dtype bf16 --shape 4096x16384 --iters 5 --variant schedule=loop --variant loop_passes=$p 2>&1 | grep -E "^ +[a-z]|layernorm_fwd" | head -16
  done
  sed -n '/^cat > \/tmp\/tc.py/,/^PY$/p' reports/h200/device-calls/a147.sh | sed '1d;$d' > /tmp/tc.py
  echo "## torch.compile (closure), every kernel of one call after warm-up"
  timeout 200 ncu --profile-from-start off --target-processes all --clock-control none --cache-control all --metrics $M python3 /tmp/tc.py prof 2>&1 | grep -E "^ +[a-z]|triton" | head -16
} 2>&1 | tee $OUT/ncu-loop-peer.txt
echo "total $SECONDS s"
true
