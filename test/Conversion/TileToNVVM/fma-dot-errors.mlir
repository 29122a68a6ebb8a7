// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))'

// A blocked accumulator means FMA instructions, which take f32 in ieee
// precision only.
#c = #tile.blocked<sizePerThread = [2, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#a = #tile.blocked<sizePerThread = [2, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#b = #tile.blocked<sizePerThread = [4, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @tf32_on_fma() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x8xf32, #a>
    %b = arith.constant dense<2.0> : tensor<8x16xf32, #b>
    %z = arith.constant dense<0.0> : tensor<16x16xf32, #c>
    // expected-error @+2 {{a dot with a #tile.blocked accumulator runs on FMA instructions, which take f32 operands in ieee precision only, got 'f32' in precision(tf32)}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z precision(tf32) : tensor<16x8xf32, #a>, tensor<8x16xf32, #b> -> tensor<16x16xf32, #c>
    tile.return
  }
}

// -----

// A in B's layout: its threads do not hold their accumulator rows.
#c = #tile.blocked<sizePerThread = [2, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
#b = #tile.blocked<sizePerThread = [4, 4], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @operand_layout() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x4xf32, #b>
    %b = arith.constant dense<2.0> : tensor<4x16xf32, #b>
    %z = arith.constant dense<0.0> : tensor<16x16xf32, #c>
    // expected-error @+2 {{an FMA dot needs A and B in layouts that give each thread its accumulator's rows (A) and columns (B) over all of K, as tile-assign-layouts makes them}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z : tensor<16x4xf32, #b>, tensor<4x16xf32, #b> -> tensor<16x16xf32, #c>
    tile.return
  }
}
