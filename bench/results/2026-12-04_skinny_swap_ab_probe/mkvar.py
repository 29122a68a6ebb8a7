"""Block-program variants for decode / skinny GEMMs (Y = X Wᵀ, X [M, K]
tiny M, W [N, K] an nn.Linear weight), compiled here for sm_90a into
out/<name>.{ptx,cubin,json}; run.py times them on the GPU.

swap<BN>x<BT>k<BK>: swap-AB, Yᵀ = W Xᵀ: the weight rows ride wgmma's M
(BN per program), the tokens its N (BT, down to 16), so the tensor cores
waste nothing on padding M; one program per BN weight rows and BT tokens.
The baseline is tile.gemm as the shape rule configures it today."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))
from tilec.kernels import gemm_source  # noqa: E402

TILEC = os.environ.get("TILEC", os.path.join(ROOT, "build", "bin", "tilec"))
HINT = "{tile.divisibility = 8 : i64}"


def swap_source(bn, bt, bk, warps, stages=None):
    name = f"swap{bn}x{bt}k{bk}w{warps}" + (f"s{stages}" if stages else "")
    sched = f" schedule<stages = {stages}>" if stages else ""
    return name, f"""
tile.kernel @{name}(%X: !tile.ptr<bf16> {{tile.align = 16 : i64}},
                    %W: !tile.ptr<bf16> {{tile.align = 16 : i64}},
                    %Y: !tile.ptr<bf16>,
                    %M: i32, %N: i32, %K: i32 {HINT},
                    %ldx: i32 {HINT}, %ldw: i32 {HINT}, %ldy: i32)
    grid(ceildiv(%N, {bn}) * ceildiv(%M, {bt})) warps({warps}){sched} {{
  %c0 = arith.constant 0 : i32
  %cbk = arith.constant {bk} : i32
  %cbn = arith.constant {bn} : i32
  %cbt = arith.constant {bt} : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %cbn : i32
  %pn = arith.remsi %pid, %npn : i32
  %pt = arith.divsi %pid, %npn : i32
  %n0 = arith.muli %pn, %cbn : i32
  %t0 = arith.muli %pt, %cbt : i32
  %w = tile.make_view %W[%N, %K] strides [%ldw, 1] : !tile.ptr<bf16>
  %xt = tile.make_view %X[%K, %M] strides [1, %ldx] : !tile.ptr<bf16>
  %yt = tile.make_view %Y[%N, %M] strides [1, %ldy] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<{bn}x{bt}xf32>
  %acc = scf.for %k = %c0 to %K step %cbk iter_args(%acc = %zero) -> (tensor<{bn}x{bt}xf32>) : i32 {{
    %tw = tile.load %w[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<{bn}x{bk}xbf16>
    %tx = tile.load %xt[%k, %t0] : !tile.view<?x?xbf16, strides = [1, ?]> -> tensor<{bk}x{bt}xbf16>
    %d = tile.dot %tw, %tx, %acc : tensor<{bn}x{bk}xbf16>, tensor<{bk}x{bt}xbf16> -> tensor<{bn}x{bt}xf32>
    scf.yield %d : tensor<{bn}x{bt}xf32>
  }}
  %out = arith.truncf %acc : tensor<{bn}x{bt}xf32> to tensor<{bn}x{bt}xbf16>
  tile.store %out, %yt[%n0, %t0] : tensor<{bn}x{bt}xbf16>, !tile.view<?x?xbf16, strides = [1, ?]>
  tile.return
}}
"""


def variants():
    yield swap_source(64, 16, 128, 4)
    yield swap_source(64, 16, 64, 4)
    yield swap_source(128, 16, 64, 8)
    yield swap_source(128, 16, 128, 8)
    yield swap_source(64, 32, 128, 4)
    yield swap_source(128, 32, 64, 8)
    yield swap_source(64, 64, 64, 4)
    yield swap_source(128, 64, 64, 8)
    yield swap_source(64, 16, 128, 4, stages=4)
    for bn in (64, 128):
        name, src = gemm_source("bf16", b_layout="col", config={"block_n": bn, "tma_store": 0},
                                name=f"base_n{bn}")
        yield name, src
    name, src = gemm_source("bf16", b_layout="col", config={"block_m": 64, "block_n": 64, "tma_store": 0},
                            name="base_m64n64")
    yield name, src
    # tile.gemm's own transposed product (config swap_ab), as the shape rule
    # picks it for M <= 16, <= 32 and <= 64 (128 weights from N >= 8192).
    for tokens, weights, bk in ((16, 64, 128), (32, 64, 128), (64, 64, 64), (64, 128, 64)):
        config = {"swap_ab": 1, "block_m": tokens, "block_n": weights, "block_k": bk,
                  "warps": weights // 16}
        yield gemm_source("bf16", b_layout="col", config=config, name=f"named_swap{tokens}x{weights}")
    yield gemm_source("bf16", b_layout="col", bias=True, activation="relu",
                      config={"swap_ab": 1, "block_m": 16, "block_n": 64, "block_k": 128, "warps": 4},
                      name="named_swap16x64_bias_relu")


def main():
    out = os.environ.get("PROBE_DIR", os.path.join(ROOT, ".gpu", "skinny_probe"))
    os.makedirs(out, exist_ok=True)
    ok = True
    for name, src in variants():
        path = os.path.join(out, name + ".mlir")
        with open(path, "w") as f:
            f.write(src)
        r = subprocess.run([TILEC, path, "--chip=sm_90a", "--emit=cubin", "-o", out],
                           capture_output=True, text=True)
        print(name, "ok" if r.returncode == 0 else "FAILED\n" + r.stderr[-2000:])
        ok &= r.returncode == 0
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
