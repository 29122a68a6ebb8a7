// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// Casts to fp8 (carried as i8) convert pairs with
// cvt.rn.satfinite.e4m3x2.f32: the pair's first element goes in as the
// instruction's `b` (the low byte, element 0 of the vector<2xi8>); sources
// in bf16 go through f32. Casts from fp8 are cvt.rn.f16x2.e4m3x2 pairs,
// then f16 -> f32 (exact).
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
  // CHECK-LABEL: llvm.func @casts
  // CHECK-SAME: (%[[X:.+]]: f32)
  // CHECK: %[[V:.+]] = vector.broadcast %[[X]] : f32 to vector<8xf32>
  // CHECK: %[[V0:.+]] = vector.extract %[[V]][0] : f32 from vector<8xf32>
  // CHECK: %[[V1:.+]] = vector.extract %[[V]][1] : f32 from vector<8xf32>
  // CHECK: %[[Q01:.+]] = nvvm.convert.f32x2.to.f8x2 %[[V1]], %[[V0]] {rnd = #nvvm.fp_rnd_mode<rn>, sat = #nvvm.sat_mode<satfinite>} : vector<2xi8>(f8E4M3FN)
  // CHECK-COUNT-3: nvvm.convert.f32x2.to.f8x2 {{.*}} : vector<2xi8>(f8E4M3FN)
  // CHECK-NOT: nvvm.convert.f32x2.to.f8x2 {{.*}}(f8E4M3FN)
  // CHECK: %[[Q:.+]] = vector.from_elements {{.*}} : vector<8xi8>
  // e5m2 from bf16: through f32.
  // CHECK: arith.extf %{{.+}} : bf16 to f32
  // CHECK: nvvm.convert.f32x2.to.f8x2 {{.*}} : vector<2xi8>(f8E5M2)
  // Back: pairs of bytes to f16x2, then f32.
  // CHECK: %[[P:.+]] = vector.from_elements %{{.+}}, %{{.+}} : vector<2xi8>
  // CHECK: %[[H:.+]] = nvvm.convert.f8x2.to.f16x2 %[[P]] : vector<2xi8>(f8E4M3FN) -> vector<2xf16>
  // CHECK: %[[H0:.+]] = vector.extract %[[H]][0] : f16 from vector<2xf16>
  // CHECK: arith.extf %[[H0]] : f16 to f32
  tile.kernel @casts(%x: f32) {
    %v = tile.splat %x : tensor<16x64xf32, #b>
    %q = arith.truncf %v : tensor<16x64xf32, #b> to tensor<16x64xf8E4M3FN, #b>
    %h = arith.truncf %v : tensor<16x64xf32, #b> to tensor<16x64xbf16, #b>
    %q5 = arith.truncf %h : tensor<16x64xbf16, #b> to tensor<16x64xf8E5M2, #b>
    %back = arith.extf %q : tensor<16x64xf8E4M3FN, #b> to tensor<16x64xf32, #b>
    tile.return
  }
}
