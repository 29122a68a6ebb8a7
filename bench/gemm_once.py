"""Launches one tilec GEMM (for profilers): gemm_once.py KERNEL.json M N K"""
import sys

import torch

from tilec.runtime import Kernel

path, M, N, K = sys.argv[1], *map(int, sys.argv[2:5])
k = Kernel(path)
a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
b = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
for _ in range(3):
    k(a, b, c, M, N, K, K, N, N)
torch.cuda.synchronize()
