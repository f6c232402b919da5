#!/bin/bash
# Call 224: (1) whether the phase kernels, now at one barrier a row (LayerNorm's one join, call
# 219) and whole 16-byte stores (call 218), beat auto's plans on rows ON the 16-byte grid:
# layernorm and rmsnorm bf16 at the target widths under schedule=phase at several ITEMS; (2) the
# backward phase kernels' near-ties (rmsnorm_bwd and layernorm_bwd 8192x2945/3329/3577, and
# 2049) against auto since the stores changed; two rounds, cold. (3) Where the weight gradient's
# 10 us go in rmsnorm_bwd bf16 8192x2049 (call 205: 51.5 us with dw, 41.5 without): Nsight
# Compute of the row kernel with weight=plain against weight=none, and of layernorm_bwd with
# affine=1 against affine=0. Kernels of main, the carried binary. Files go to $OUT.
set -u
export LADDER_COMMIT=${LADDER_COMMIT:?}
mkdir -p $OUT /tmp/o/src
B=$PWD/.device/ladder
export LADDER_KERNELS_DIR=$PWD/kernels LADDER_CACHE_DIR=/tmp/lc
nvidia-smi -L
left() { local l=$(( $1 - SECONDS )); [ $l -lt 5 ] && l=5; echo $l; }
b() { local tag=$1; shift; timeout $(left 330) $B bench "$@" 2>&1 | grep -E " ladder |copy ceiling|rror" | sed "s/^/$tag /"; }
P="--variant schedule=phase"
{ echo "# Call 224 ($LADDER_COMMIT, a224.sh): tags name the plan asked for; cold. Columns: tag op dtype rows d impl hot cold hotGBps coldGBps frac same clean_us clean_frac."
  for rep in 1 2; do
    b auto layernorm --dtype bf16 --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384
    b phase2 layernorm --dtype bf16 --shape 65536x1024 --shape 16384x4096 $P --variant items=2
    b phase4 layernorm --dtype bf16 --shape 65536x1024 --shape 16384x4096 --shape 8192x8192 --shape 4096x16384 $P --variant items=4
    b auto rmsnorm --dtype bf16 --shape 65536x1024 --shape 16384x4096
    b phase2 rmsnorm --dtype bf16 --shape 65536x1024 --shape 16384x4096 $P --variant items=2
    b phase4 rmsnorm --dtype bf16 --shape 65536x1024 --shape 16384x4096 $P --variant items=4
    for op in rmsnorm_bwd layernorm_bwd; do
      b auto $op --dtype bf16 --shape 8192x2049 --shape 8192x2945 --shape 8192x3329 --shape 8192x3577
      b phase $op --dtype bf16 --shape 8192x2049 --shape 8192x2945 --shape 8192x3329 --shape 8192x3577 $P
    done
  done
} > $OUT/bench-aligned-phase-224.txt
grep -v "copy ceiling" $OUT/bench-aligned-phase-224.txt | awk 'NR>1{print $1,$2,$3,$4,$5,$8,$11}' | sort -k2,2 -k3,3 -k4,4n -k5,5n -k1,1 -s
grep -i "rror" $OUT/bench-aligned-phase-224.txt | head -5
echo "bench done $SECONDS s"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__average_warp_latency_issue_stalled_barrier.ratio,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_wait.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio,smsp__average_warp_latency_issue_stalled_membar.ratio,smsp__average_warp_latency_issue_stalled_drain.ratio
prof() {  # name, kernel regex, command...
  local name=$1 re=$2; shift 2
  timeout $(left 540) ncu --clock-control none --cache-control all \
    --section SourceCounters --section WarpStateStats --metrics $M \
    -k regex:"$re" --launch-skip 2 --launch-count 1 -f -o /tmp/o/src/$name "$@" > /tmp/o/src/$name.log 2>&1
  echo "## $name: exit $?"
  ncu -i /tmp/o/src/$name.ncu-rep --page details --metrics $M 2>&1 | grep -E "^ +(gpu|dram|launch|sm__|smsp)|\(.*\)x\("
  ncu -i /tmp/o/src/$name.ncu-rep --page source --csv --print-source sass > /tmp/o/src/$name.csv 2>/tmp/o/src/$name.err
  echo "source rows: $(wc -l < /tmp/o/src/$name.csv)"; head -c 300 /tmp/o/src/$name.err
}
{
  prof rms_dw "rmsnorm_bwd" $B bench rmsnorm_bwd --dtype bf16 --shape 8192x2049 --iters 4
  prof rms_nodw "rmsnorm_bwd" $B bench rmsnorm_bwd --dtype bf16 --shape 8192x2049 --iters 4 --variant weight=none
  prof ln_dw "layernorm_bwd" $B bench layernorm_bwd --dtype bf16 --shape 8192x2049 --iters 4
  prof ln_nodw "layernorm_bwd" $B bench layernorm_bwd --dtype bf16 --shape 8192x2049 --iters 4 --variant affine=0
} 2>&1 | tee $OUT/ncu-bwd-dw-224.txt
tar -czf $OUT/src224.tgz -C /tmp/o/src $(cd /tmp/o/src && ls *.csv *.log *.err)
echo "total $SECONDS s"
true
