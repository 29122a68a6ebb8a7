// RUN: tilec-opt %s --tilec-to-nvvm=chip=sm_80 | FileCheck %s
// RUN: tilec-opt %s --pass-pipeline='builtin.module(tilec-to-nvvm{chip=sm_89 O=2})' | FileCheck %s --check-prefix=SM89
// RUN: tilec-opt %s --tilec-to-ptx=chip=sm_90a | FileCheck %s --check-prefix=PTX

// The named pipelines take a tile program to LLVM/NVVM dialect kernels in
// one gpu.module per kernel, and (tilec-to-ptx) to PTX.

// CHECK: gpu.module @scale [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">]
// CHECK: llvm.func @scale(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32)
// CHECK-SAME: nvvm.kernel
// CHECK-NOT: tile.{{(kernel|load|store|make_view)}}
// CHECK-NOT: arith.
// CHECK-NOT: scf.
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
// CHECK: llvm.fmul
// CHECK: llvm.store
// SM89: #nvvm.target<chip = "sm_89", features = "+ptx84">
// PTX: gpu.binary @scale [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">
// PTX-SAME: .version 8.6
// PTX-SAME: .target sm_90a
tile.kernel @scale(%x: !tile.ptr<f32>, %n: i32) grid(ceildiv(%n, 512)) {
  %c512 = arith.constant 512 : i32
  %pid = tile.program_id x
  %off = arith.muli %pid, %c512 : i32
  %v = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>
  %t = tile.load %v[%off] : !tile.view<?xf32, strides = [1]> -> tensor<512xf32>
  %two = arith.constant dense<2.0> : tensor<512xf32>
  %r = arith.mulf %t, %two : tensor<512xf32>
  tile.store %r, %v[%off] : tensor<512xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}
