"""Reference Triton attention forward for side-by-side measurements.

A FlashAttention-2-style forward pass: one program per (128-row query block,
batch*head); keys/values streamed in blocks of 64 with an online softmax in
base 2 (log2(e) folded into the scale), float32 accumulation, bf16 products.
Sequence lengths need not be multiples of the blocks (rows and keys past the
end are masked). With causal=True query i sees keys j <= i (Sq == Sk); the key
loop runs the fully visible blocks left of the diagonal without a mask and only
the diagonal blocks with one. Fixed Hopper-friendly configurations:
D=64: 128x64, 4 warps, 3 stages; D=128: 128x64, 8 warps, 2 stages.

triton_attention(q, k, v, causal, sm_scale=None) -> o, q/k/v bf16 [B, H, S, D].
Run as a script for a self-check against torch SDPA.
"""

import math

import triton
import triton.language as tl
import torch

_LOG2E = 1.4426950408889634

# head_dim -> (BLOCK_M, BLOCK_N, num_warps, num_stages)
_CONFIGS = {64: (128, 64, 4, 3), 128: (128, 64, 8, 2)}


@triton.jit
def _attn_blocks(acc, l_i, m_i, q, k_base, v_base, stride_kn, stride_vn,
                 offs_m, offs_n, offs_d, lo, hi, qk_scale, N_CTX,
                 MASK_N: tl.constexpr, MASK_CAUSAL: tl.constexpr, BLOCK_N: tl.constexpr):
    """Folds key/value blocks [lo, hi) into the running (acc, l_i, m_i)."""
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        cols = start_n + offs_n
        k_ptrs = k_base + cols[:, None] * stride_kn + offs_d[None, :]
        v_ptrs = v_base + cols[:, None] * stride_vn + offs_d[None, :]
        if MASK_N:
            k = tl.load(k_ptrs, mask=cols[:, None] < N_CTX, other=0.0)
        else:
            k = tl.load(k_ptrs)
        s = tl.dot(q, tl.trans(k)) * qk_scale  # [BLOCK_M, BLOCK_N], log2 units
        if MASK_CAUSAL:
            keep = (offs_m[:, None] >= cols[None, :]) & (cols[None, :] < N_CTX)
            s = tl.where(keep, s, float("-inf"))
        elif MASK_N:
            s = tl.where(cols[None, :] < N_CTX, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        if MASK_N:
            v = tl.load(v_ptrs, mask=cols[:, None] < N_CTX, other=0.0)
        else:
            v = tl.load(v_ptrs)
        acc = acc * alpha[:, None]
        acc += tl.dot(p.to(v.dtype), v)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def _attn_fwd(Q, K, V, O, qk_scale, H, N_CTX,
              sqb, sqh, sqm, skb, skh, skn, svb, svh, svn, sob, soh, som,
              HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
              CAUSAL: tl.constexpr):
    # Heaviest (rightmost) causal query blocks first for better load balance.
    pid_m = tl.num_programs(0) - 1 - tl.program_id(0)
    pid_bh = tl.program_id(1)
    off_b = (pid_bh // H).to(tl.int64)
    off_h = (pid_bh % H).to(tl.int64)
    q_base = Q + off_b * sqb + off_h * sqh
    k_base = K + off_b * skb + off_h * skh
    v_base = V + off_b * svb + off_h * svh
    o_base = O + off_b * sob + off_h * soh

    m0 = pid_m * BLOCK_M
    offs_m = m0 + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)
    row_ok = offs_m[:, None] < N_CTX
    q = tl.load(q_base + offs_m[:, None] * sqm + offs_d[None, :], mask=row_ok, other=0.0)

    # Finite start for the running max: a block whose scores are all masked
    # then contributes exp2(-inf) = 0 instead of NaN.
    m_i = tl.full([BLOCK_M], -1.0e30, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)

    if CAUSAL:
        # Keys [0, m0) are visible to every row of this block (BLOCK_M is a
        # multiple of BLOCK_N and m0 < N_CTX), so no mask there.
        acc, l_i, m_i = _attn_blocks(acc, l_i, m_i, q, k_base, v_base, skn, svn,
                                     offs_m, offs_n, offs_d, 0, m0, qk_scale, N_CTX,
                                     False, False, BLOCK_N)
        hi = tl.minimum(m0 + BLOCK_M, N_CTX)
        acc, l_i, m_i = _attn_blocks(acc, l_i, m_i, q, k_base, v_base, skn, svn,
                                     offs_m, offs_n, offs_d, m0, hi, qk_scale, N_CTX,
                                     True, True, BLOCK_N)
    else:
        n_full = (N_CTX // BLOCK_N) * BLOCK_N
        acc, l_i, m_i = _attn_blocks(acc, l_i, m_i, q, k_base, v_base, skn, svn,
                                     offs_m, offs_n, offs_d, 0, n_full, qk_scale, N_CTX,
                                     False, False, BLOCK_N)
        acc, l_i, m_i = _attn_blocks(acc, l_i, m_i, q, k_base, v_base, skn, svn,
                                     offs_m, offs_n, offs_d, n_full, N_CTX, qk_scale, N_CTX,
                                     True, False, BLOCK_N)

    l_i = tl.where(l_i > 0.0, l_i, 1.0)
    out = acc / l_i[:, None]
    tl.store(o_base + offs_m[:, None] * som + offs_d[None, :], out.to(O.dtype.element_ty),
             mask=row_ok)


def triton_attention(q, k, v, causal, sm_scale=None):
    """Attention forward, q/k/v [B, H, S, D] (bf16, Sq == Sk, D in {64, 128})."""
    B, H, S, D = q.shape
    assert k.shape == q.shape and v.shape == q.shape, "Sq == Sk and equal head counts"
    assert D in _CONFIGS, f"head_dim {D} not supported"
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    if sm_scale is None:
        sm_scale = 1.0 / math.sqrt(D)
    o = torch.empty_like(q)
    BM, BN, warps, stages = _CONFIGS[D]
    grid = (triton.cdiv(S, BM), B * H)
    _attn_fwd[grid](q, k, v, o, float(sm_scale) * _LOG2E, H, S,
                    q.stride(0), q.stride(1), q.stride(2),
                    k.stride(0), k.stride(1), k.stride(2),
                    v.stride(0), v.stride(1), v.stride(2),
                    o.stride(0), o.stride(1), o.stride(2),
                    HEAD_DIM=D, BLOCK_M=BM, BLOCK_N=BN, CAUSAL=bool(causal),
                    num_warps=warps, num_stages=stages)
    return o


if __name__ == "__main__":
    import torch.nn.functional as F

    torch.manual_seed(0)
    bad = 0
    for (B, H, S) in [(1, 1, 1), (2, 3, 113), (1, 4, 1000), (2, 2, 1024)]:
        for D in (64, 128):
            for causal in (False, True):
                q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16)
                           for _ in range(3))
                o = triton_attention(q, k, v, causal)
                ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                     is_causal=causal)
                bf = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                err = (o.float() - ref).abs().max().item()
                berr = (bf.float() - ref).abs().max().item()
                ok = bool(torch.isfinite(o.float()).all().item()) and err <= max(2 * berr, 2e-2)
                bad += not ok
                print(f"B={B} H={H} S={S} D={D} causal={causal}: max abs err {err:.3e} "
                      f"(torch bf16 sdpa {berr:.3e}) {'ok' if ok else 'FAIL'}", flush=True)
    print("triton_attention:", "all ok" if not bad else f"{bad} failed")
