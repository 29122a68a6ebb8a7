#!/usr/bin/env python3
"""Runs the FlashAttention-2 block program (test/Target/Inputs/
flash_attention_block.mlir: one head, head_dim 64, causal, online softmax
with exp2) compiled by tilec on odd sequence lengths and compares it with a
float32 reference and with torch's bf16 SDPA. Usage:
    attention_block_check.py ARTIFACT_DIR [ARTIFACT_DIR ...]
"""

import json
import math
import os
import sys

import torch

from tilec.runtime import Kernel  # noqa: E402


def main():
    results = []
    for d in sys.argv[1:]:
        k = Kernel(os.path.join(d, "flash_attention_block_program.json"))
        for S in (1, 7, 113, 128, 255, 1023, 2048):
            torch.manual_seed(S)
            q, kk, v = (torch.randn(S, 64, device="cuda").bfloat16() for _ in range(3))
            o = torch.full((S, 64), float("nan"), device="cuda").bfloat16()
            k(q, kk, v, o, S, 1.0 / math.sqrt(64) * math.log2(math.e))
            torch.cuda.synchronize()
            ref = torch.nn.functional.scaled_dot_product_attention(
                q.float()[None, None], kk.float()[None, None], v.float()[None, None],
                is_causal=True)[0, 0]
            sdpa = torch.nn.functional.scaled_dot_product_attention(
                q[None, None], kk[None, None], v[None, None], is_causal=True)[0, 0]
            err = ((o.float() - ref).abs().max() / ref.abs().max()).item()
            serr = ((sdpa.float() - ref).abs().max() / ref.abs().max()).item()
            ok = not torch.isnan(o.float()).any().item() and err <= max(2 * serr, 1e-2)
            r = dict(artifacts=d, S=S, max_rel_err=err, torch_sdpa_bf16_err=serr, ok=ok)
            print(json.dumps(r), flush=True)
            results.append(r)
    fails = sum(not r["ok"] for r in results)
    print(f"attention block program: {len(results) - fails}/{len(results)} ok")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
