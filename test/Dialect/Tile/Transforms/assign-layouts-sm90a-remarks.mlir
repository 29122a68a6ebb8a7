// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{chip=sm_90a}))' --remarks-filter=tile-assign-layouts --remark-format=emitRemark -verify-diagnostics -o /dev/null

// On sm_90a, a dot that stays on mma.sync says why (the rule it breaks).

tile.kernel @rows_per_warpgroup(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 8 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %a = tile.make_view %A[32, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, 128] strides [128, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[32, 128] strides [128, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<32x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<32x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<32x?xbf16, strides = [?, 1]> -> tensor<32x64xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<64x128xbf16>
    // expected-remark @below {{this dot runs on mma.sync: its 32 rows are not a multiple of 64 per warpgroup (64 with 4 warps) or a divisor of them in whole warpgroups}}
    %d = tile.dot %ta, %tb, %acc : tensor<32x64xbf16>, tensor<64x128xbf16> -> tensor<32x128xf32>
    scf.yield %d : tensor<32x128xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<32x128xf32>, !tile.view<32x128xf32, strides = [128, 1]>
  tile.return
}

// -----

// B is loaded without a provable 16-byte alignment: no ring can bring it to
// shared memory, so it is staged there from registers, on wgmma (no remark:
// tile-pipeline's Staged names the buffer).
tile.kernel @unaligned_b(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 8 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %a = tile.make_view %A[64, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, 128] strides [128, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[64, 128] strides [128, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<64x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x128xbf16, strides = [128, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x128xbf16> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<64x128xf32, strides = [128, 1]>
  tile.return
}

// -----

// fp8 wgmma has no transpose: a B contiguous along N stays on mma.sync, and
// the remark says how to lay it out instead.
tile.kernel @fp8_n_major_b(%A: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %B: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 16 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c128 = arith.constant 128 : i32
  %a = tile.make_view %A[64, %K] strides [%K, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%K, 128] strides [128, 1] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[64, 128] strides [128, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<64x?xf8E4M3FN, strides = [?, 1]> -> tensor<64x128xf8E4M3FN>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x128xf8E4M3FN, strides = [128, 1]> -> tensor<128x128xf8E4M3FN>
    // expected-remark @below {{this dot runs on mma.sync: 8-bit (fp8, i8) wgmma reads B K-major, and this B is contiguous along N: load it as an N x K tile (K contiguous) and tile.trans it, the layout torch._scaled_mm takes}}
    %d = tile.dot %ta, %tb, %acc : tensor<64x128xf8E4M3FN>, tensor<128x128xf8E4M3FN> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<64x128xf32, strides = [128, 1]>
  tile.return
}

// -----

// An fp8 K tile of 32 is half a 64-byte swizzle row, the smallest swizzle
// span wgmma takes here: neither a ring stage nor a staging buffer for
// wgmma. (K = 64 takes the 64-byte swizzle: assign-layouts-sm90a.mlir.)
tile.kernel @fp8_short_k(%A: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %B: !tile.ptr<f8E4M3FN> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 16 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %a = tile.make_view %A[64, %K] strides [%K, 1] : !tile.ptr<f8E4M3FN>
  %b = tile.make_view %B[%K, 128] strides [1, %K] : !tile.ptr<f8E4M3FN>
  %c = tile.make_view %C[64, 128] strides [128, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<64x?xf8E4M3FN, strides = [?, 1]> -> tensor<64x32xf8E4M3FN>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x128xf8E4M3FN, strides = [1, ?]> -> tensor<32x128xf8E4M3FN>
    // expected-remark @below {{this dot runs on mma.sync: B reaches shared memory neither through a TMA or cp.async ring nor through a staging buffer, whose rows are whole swizzle spans: K a multiple of 64 (K-major), and this B is 32 x 128}}
    %d = tile.dot %ta, %tb, %acc : tensor<64x32xf8E4M3FN>, tensor<32x128xf8E4M3FN> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<64x128xf32, strides = [128, 1]>
  tile.return
}

// -----

// tf32 wgmma has no transpose either; the remark names the type.
tile.kernel @tf32_n_major_b(%A: !tile.ptr<f32> {tile.align = 16 : i64}, %B: !tile.ptr<f32> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 4 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %a = tile.make_view %A[64, %K] strides [%K, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[%K, 128] strides [128, 1] : !tile.ptr<f32>
  %c = tile.make_view %C[64, 128] strides [128, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<64x?xf32, strides = [?, 1]> -> tensor<64x32xf32>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x128xf32, strides = [128, 1]> -> tensor<32x128xf32>
    // expected-remark @below {{this dot runs on mma.sync: tf32 wgmma reads B K-major, and this B is contiguous along N: load it as an N x K tile (K contiguous) and tile.trans it}}
    %d = tile.dot %ta, %tb, %acc precision(tf32) : tensor<64x32xf32>, tensor<32x128xf32> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<64x128xf32, strides = [128, 1]>
  tile.return
}

// -----

// 3xTF32 splits both operands in registers: mma.sync.
tile.kernel @tf32x3(%A: !tile.ptr<f32> {tile.align = 16 : i64}, %B: !tile.ptr<f32> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 4 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %a = tile.make_view %A[64, %K] strides [%K, 1] : !tile.ptr<f32>
  %b = tile.make_view %B[128, %K] strides [%K, 1] : !tile.ptr<f32>
  %c = tile.make_view %C[64, 128] strides [128, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<64x128xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<64x128xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<64x?xf32, strides = [?, 1]> -> tensor<64x32xf32>
    %tw = tile.load %b[%c0, %k] : !tile.view<128x?xf32, strides = [?, 1]> -> tensor<128x32xf32>
    %tb = tile.trans %tw : tensor<128x32xf32> -> tensor<32x128xf32>
    // expected-remark @below {{this dot runs on mma.sync: precision(tf32x3) splits both operands in registers, and wgmma reads B from shared memory}}
    %d = tile.dot %ta, %tb, %acc precision(tf32x3) : tensor<64x32xf32>, tensor<32x128xf32> -> tensor<64x128xf32>
    scf.yield %d : tensor<64x128xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<64x128xf32>, !tile.view<64x128xf32, strides = [128, 1]>
  tile.return
}

// -----

// Two warpgroups on 64 rows split N, but 64 columns of an N-major B give
// each 32: not whole 64-element swizzle segments, where wgmma descriptors
// start.
tile.kernel @split_n_inside_a_segment(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 8 : i64}) grid(1) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %a = tile.make_view %A[64, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, 64] strides [64, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[64, 64] strides [64, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<64x?xbf16, strides = [?, 1]> -> tensor<64x64xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    // expected-remark @below {{this dot runs on mma.sync: its 2 warpgroups split N = 64 of an N-major B into 32 columns each, not whole 64-element swizzle segments}}
    %d = tile.dot %ta, %tb, %acc : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %d : tensor<64x64xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<64x64xf32>, !tile.view<64x64xf32, strides = [64, 1]>
  tile.return
}
