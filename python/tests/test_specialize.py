"""Specialization on the actual arguments (tilec.specialization and
tilec.compile(..., specialize=...)): a block program written without hints
gets tile.align / tile.divisibility from the tensors and integers it will
run with, the fast path follows (TMA on sm_90a), the assumptions land in the
metadata, and a launch with other data is refused."""

import os

import pytest

import fake_cuda
import tilec
from tilec import runtime
from tilec.specialize import hint_for, specialize_source

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The block-program GEMM of examples/gemm_block_bf16.mlir without its hints.
PLAIN_GEMM = """
tile.kernel @mm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>,
                %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32)
    grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %out, %c[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
"""


class Ptr:
    def __init__(self, address):
        self.address = address

    def data_ptr(self):
        return self.address


def test_hints_from_values():
    assert hint_for(Ptr(0x7f0000001000)) == ("tile.align", 16)
    assert hint_for(Ptr(0x7f0000001008)) == ("tile.align", 8)
    assert hint_for(Ptr(0x7f0000001001)) is None
    assert hint_for(4096) == ("tile.divisibility", 16)
    assert hint_for(4104) == ("tile.divisibility", 8)
    assert hint_for(4097) is None
    assert hint_for(True) is None and hint_for(1.5) is None
    assert tilec.specialization(A=Ptr(4096), lda=24, M=1000, x=3) == {
        "A": ("tile.align", 16), "lda": ("tile.divisibility", 8),
        "M": ("tile.divisibility", 8)}


def test_specialize_source_adds_and_keeps_hints():
    src = ("tile.kernel @k(%A: !tile.ptr<bf16> {tile.align = 4 : i64}, %B: !tile.ptr<f32>,\n"
           "    %n: i32 {tile.foo = 1 : i64}, %m: i32) grid(%n) warps(4) {\n  tile.return\n}\n")
    out = specialize_source(src, {"A": Ptr(0), "B": Ptr(16), "n": 64, "m": 3})
    assert "%A: !tile.ptr<bf16> {tile.align = 4 : i64}" in out  # the program's hint stays
    assert "%B: !tile.ptr<f32> {tile.align = 16 : i64}" in out
    assert "%n: i32 {tile.foo = 1 : i64, tile.divisibility = 16 : i64}" in out
    assert "%m: i32)" in out  # 3: nothing to gain
    with pytest.raises(ValueError, match="no kernel parameter named nope"):
        specialize_source(src, {"nope": 16})
    with pytest.raises(ValueError, match="'n' is not a pointer parameter"):
        specialize_source(src, {"n": ("tile.align", 16)})


def test_specialized_gemm_takes_tma_and_records_the_assumptions(library, tmp_path):
    plain = tilec.compile(PLAIN_GEMM, chip="sm_90a", emit="ptx", cache_dir=tmp_path)
    assert "cp.async.bulk.tensor" not in plain.ptx
    # No hints: plain loads, which the threads stage in shared memory for
    # wgmma (no TMA, no cp.async).
    assert "cp.async.cg" not in plain.ptx and "fence.proxy.async" in plain.ptx
    values = dict(A=Ptr(1 << 20), B=Ptr(2 << 20), C=Ptr(3 << 20), M=4096, N=4096, K=4096,
                  lda=4096, ldb=4096, ldc=4096)
    fast = tilec.compile(PLAIN_GEMM, chip="sm_90a", emit="ptx", cache_dir=tmp_path,
                         specialize=values)
    assert "cp.async.bulk.tensor" in fast.ptx and "wgmma.mma_async" in fast.ptx
    assert fast.key != plain.key  # its own cache entry
    params = {p["name"]: p for p in fast.metadata["params"]}
    assert params["A"]["align"] == 16 and params["ldb"]["divisibility"] == 16


def test_launch_refuses_data_the_specialization_excludes(library, tmp_path):
    values = dict(A=Ptr(1 << 20), B=Ptr(2 << 20), C=Ptr(3 << 20), M=256, N=256, K=256,
                  lda=256, ldb=256, ldc=256)
    result = tilec.compile(PLAIN_GEMM, chip="sm_90a", cache_dir=tmp_path, specialize=values)
    torch, driver = fake_cuda.install()
    try:
        kernel = runtime.Kernel.from_artifacts(result.metadata, result.cubin)
        a, b, c = (fake_cuda.tensor((256, 256)) for _ in range(3))
        kernel(a, b, c, 256, 256, 256, 256, 256, 256)
        assert len(driver.launches) == 1
        with pytest.raises(runtime.LaunchError, match="'lda' = 264 must be a multiple of 16"):
            kernel(a, b, c, 256, 256, 256, 264, 256, 256)
        with pytest.raises(runtime.LaunchError, match="'A' must be 16-byte aligned"):
            kernel(fake_cuda.tensor((256, 256), offset=8), b, c, 256, 256, 256, 256, 256, 256)
        assert len(driver.launches) == 1
    finally:
        fake_cuda.uninstall()
