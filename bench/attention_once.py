"""Launches one tilec attention kernel (for profilers): attention_once.py ARTDIR NAME S HEAD_DIM
(B*S = 16k tokens, H*D = 2048)."""
import os, sys, torch
from tilec.runtime import Kernel
art, name, S, d = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
B, H = 16384 // S, 2048 // d
k = Kernel(os.path.join(art, name + ".json"))
q, kk, v = (torch.randn(B, H, S, d, device="cuda").bfloat16() for _ in range(3))
o = torch.empty_like(q); lse = torch.empty(B, H, S, device="cuda")
for _ in range(3):
    k(q, kk, v, o, lse, B, H, H, S, S, H * S * d, S * d, H * S * d, S * d, H * S)
torch.cuda.synchronize()
