// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))'

// Before lowering, the first op of a kernel that needs an instruction the
// chip lacks gets a diagnostic naming it: here transaction barriers, TMA
// tensor maps and TMA store waits, all sm_90.

gpu.module @g [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
  tile.kernel @mbarrier_on_sm89() warps(4) {
    %c0 = arith.constant 0 : i32
    // expected-error @+1 {{needs transaction mbarriers (sm_90), which sm_89 does not have}}
    %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    tile.mbarrier_wait %bar[%c0], %c0 : !tile.mbarrier<1>
    tile.return
  }
}

// -----

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @tensor_map_on_sm80(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}) warps(4) {
    %va = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
    // expected-error @+1 {{needs TMA (cp.async.bulk.tensor, sm_90), which sm_80 does not have}}
    %tm = tile.make_tensor_map %va : !tile.view<?x?xbf16, strides = [?, 1]> -> !tile.tensor_map<64x64xbf16, #sw>
    tile.return
  }
}

// -----

gpu.module @g [#nvvm.target<chip = "sm_86", features = "+ptx71">] {
  tile.kernel @tma_store_wait_on_sm86() warps(4) {
    // expected-error @+1 {{needs TMA (cp.async.bulk.tensor, sm_90), which sm_86 does not have}}
    tile.tma_store_wait 0
    tile.return
  }
}
