#!/bin/bash
# Call 235: where the streamed LayerNorm's bf16 time goes at d = 1024-16384 (0.86-0.91 of the copy
# ceiling where RMSNorm, with the same bytes, reads 0.91-0.93). The loop kernel's output pass
# reads gamma and beta a chunk each beside every x chunk: 64 KiB a row at d = 16384, through an
# L1 the streamed rows also pass through. Part 1: bench, two rounds, LayerNorm with affine=1, 0
# and gamma, RMSNorm with weight=plain and none, at the bench's bf16 shapes. Part 2: Nsight
# Compute of the same launches at 4096x16384 and 16384x4096 (durations, DRAM, L2 and L1 bytes and
# hit rates, throughputs, instructions, warps active). Carried: .device/ladder (main's build).
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
mkdir -p $OUT
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
S="--shape 16384x4096 --shape 8192x8192 --shape 4096x16384 --shape 2048x32768 --shape 65536x1024"
b() { # tag json args...
  local tag=$1 json=$2; shift 2
  timeout 120 $B bench "$@" --dtype bf16 $S --json $json 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"
}
{ for rep in 1 2; do
    for a in 1 0 gamma; do b ln-affine-$a $OUT/b-ln-$a-$rep.json layernorm --variant affine=$a; done
    for w in plain none; do b rms-$w $OUT/b-rms-$w-$rep.json rmsnorm --variant weight=$w; done
    echo "round $rep done at $SECONDS s" >&2
  done
} > $OUT/bench-affine.txt 2>&1
cat $OUT/bench-affine.txt
echo "bench done $SECONDS s"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,l1tex__t_bytes.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__registers_per_thread,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warp_latency_issue_stalled_barrier,smsp__average_warp_latency_issue_stalled_lg_throttle
n() { # title op args...
  local title=$1 op=$2; shift 2
  echo "## $title"
  timeout $(left 560) ncu --target-processes all --clock-control none --cache-control all --metrics $M \
    -k regex:"$op" --launch-skip 3 --launch-count 1 \
    $B bench $op --dtype bf16 --iters 3 "$@" 2>&1 | grep -E "^ +[a-z]|$op" | head -20
}
{ for sh in 4096x16384 16384x4096; do
    n "layernorm bf16 $sh affine=1" layernorm --shape $sh --variant affine=1
    n "layernorm bf16 $sh affine=0" layernorm --shape $sh --variant affine=0
    n "rmsnorm bf16 $sh weight=plain" rmsnorm --shape $sh --variant weight=plain
  done
} > $OUT/ncu-affine.txt 2>&1
cat $OUT/ncu-affine.txt
cd $OUT && tar czf /tmp/x.tgz . && find . -mindepth 1 -delete && mv /tmp/x.tgz $OUT/a235.tgz
echo "total $SECONDS s"
true
