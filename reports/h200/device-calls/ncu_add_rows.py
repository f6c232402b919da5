# Launches the one-row-per-program Triton add_rmsnorm of scripts/bench_peers.py on bf16 512x32768
# three times, for Nsight Compute (call 61).
import sys

import torch

sys.path.insert(0, "scripts")
import bench_peers  # noqa: E402

rows, d = 512, 32768
x, r = (torch.randn(rows, d, device="cuda", dtype=torch.bfloat16) for _ in range(2))
w = torch.randn(d, device="cuda", dtype=torch.bfloat16)
y, h = torch.empty_like(x), torch.empty_like(x)
for _ in range(3):
    bench_peers.triton_add_rmsnorm(x, r, w, y, h)
torch.cuda.synchronize()
