// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))'

// wgmma is an arch-specific feature: sm_90 (without `a`) has none.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90", features = "+ptx86">] {
  tile.kernel @dot_on_sm90() warps(4) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %a = tile.local_load %buf[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    // expected-error @+2 {{wgmma needs sm_90a (arch-specific features); sm_90 does not have it}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %a, %z : tensor<64x64xbf16, #sw>, tensor<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// So is its wait (checked before lowering, for the whole kernel).
gpu.module @g [#nvvm.target<chip = "sm_90", features = "+ptx86">] {
  tile.kernel @wait_on_sm90() warps(4) {
    // expected-error @+1 {{needs wgmma (sm_90a), which sm_90 does not have}}
    tile.warpgroup_wait 0
    tile.return
  }
}

// -----

// The descriptors are built for the 128- and 64-byte swizzles, whose rows
// are cut into segments of the swizzle span; this layout has no segments.
#s = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @not_128b_swizzle() warps(4) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : !tile.smem<1x64x64xbf16, #s>
    %a = tile.local_load %buf[%c0] : !tile.smem<1x64x64xbf16, #s> -> tensor<64x64xbf16, #s>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    // expected-error @+2 {{wgmma operands need a 128- or 64-byte swizzled layout (16-byte vec, perPhase 1 and maxPhase 8, or perPhase 2 and maxPhase 4; segments of the swizzle span)}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %a, %z : tensor<64x64xbf16, #s>, tensor<64x64xbf16, #s> -> tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// An N-major B (bf16, contiguous along N) in the 64-byte swizzle: the
// descriptors step between N segments of 128 bytes only.
#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0], segment = 32>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @n_major_b_swizzle64() warps(4) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x64xbf16, #sa>
    %bb = tile.local_alloc : !tile.smem<1x64x64xbf16, #sb>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x64xbf16, #sa> -> tensor<64x64xbf16, #sa>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x64x64xbf16, #sb> -> tensor<64x64xbf16, #sb>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    // expected-error @+2 {{an N-major B operand needs the 128-byte swizzle}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z : tensor<64x64xbf16, #sa>, tensor<64x64xbf16, #sb> -> tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// A stored contiguous along M (wgmma's transposed A) takes the 128-byte
// swizzle only: each warpgroup's 64 rows are one segment.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#swm = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [0, 1], segment = 32>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @m_major_a_64b_swizzle() warps(4) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x64xbf16, #swm>
    %bb = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x64xbf16, #swm> -> tensor<64x64xbf16, #swm>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    // expected-error @+2 {{an M-major A operand needs the 128-byte swizzle}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z : tensor<64x64xbf16, #swm>, tensor<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// Each warpgroup computes 64 rows: 4 warps cannot hold a 128-row tile.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @rows_per_warpgroup() warps(4) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x128x64xbf16, #sw>
    %bb = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x128x64xbf16, #sw> -> tensor<128x64xbf16, #sw>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
    // expected-error @+2 {{unsupported wgmma operands: 'tensor<128x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>' x 'tensor<64x64xbf16, #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>>' -> 'tensor<128x64xf32, #tile.mma<warpsPerCTA = [4, 1]>>'}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z : tensor<128x64xbf16, #sw>, tensor<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
    tile.return
  }
}

// -----

// fp8 wgmma has no transpose: B must be K-major (tile-assign-layouts keeps
// such a dot on mma.sync; hand-written IR gets this error).
#sw = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 128>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @fp8_mn_major_b() warps(4) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x128xf8E4M3FN, #sw>
    %bb = tile.local_alloc : !tile.smem<1x128x128xf8E4M3FN, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x128xf8E4M3FN, #sw> -> tensor<64x128xf8E4M3FN, #sw>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x128x128xf8E4M3FN, #sw> -> tensor<128x128xf8E4M3FN, #sw>
    %z = arith.constant dense<0.0> : tensor<64x128xf32, #mma>
    // expected-error @+2 {{8-bit (fp8, i8) wgmma needs B contiguous along K (the transpose is for 16-bit types only)}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z : tensor<64x128xf8E4M3FN, #sw>, tensor<128x128xf8E4M3FN, #sw> -> tensor<64x128xf32, #mma>
    tile.return
  }
}

// -----

// tf32 wgmma has no transpose either.
#sw = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 32>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @tf32_mn_major_b() warps(4) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x32xf32, #sw>
    %bb = tile.local_alloc : !tile.smem<1x32x64xf32, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x32xf32, #sw> -> tensor<64x32xf32, #sw>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x32x64xf32, #sw> -> tensor<32x64xf32, #sw>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    // expected-error @+2 {{tf32 wgmma needs B contiguous along K (the transpose is for 16-bit types only)}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z precision(tf32) : tensor<64x32xf32, #sw>, tensor<32x64xf32, #sw> -> tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// wgmma multiplies f32 as TF32 only: 3xTF32 splits the operands in
// registers (tile-assign-layouts keeps such a dot on mma.sync).
#swa = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 32>
#swb = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 32>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @tf32x3_on_wgmma() warps(4) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x32xf32, #swa>
    %bb = tile.local_alloc : !tile.smem<1x32x64xf32, #swb>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x32xf32, #swa> -> tensor<64x32xf32, #swa>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x32x64xf32, #swb> -> tensor<32x64xf32, #swb>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    // expected-error @+2 {{wgmma multiplies f32 operands as TF32 only; this dot asks for precision(tf32x3)}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z precision(tf32x3) : tensor<64x32xf32, #swa>, tensor<32x64xf32, #swb> -> tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// Warpgroups split N only with warps numbered along M first (mFirst):
// numbered along N first, a warpgroup's four warps are not 64 rows.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 2]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @split_n_numbered_along_n() warps(8) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %bb = tile.local_alloc : !tile.smem<1x64x128xbf16, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x64x128xbf16, #sw> -> tensor<64x128xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<64x128xf32, #mma>
    // expected-error @+2 {{unsupported wgmma operands}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z : tensor<64x64xbf16, #sw>, tensor<64x128xbf16, #sw> -> tensor<64x128xf32, #mma>
    tile.return
  }
}

// -----

// Each warpgroup's B descriptors start at a 64-element segment of an
// N-major B: 32 columns each do not.
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 2], mFirst = true>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @split_n_inside_a_segment() warps(8) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %bb = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    // expected-error @+2 {{warpgroups splitting an N-major B must start at its swizzle segments, got 32 columns each}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z : tensor<64x64xbf16, #sw>, tensor<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// wgmma transposes 16-bit operands only: an 8-bit A must be contiguous
// along K.
#swm = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 128>
#swk = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 128>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @fp8_m_major_a() warps(8) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x128x128xf8E4M3FN, #swm>
    %bb = tile.local_alloc : !tile.smem<1x128x64xf8E4M3FN, #swk>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x128x128xf8E4M3FN, #swm> -> tensor<128x128xf8E4M3FN, #swm>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x128x64xf8E4M3FN, #swk> -> tensor<128x64xf8E4M3FN, #swk>
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
    // expected-error @+2 {{8-bit (fp8, i8) wgmma needs A contiguous along K (the transpose is for 16-bit types only)}}
    // expected-error @+1 {{failed to legalize operation 'tile.dot'}}
    %d = tile.dot %a, %b, %z : tensor<128x128xf8E4M3FN, #swm>, tensor<128x64xf8E4M3FN, #swk> -> tensor<128x64xf32, #mma>
    tile.return
  }
}
