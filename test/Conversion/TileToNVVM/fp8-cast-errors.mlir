// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))'

// sm_80 has no cvt on e4m3x2/e5m2x2: casts to and from fp8 are refused.
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @to_fp8(%x: f32) {
    %v = tile.splat %x : tensor<16x64xf32, #b>
    // expected-error @+2 {{casts to and from 'f8E4M3FN' need cvt on e4m3x2/e5m2x2 (sm_89 or later), not sm_80}}
    // expected-error @+1 {{failed to legalize operation 'arith.truncf'}}
    %q = arith.truncf %v : tensor<16x64xf32, #b> to tensor<16x64xf8E4M3FN, #b>
    tile.return
  }
}

// -----

#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  tile.kernel @from_fp8(%p: !tile.ptr<f8E5M2>) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %p[16, 64] strides [64, 1] : !tile.ptr<f8E5M2>
    %q = tile.load %v[%c0, %c0] : !tile.view<16x64xf8E5M2, strides = [64, 1]> -> tensor<16x64xf8E5M2, #b>
    // expected-error @+2 {{casts to and from 'f8E5M2' need cvt on e4m3x2/e5m2x2 (sm_89 or later), not sm_80}}
    // expected-error @+1 {{failed to legalize operation 'arith.extf'}}
    %f = arith.extf %q : tensor<16x64xf8E5M2, #b> to tensor<16x64xf32, #b>
    tile.return
  }
}

// -----

// Arithmetic on fp8 tiles (no fp8 ALU): extend first.
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  tile.kernel @add_fp8(%p: !tile.ptr<f8E4M3FN>) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %p[16, 64] strides [64, 1] : !tile.ptr<f8E4M3FN>
    %q = tile.load %v[%c0, %c0] : !tile.view<16x64xf8E4M3FN, strides = [64, 1]> -> tensor<16x64xf8E4M3FN, #b>
    // expected-error @+2 {{arithmetic on fp8 tiles is not supported: arith.extf them to f32 (or f16) first}}
    // expected-error @+1 {{failed to legalize operation 'arith.addf'}}
    %s = arith.addf %q, %q : tensor<16x64xf8E4M3FN, #b>
    tile.return
  }
}
