// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))'

// The TMA-store epilogue's limits on sm_90a.

tile.kernel @tma_store_ragged_n(%A: !tile.ptr<bf16>, %M: i32) {
  %n = arith.constant 1001 : i32
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  %c = tile.make_view %A[%M, %n] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{tma_store needs N to be a multiple of 8, got 1001}}
  tile.gemm %a, %a, %c config {tma_store = 1} : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
