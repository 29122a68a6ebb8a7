// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))'

// tile.dot verifies f16 x f16 -> f16, but mma.sync is lowered with f32
// accumulators only.
#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @f16_accumulator() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x16xf16, #da>
    %b = arith.constant dense<1.0> : tensor<16x8xf16, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf16, #mma>
    // expected-error @+2 {{mma.sync lowering supports bf16/f16, f32 (as TF32) and fp8 (e4m3/e5m2) operands with an f32 accumulator and i8 with an i32 one, got 'f16' x 'f16' -> 'f16'}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %c : tensor<16x16xf16, #da>, tensor<16x8xf16, #db> -> tensor<16x8xf16, #mma>
    tile.return
  }
}

// -----

// f32 x f32 -> f32 in the default ieee precision verifies too; mma.sync
// multiplies f32 as TF32 only.
#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 1>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 1>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @f32_operands() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x16xf32, #da>
    %b = arith.constant dense<1.0> : tensor<16x8xf32, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    // expected-error @+2 {{f32 operands in ieee precision have no mma.sync form; write precision(tf32) or precision(tf32x3)}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %c : tensor<16x16xf32, #da>, tensor<16x8xf32, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}

// -----

// TF32 operands hold one element a register (kWidth 1), not a 16-bit pair.
#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @tf32_kwidth2() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x16xf32, #da>
    %b = arith.constant dense<1.0> : tensor<16x8xf32, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    // expected-error @+2 {{mma.sync needs A and B in the #tile.dot_operand layouts (opIdx 0 and 1, kWidth 1) of the accumulator's #tile.mma layout}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %c precision(tf32) : tensor<16x16xf32, #da>, tensor<16x8xf32, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}

// -----

// Regression: K = 8 (tile.dot verifies it; only tile-assign-layouts refused
// it) read fragment registers past the operands' layouts (a crash under
// ASan, wrong registers otherwise).
#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @k8() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x8xbf16, #da>
    %b = arith.constant dense<1.0> : tensor<8x8xbf16, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    // expected-error @+2 {{mma.sync m16n8k16 needs K to be a multiple of 16, got 8}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %c : tensor<16x8xbf16, #da>, tensor<8x8xbf16, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}

// -----

// Regression: operands laid out for another #tile.mma than the accumulator's
// lowered silently, with warp 1 reading warp 0's A rows.
#acc = #tile.mma<warpsPerCTA = [2, 1]>
#other = #tile.mma<warpsPerCTA = [1, 2]>
#da = #tile.dot_operand<opIdx = 0, parent = #other, kWidth = 2>
#db = #tile.dot_operand<opIdx = 1, parent = #acc, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @parent_mismatch() warps(2) {
    %a = arith.constant dense<1.0> : tensor<32x16xbf16, #da>
    %b = arith.constant dense<1.0> : tensor<16x8xbf16, #db>
    %c = arith.constant dense<0.0> : tensor<32x8xf32, #acc>
    // expected-error @+2 {{mma.sync needs A and B in the #tile.dot_operand layouts (opIdx 0 and 1, kWidth 2) of the accumulator's #tile.mma layout}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %c : tensor<32x16xbf16, #da>, tensor<16x8xbf16, #db> -> tensor<32x8xf32, #acc>
    tile.return
  }
}

// -----

// fp8 needs mma.sync m16n8k32, which sm_80 does not have.
#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @fp8_on_sm80() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x32xf8E4M3FN, #da>
    %b = arith.constant dense<1.0> : tensor<32x8xf8E4M3FN, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    // expected-error @+2 {{mma.sync m16n8k32 on 'f8E4M3FN' x 'f8E4M3FN' needs sm_89 or later, not sm_80}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %c : tensor<16x32xf8E4M3FN, #da>, tensor<32x8xf8E4M3FN, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}

// -----

// fp8 operands in the 16-bit fragment layout (kWidth 2): their registers
// would hold the wrong K elements.
#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
  tile.kernel @fp8_kwidth2() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x32xf8E4M3FN, #da>
    %b = arith.constant dense<1.0> : tensor<32x8xf8E4M3FN, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    // expected-error @+2 {{mma.sync needs A and B in the #tile.dot_operand layouts (opIdx 0 and 1, kWidth 4) of the accumulator's #tile.mma layout}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %c : tensor<16x32xf8E4M3FN, #da>, tensor<32x8xf8E4M3FN, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}

// -----

// K = 16 of fp8 is half an m16n8k32 step.
#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
gpu.module @g [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
  tile.kernel @fp8_k16() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x16xf8E5M2, #da>
    %b = arith.constant dense<1.0> : tensor<16x8xf8E5M2, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    // expected-error @+2 {{mma.sync m16n8k32 needs K to be a multiple of 32, got 16}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %c : tensor<16x16xf8E5M2, #da>, tensor<16x8xf8E5M2, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}
