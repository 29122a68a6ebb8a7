// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))'

// The async-proxy fence is an sm_90 instruction.
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @fence_on_sm80() warps(4) {
    // expected-error @+1 {{needs fence.proxy.async (sm_90), which sm_80 does not have}}
    tile.fence_async_shared
    tile.return
  }
}

// -----

// cp.async copies 16-byte chunks: rows of 4 bf16 (8 bytes) cannot be.
#p = #tile.shared<vec = 4, perPhase = 1, maxPhase = 1, order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @rows_too_short(%A: !tile.ptr<bf16>, %M: i32, %ld: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %A[%M, 4] strides [%ld, 1] : !tile.ptr<bf16>
    %buf = tile.local_alloc : !tile.smem<1x64x4xbf16, #p>
    // expected-error @+2 {{tile rows are too short for 16-byte copies}}
    // expected-error @+1 {{failed to legalize operation 'tile.async_copy'}}
    tile.async_copy %v[%c0, %c0], %buf[%c0] : !tile.view<?x4xbf16, strides = [?, 1]>, !tile.smem<1x64x4xbf16, #p>
    tile.return
  }
}

// -----

// ldmatrix reads 16-wide K blocks: an A slice 8 wide along K has no room
// for the second pair of matrices.
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @ldmatrix_k8() warps(4) {
    %c0 = arith.constant 0 : i32
    %b = tile.local_alloc : !tile.smem<1x32x64xbf16, #sa>
    // expected-error @+2 {{ldmatrix fragment outside the operand layout}}
    // expected-error @+1 {{failed to legalize operation 'tile.local_load'}}
    %a = tile.local_load %b[%c0] : !tile.smem<1x32x64xbf16, #sa> -> tensor<32x8xbf16, #da>
    tile.return
  }
}
