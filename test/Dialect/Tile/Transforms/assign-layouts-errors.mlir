// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{chip=sm_80}))'
// RUN: not tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{chip=sm_75}))' 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts))' 2>&1 | FileCheck %s --check-prefix=NOCHIP

// CHIP: error: unknown chip 'sm_75'; expected one of sm_80, sm_86, sm_89, sm_90, sm_90a
// NOCHIP: error: no target chip: pass chip=... or nest the kernel in a gpu.module with an #nvvm.target (see tile-attach-target)

tile.kernel @not_power_of_two() {
  // expected-error @+1 {{'arith.constant' op tile shape 'tensor<6xf32>' is not made of powers of two}}
  %c = arith.constant dense<0.0> : tensor<6xf32>
  tile.return
}

// -----

tile.kernel @fp8_without_sm89() {
  %a = arith.constant dense<1.0> : tensor<64x64xf8E4M3FN>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{fp8 operands need mma.sync m16n8k32 (sm_89 or later) or wgmma (sm_90a); sm_80 has neither: use bf16/f16 operands there}}
  %d = tile.dot %a, %a, %z : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
  tile.return
}

// -----

// TF32 steps K by 8 (mma.sync m16n8k8).
tile.kernel @tf32_k4() warps(4) {
  %a = arith.constant dense<1.0> : tensor<64x4xf32>
  %b = arith.constant dense<1.0> : tensor<4x64xf32>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{K = 4 must be a multiple of the mma.sync K (8)}}
  %d = tile.dot %a, %b, %z precision(tf32) : tensor<64x4xf32>, tensor<4x64xf32> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @too_small() warps(8) {
  %a = arith.constant dense<1.0> : tensor<16x16xbf16>
  %b = arith.constant dense<1.0> : tensor<16x8xbf16>
  %z = arith.constant dense<0.0> : tensor<16x8xf32>
  // expected-error @+1 {{a 16x8 accumulator cannot be split over 8 warps of mma.sync (each warp needs at least 16x8)}}
  %d = tile.dot %a, %b, %z : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k_not_multiple() {
  %a = arith.constant dense<1.0> : tensor<64x8xbf16>
  %b = arith.constant dense<1.0> : tensor<8x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @+1 {{K = 8 must be a multiple of the mma.sync K (16)}}
  %d = tile.dot %a, %b, %z : tensor<64x8xbf16>, tensor<8x64xbf16> -> tensor<64x64xf32>
  tile.return
}

