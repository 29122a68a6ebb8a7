// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// Global loads and stores: each 16-byte group of registers along the
// contiguous dimension is one vector access when it is in bounds and aligned
// (decided at run time), else one predicated scalar access per element.

#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @vectorized_bf16
  // CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x
  // CHECK: %[[PTR:.+]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
  // CHECK: %[[INT:.+]] = llvm.ptrtoint %[[PTR]] : !llvm.ptr<1> to i64
  // CHECK: arith.andi %[[INT]], %{{.*}} : i64
  // CHECK: %[[V:.+]] = scf.if %{{.*}} -> (vector<8xbf16>) {
  // CHECK:   llvm.load %[[PTR]] {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
  // CHECK: } else {
  // CHECK:   scf.if %{{.*}} -> (bf16) {
  // CHECK:     llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
  // CHECK:   } else {
  // CHECK:     scf.yield %{{.*}} : bf16
  // CHECK: scf.if %{{.*}} {
  // CHECK:   llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
  // CHECK: } else {
  // CHECK:   llvm.store %{{.*}}, %{{.*}} {alignment = 2 : i64} : bf16, !llvm.ptr<1>
  tile.kernel @vectorized_bf16(%x: !tile.ptr<bf16>, %m: i32, %n: i32, %ld: i32) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %x[%m, %n] strides [%ld, 1] : !tile.ptr<bf16>
    %t = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<16x64xbf16, #b>
    tile.store %t, %v[%c0, %c0] : tensor<16x64xbf16, #b>, !tile.view<?x?xbf16, strides = [?, 1]>
    tile.return
  }
}

// -----

// Padding values and explicit masks.
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @masked_scalar
  // CHECK-DAG: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
  // CHECK-DAG: %[[M:.+]] = vector.extract %{{.*}}[0] : i1 from vector<1xi1>
  // CHECK: %[[P:.+]] = arith.andi %{{.*}}, %[[M]] : i1
  // CHECK: scf.if %[[P]] -> (f32)
  // CHECK: scf.yield %[[NINF]] : f32
  tile.kernel @masked_scalar(%x: !tile.ptr<f32>, %n: i32) warps(1) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %x[%n] strides [%n] : !tile.ptr<f32>
    %mask = arith.constant dense<true> : tensor<32xi1, #b>
    %t = tile.load %v[%c0] mask(%mask : tensor<32xi1, #b>) padding(neg_inf) : !tile.view<?xf32, strides = [?]> -> tensor<32xf32, #b>
    tile.store %t, %v[%c0] : tensor<32xf32, #b>, !tile.view<?xf32, strides = [?]>
    tile.return
  }
}

// -----

// A rank-2 tile of a rank-3 view: the leading offset is bounds-checked once.
#b = #tile.blocked<sizePerThread = [1, 4], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @leading_dims
  // CHECK: %[[B:.+]] = arith.extsi %arg1 : i32 to i64
  // CHECK: arith.muli %[[B]], %{{.*}} overflow<nsw> : i64
  // CHECK: arith.cmpi ult
  // CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<4xf32>
  tile.kernel @leading_dims(%x: !tile.ptr<f32>, %b: i32, %n: i32) warps(1) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %x[%b, %n, 128] strides [%n, 128, 1] : !tile.ptr<f32>
    %t = tile.load %v[%b, %c0, %c0] : !tile.view<?x?x128xf32, strides = [?, 128, 1]> -> tensor<1x128xf32, #b>
    tile.store %t, %v[%b, %c0, %c0] : tensor<1x128xf32, #b>, !tile.view<?x?x128xf32, strides = [?, 128, 1]>
    tile.return
  }
}

// -----

// Threads holding copies of an element (here: 64 threads for 32 elements)
// leave the store to one of them.
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [2], order = [0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @broadcast_store
  // CHECK: %[[WARP:.+]] = arith.shrui %{{.*}}, %{{.*}} : i32
  // CHECK: %[[W:.+]] = arith.andi %[[WARP]], %{{.*}} : i32
  // CHECK: %[[FIRST:.+]] = arith.cmpi eq, %[[W]], %{{.*}} : i32
  // CHECK: arith.andi %{{.*}}, %[[FIRST]] : i1
  // CHECK: llvm.store
  tile.kernel @broadcast_store(%x: !tile.ptr<f32>, %n: i32) warps(2) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>
    %z = arith.constant dense<1.0> : tensor<32xf32, #b>
    tile.store %z, %v[%c0] : tensor<32xf32, #b>, !tile.view<?xf32, strides = [1]>
    tile.return
  }
}

// -----

// tile.load_scalar: one invariant load (ld.global.nc) at the indices times
// the strides when every index is inside the view, else zero; its value
// feeds scalar code such as a tile's offset.
#b = #tile.blocked<sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @load_scalar
  // CHECK: %[[I:.+]] = arith.extsi %arg1 : i32 to i64
  // CHECK: %[[OFF0:.+]] = arith.muli %[[I]], %{{.+}} overflow<nsw> : i64
  // CHECK: %[[IN0:.+]] = arith.cmpi ult, %arg1, %{{.+}} : i32
  // CHECK: %[[J:.+]] = arith.extsi %arg2 : i32 to i64
  // CHECK: %[[OFF1:.+]] = arith.muli %[[J]], %{{.+}} overflow<nsw> : i64
  // CHECK: %[[OFF:.+]] = arith.addi %{{.+}}, %[[OFF1]] overflow<nsw> : i64
  // CHECK: %[[IN1:.+]] = arith.cmpi ult, %arg2, %{{.+}} : i32
  // CHECK: %[[IN:.+]] = arith.andi %[[IN0]], %[[IN1]] : i1
  // CHECK: %[[PTR:.+]] = llvm.getelementptr %{{.+}}[%[[OFF]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
  // CHECK: %[[ZERO:.+]] = arith.constant 0 : i32
  // CHECK: %[[V:.+]] = scf.if %[[IN]] -> (i32) {
  // CHECK:   %[[L:.+]] = llvm.load %[[PTR]] invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
  // CHECK:   scf.yield %[[L]] : i32
  // CHECK: } else {
  // CHECK:   scf.yield %[[ZERO]] : i32
  // CHECK: }
  // CHECK: arith.addi %[[V]], %{{.+}} : i32
  tile.kernel @load_scalar(%x: !tile.ptr<i32>, %i: i32, %j: i32, %y: !tile.ptr<f32>, %n: i32) warps(1) {
    %v = tile.make_view %x[4, 8] strides [8, 1] : !tile.ptr<i32>
    %s = tile.load_scalar %v[%i, %j] : !tile.view<4x8xi32, strides = [8, 1]> -> i32
    %w = tile.make_view %y[%n] strides [1] : !tile.ptr<f32>
    %t = arith.constant dense<1.0> : tensor<32xf32, #b>
    %off = arith.addi %s, %i : i32
    tile.store %t, %w[%off] : tensor<32xf32, #b>, !tile.view<?xf32, strides = [1]>
    tile.return
  }
}

// -----

// tile.atomic_add: one relaxed device-scope atomic add per element (its
// result unused: red.global.add.f32), under the element's bounds and mask
// predicate; threads holding copies leave the add to one of them.
#b = #tile.blocked<sizePerThread = [1, 2], threadsPerWarp = [8, 4], warpsPerCTA = [1, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @atomic_add
  // CHECK: %[[M:.+]] = vector.extract %{{.*}}[0] : i1 from vector<2xi1>
  // CHECK: %[[P:.+]] = arith.andi %{{.*}}, %[[M]] : i1
  // CHECK: scf.if %{{.*}} {
  // CHECK:   llvm.atomicrmw fadd %{{.*}}, %{{.*}} syncscope("device") monotonic {alignment = 4 : i64} : !llvm.ptr<1>, f32
  // CHECK: scf.if %{{.*}} {
  // CHECK:   llvm.atomicrmw fadd
  // CHECK-NOT: llvm.atomicrmw
  // CHECK-NOT: llvm.store
  // CHECK: llvm.return
  tile.kernel @atomic_add(%x: !tile.ptr<f32>, %n: i32) warps(1) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %x[%n, 8] strides [8, 1] : !tile.ptr<f32>
    %t = arith.constant dense<1.0> : tensor<8x8xf32, #b>
    %mask = arith.constant dense<true> : tensor<8x8xi1, #b>
    tile.atomic_add %t, %v[%c0, %c0] mask(%mask : tensor<8x8xi1, #b>) : tensor<8x8xf32, #b>, !tile.view<?x8xf32, strides = [8, 1]>
    tile.return
  }
}

// -----

// A vector group's fast path tests the row and the group's first and last
// column (three compares, whatever the group's width); the per-element
// compares of the scalar fallback are made in that branch only, so they
// take no registers where the group is whole.
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @group_bounds
  // CHECK-COUNT-3: arith.cmpi ult
  // CHECK-NOT:     arith.cmpi ult
  // CHECK:         scf.if %{{.*}} -> (vector<8xbf16>) {
  // CHECK:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
  // CHECK:         } else {
  // CHECK-COUNT-9:   arith.cmpi ult
  // CHECK:           scf.if %{{.*}} -> (bf16) {
  tile.kernel @group_bounds(%x: !tile.ptr<bf16>, %m: i32, %n: i32, %ld: i32) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %x[%m, %n] strides [%ld, 1] : !tile.ptr<bf16>
    %t = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<1x256xbf16, #b>
    tile.store %t, %v[%c0, %c0] : tensor<1x256xbf16, #b>, !tile.view<?x?xbf16, strides = [?, 1]>
    tile.return
  }
}

// -----

// What the program proves is not checked at run time. A base with
// tile.align = 16, a row stride and a column offset that are multiples of
// the group: no alignment check. A row length that is a multiple of the
// group (a constant, or a tile.divisibility hint): every group lies wholly
// inside or wholly outside the view, so its first column decides, and an
// unmasked group outside is padding (a load) or nothing (a store): no
// scalar fallback.
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @proven_groups
  // CHECK-NOT:     llvm.ptrtoint
  // CHECK-COUNT-2: arith.cmpi ult
  // CHECK-NOT:     arith.cmpi ult
  // CHECK:         scf.if %{{.*}} -> (vector<8xbf16>) {
  // CHECK:           llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
  // CHECK:         } else {
  // CHECK-NEXT:      vector.from_elements
  // CHECK-NEXT:      scf.yield
  // CHECK:         scf.if %{{.*}} {
  // CHECK-NEXT:      llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<8xbf16>, !llvm.ptr<1>
  // CHECK-NEXT:    }
  // CHECK-NOT:     llvm.ptrtoint
  // CHECK-NOT:     {alignment = 2 : i64}
  // CHECK:         llvm.return
  tile.kernel @proven_groups(%x: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32, %n: i32 {tile.divisibility = 8 : i64}, %ld: i32 {tile.divisibility = 16 : i64}, %j: i32) {
    %c0 = arith.constant 0 : i32
    %c64 = arith.constant 64 : i32
    %col = arith.muli %j, %c64 : i32
    %v = tile.make_view %x[%m, %n] strides [%ld, 1] : !tile.ptr<bf16>
    %t = tile.load %v[%c0, %col] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<16x64xbf16, #b>
    tile.store %t, %v[%c0, %col] : tensor<16x64xbf16, #b>, !tile.view<?x?xbf16, strides = [?, 1]>
    tile.return
  }
}

// -----

// Aligned groups of a row whose length is not known to be a multiple of the
// group: no alignment check, but a group may straddle the row's end, so the
// scalar fallback stays.
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @aligned_ragged
  // CHECK-NOT: llvm.ptrtoint
  // CHECK:     llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<1> -> vector<8xbf16>
  // CHECK:     llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
  tile.kernel @aligned_ragged(%x: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32, %n: i32, %ld: i32 {tile.divisibility = 8 : i64}) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %x[%m, %n] strides [%ld, 1] : !tile.ptr<bf16>
    %t = tile.load %v[%c0, %c0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<16x64xbf16, #b>
    tile.store %t, %v[%c0, %c0] : tensor<16x64xbf16, #b>, !tile.view<?x?xbf16, strides = [?, 1]>
    tile.return
  }
}

// -----

// Whole groups that may be misaligned (a column offset not known to be a
// multiple of the group, or a row stride without a hint): checked at run
// time, with the scalar fallback.
#b = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @unproven_offset
  // CHECK:     llvm.ptrtoint
  // CHECK:     llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
  tile.kernel @unproven_offset(%x: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32, %ld: i32 {tile.divisibility = 8 : i64}, %j: i32) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %x[%m, 128] strides [%ld, 1] : !tile.ptr<bf16>
    %t = tile.load %v[%c0, %j] : !tile.view<?x128xbf16, strides = [?, 1]> -> tensor<16x64xbf16, #b>
    tile.store %t, %v[%c0, %c0] : tensor<16x64xbf16, #b>, !tile.view<?x128xbf16, strides = [?, 1]>
    tile.return
  }
  // CHECK-LABEL: llvm.func @unproven_stride
  // CHECK:     llvm.ptrtoint
  // CHECK:     llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<1> -> bf16
  tile.kernel @unproven_stride(%x: !tile.ptr<bf16> {tile.align = 16 : i64}, %m: i32, %ld: i32) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %x[%m, 128] strides [%ld, 1] : !tile.ptr<bf16>
    %t = tile.load %v[%c0, %c0] : !tile.view<?x128xbf16, strides = [?, 1]> -> tensor<16x64xbf16, #b>
    tile.store %t, %v[%c0, %c0] : tensor<16x64xbf16, #b>, !tile.view<?x128xbf16, strides = [?, 1]>
    tile.return
  }
}

// -----

// tile.views_overlap: each view spans [base + the negative parts of
// (size - 1) * stride, base + the positive parts + one element) in bytes; an
// empty view (a size of zero or less) spans nothing.
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @views_overlap
  // CHECK:     arith.subi
  // CHECK:     %[[EXT:.+]] = arith.muli %{{.+}}, %{{.+}} overflow<nsw> : i64
  // CHECK:     arith.minsi %[[EXT]], %{{.+}} : i64
  // CHECK:     arith.maxsi %[[EXT]], %{{.+}} : i64
  // CHECK:     arith.cmpi sle
  // CHECK:     %[[XADDR:.+]] = llvm.ptrtoint
  // CHECK:     %[[XFIRST:.+]] = arith.addi %[[XADDR]], %{{.+}} : i64
  // CHECK:     %[[XEND:.+]] = arith.addi %[[XADDR]], %{{.+}} : i64
  // CHECK:     %[[YADDR:.+]] = llvm.ptrtoint
  // CHECK:     %[[YFIRST:.+]] = arith.addi %[[YADDR]], %{{.+}} : i64
  // CHECK:     %[[YEND:.+]] = arith.addi %[[YADDR]], %{{.+}} : i64
  // CHECK:     %[[A:.+]] = arith.cmpi ult, %[[XFIRST]], %[[YEND]] : i64
  // CHECK:     %[[B:.+]] = arith.cmpi ult, %[[YFIRST]], %[[XEND]] : i64
  // CHECK:     %[[MEET:.+]] = arith.andi %[[A]], %[[B]] : i1
  // CHECK:     %[[EMPTY:.+]] = arith.ori %{{.+}}, %{{.+}} : i1
  // CHECK:     %[[NONEMPTY:.+]] = arith.xori %[[EMPTY]], %{{.+}} : i1
  // CHECK:     %[[OVERLAP:.+]] = arith.andi %[[MEET]], %[[NONEMPTY]] : i1
  // CHECK:     scf.if %[[OVERLAP]]
  tile.kernel @views_overlap(%x: !tile.ptr<f32>, %y: !tile.ptr<bf16>, %m: i32, %ld: i32) warps(1) {
    %c0 = arith.constant 0 : i32
    %vx = tile.make_view %x[%m, 64] strides [%ld, 1] : !tile.ptr<f32>
    %vy = tile.make_view %y[%m] strides [1] : !tile.ptr<bf16>
    %o = tile.views_overlap %vx, %vy : !tile.view<?x64xf32, strides = [?, 1]>, !tile.view<?xbf16, strides = [1]>
    scf.if %o {
      %s = tile.load_scalar %vx[%c0, %c0] : !tile.view<?x64xf32, strides = [?, 1]> -> f32
    }
    tile.return
  }
}
