#!/usr/bin/env python3
"""Runs the FlashAttention-2 block program (test/Target/Inputs/
flash_attention_block.mlir: one head, head_dim 64, causal, online softmax
with exp2) compiled by tilec on odd sequence lengths and compares it with a
float32 reference and with torch's bf16 SDPA (scripts/harness: poisoned
output, references, relative error, record). Usage:

    python3 -m scripts.gpu.attention_block_check ARTIFACT_DIR [ARTIFACT_DIR ...] [--out FILE]
"""

import argparse
import json
import math
import os
import sys

import torch

from scripts.harness import references as ref
from scripts.harness import tensors
from scripts.harness.records import new_record, write_record
from tilec.runtime import Kernel


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("artifacts", nargs="+")
    ap.add_argument("--out", help="also write the cases as a JSON record")
    args = ap.parse_args()
    results = []
    for d in args.artifacts:
        k = Kernel(os.path.join(d, "flash_attention_block_program.json"))
        for S in (1, 7, 113, 128, 255, 1023, 2048):
            torch.manual_seed(S)
            q, kk, v = (torch.randn(S, 64, device="cuda").bfloat16() for _ in range(3))
            o = tensors.poisoned((S, 64), torch.bfloat16)
            k(q, kk, v, o, S, 1.0 / math.sqrt(64) * math.log2(math.e))
            torch.cuda.synchronize()
            want = ref.attention(q[None, None], kk[None, None], v[None, None], causal=True)[0][0, 0]
            # The anchor as before: torch's bf16 SDPA with is_causal (its flash
            # path; ref.sdpa's explicit mask would pick another backend).
            sdpa = torch.nn.functional.scaled_dot_product_attention(
                q[None, None], kk[None, None], v[None, None], is_causal=True)[0, 0]
            err = ref.rel_err(o, want)
            serr = ref.rel_err(sdpa, want)
            ok = tensors.unwritten(o) == 0 and err <= max(2 * serr, 1e-2)
            r = dict(artifacts=d, S=S, max_rel_err=err, torch_sdpa_bf16_err=serr, ok=ok)
            print(json.dumps(r), flush=True)
            results.append(r)
    fails = sum(not r["ok"] for r in results)
    print(f"attention block program: {len(results) - fails}/{len(results)} ok")
    if args.out:
        write_record(new_record("attention_block_check", artifacts=args.artifacts[0],
                                correctness=results), args.out)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
