#!/usr/bin/env python3
"""Writes examples/attention_backward_bf16.mlir: the attention backward
block programs of scripts/common/backward_kernels.py (what tilec.attention's
autograd formula runs) at head dim 128, bf16, causal and not.
test/Examples/attention-backward-template.test keeps the example equal to
this output.

    python3 -m scripts.dev.attention_backward_example > examples/attention_backward_bf16.mlir
"""

import sys

from scripts.common import backward_kernels as bk

HEADER = """\
// FlashAttention-2's backward as block programs, the kernels behind
// tilec.attention's autograd formula (scripts/common/backward_kernels.py,
// written out by scripts/dev/attention_backward_example.py): bf16, head dim 128,
// [batch, heads, seq, 128] tensors, grouped-query K/V, causal (bottom-right
// aligned) and not.
//
//  * @attention_bwd_bf16_d128_pre: Delta = rowsum(dO * O) and the forward's
//    log-sum-exp in the exp2 domain (+inf for a row that saw no key).
//  * @attention_bwd_bf16_d128[_causal]_dq: per 128 queries, the key blocks:
//    S = Q Kᵀ, P = exp2(S * qk_scale - lse2), dP = dO Vᵀ,
//    dS = P (dP - Delta), dQ += dS K.
//  * @attention_bwd_bf16_d128[_causal]_dkdv: per 128 keys, the query blocks
//    with the transposed products: Sᵀ = K Qᵀ, dV += Pᵀ dO, dPᵀ = V dOᵀ,
//    dK += dSᵀ Q (one dK/dV per query head; the caller sums a group's).
//
// These are the sm_90a tiles (the dK/dV kernels ask for 240 consumer
// registers, a schedule knob other chips ignore); on sm_80 / sm_89
// tilec.attention_backward takes 32-wide steps at head dim 128
// (backward_kernels.tiles_for).
//
// dQ has its own kernel instead of atomics: deterministic. Each tile that
// two products read is loaded once per product, so that on sm_90a each
// becomes a TMA ring slot that one wgmma reads in place.
//
// The atomic mode (tilec.attention(..., deterministic=False)) follows:
//  * @attention_bwd_bf16_d128_pre_zero_dq: the preprocessing, also zeroing
//    an f32 dQ accumulator;
//  * @attention_bwd_bf16_d128_dkdv_dq: per 64 keys (one warpgroup), the
//    dK/dV steps plus dQ += dS K (dS = (dSᵀ)ᵀ), added into the accumulator
//    with tile.atomic_add (red.global.add.f32);
//  * @attention_bwd_bf16_d128_dq_scale: dQ = accumulator * sm_scale.
//
// What the passes make of it (`tilec FILE --remarks=tile-`): on sm_90a, TMA
// rings with a producer warpgroup, wgmma (Pᵀ and dSᵀ from registers), TMA
// stores of dQ, dK and dV; on sm_80 / sm_89, cp.async rings, ldmatrix and
// mma.sync.
"""


def main():
    tiles = bk.tiles_for("sm_90a", 128)
    _, src = bk.source("bf16", 128, False, tiles=tiles)
    causal = [bk.dq_source("bf16", 128, True, tiles=tiles)[1],
              bk.dkdv_source("bf16", 128, True, tiles=tiles)[1]]
    atomic = [s for _, s in bk.atomic_sources("bf16", 128, False,
                                              tiles=bk.atomic_tiles_for("sm_90a", 128))]
    sys.stdout.write(HEADER + "\n" + src + "\n" + "\n".join(causal) + "\n" + "\n".join(atomic))


if __name__ == "__main__":
    main()
