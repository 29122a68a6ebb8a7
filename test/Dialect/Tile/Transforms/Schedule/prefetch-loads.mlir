// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{chip=sm_80},tile-prefetch-loads{chip=sm_80}))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-assign-layouts{chip=sm_80},tile-prefetch-loads{chip=sm_80}))' --remarks-filter=tile-prefetch-loads --remark-format=emitRemark -verify-diagnostics -o /dev/null

// A row reduction (cross-entropy's online max over the vocabulary): the
// block of iteration v + 4096 is loaded first in the body and carried, the
// first block before the loop; the loop reads the carried one.

// CHECK-LABEL: tile.kernel @row_max(
// CHECK:      %[[FIRST:[a-zA-Z0-9_#]+]] = tile.load %[[VIEW:[a-zA-Z0-9_#]+]][%[[ROW:[a-zA-Z0-9_#]+]], %[[LB:[a-zA-Z0-9_#]+]]] padding(neg_inf)
// CHECK:      scf.for %[[IV:[a-zA-Z0-9_#]+]] = %[[LB]] to %{{.+}} step %[[STEP:[a-zA-Z0-9_#]+]] iter_args(%[[M:[a-zA-Z0-9_#]+]] = %{{.+}}, %[[CUR:[a-zA-Z0-9_#]+]] = %[[FIRST]])
// CHECK-NEXT:   %[[NEXT:[a-zA-Z0-9_#]+]] = arith.addi %[[IV]], %[[STEP]] : i32
// CHECK-NEXT:   %[[PRE:[a-zA-Z0-9_#]+]] = tile.load %[[VIEW]][%[[ROW]], %[[NEXT]]] padding(neg_inf)
// CHECK-NEXT:   arith.extf %[[CUR]]
// CHECK:        scf.yield %{{.+}}, %[[PRE]]
tile.kernel @row_max(%X: !tile.ptr<bf16> {tile.align = 16 : i64}, %Out: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32, %V: i32) grid(%M) warps(8) {
  %c0 = arith.constant 0 : i32
  %c4096 = arith.constant 4096 : i32
  %row = tile.program_id x
  %x = tile.make_view %X[%M, %V] strides [%V, 1] : !tile.ptr<bf16>
  %out = tile.make_view %Out[%M] strides [1] : !tile.ptr<f32>
  %m0 = arith.constant dense<0xFF800000> : tensor<1xf32>
  %m = scf.for %v = %c0 to %V step %c4096 iter_args(%m_i = %m0) -> (tensor<1xf32>) : i32 {
    // expected-remark @below {{issued one iteration ahead, into 8 registers a thread}}
    %t = tile.load %x[%row, %v] padding(neg_inf) : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<1x4096xbf16>
    %tf = arith.extf %t : tensor<1x4096xbf16> to tensor<1x4096xf32>
    %bm = tile.reduce max %tf axis = 1 : tensor<1x4096xf32> -> tensor<1xf32>
    %mn = arith.maximumf %m_i, %bm : tensor<1xf32>
    scf.yield %mn : tensor<1xf32>
  }
  tile.store %m, %out[%row] : tensor<1xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// Offsets computed in the body (the key block's column n + 64 * j, read
// from a per-block table with tile.load_scalar): the computation is
// recomputed for the next iteration, the scalar load with it (not carried:
// only the offsets read it).

// CHECK-LABEL: tile.kernel @computed_offsets(
// CHECK:      %[[B0:[a-zA-Z0-9_#]+]] = tile.load_scalar %[[BLOCKS:[a-zA-Z0-9_#]+]][%[[LB:[a-zA-Z0-9_#]+]]]
// CHECK-NEXT: %[[O0:[a-zA-Z0-9_#]+]] = arith.muli %[[B0]], %[[C64:[a-zA-Z0-9_#]+]] : i32
// CHECK-NEXT: %[[FIRST:[a-zA-Z0-9_#]+]] = tile.load %[[IDS:[a-zA-Z0-9_#]+]][%[[O0]]]
// CHECK:      scf.for %[[IV:[a-zA-Z0-9_#]+]] = %[[LB]] to %{{.+}} step %[[STEP:[a-zA-Z0-9_#]+]] iter_args(%{{.+}} = %{{.+}}, %[[CUR:[a-zA-Z0-9_#]+]] = %[[FIRST]])
// CHECK-NEXT:   %[[NEXT:[a-zA-Z0-9_#]+]] = arith.addi %[[IV]], %[[STEP]] : i32
// CHECK-NEXT:   %[[B1:[a-zA-Z0-9_#]+]] = tile.load_scalar %[[BLOCKS]][%[[NEXT]]]
// CHECK-NEXT:   %[[O1:[a-zA-Z0-9_#]+]] = arith.muli %[[B1]], %[[C64]] : i32
// CHECK-NEXT:   %[[PRE:[a-zA-Z0-9_#]+]] = tile.load %[[IDS]][%[[O1]]]
// CHECK:        arith.addi %{{.+}}, %[[CUR]]
// CHECK:        scf.yield %{{.+}}, %[[PRE]]
tile.kernel @computed_offsets(%Ids: !tile.ptr<i32> {tile.align = 16 : i64}, %Blocks: !tile.ptr<i32> {tile.align = 16 : i64}, %Out: !tile.ptr<i32> {tile.align = 16 : i64}, %N: i32, %NB: i32) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c64 = arith.constant 64 : i32
  %ids = tile.make_view %Ids[%N] strides [1] : !tile.ptr<i32>
  %blocks = tile.make_view %Blocks[%NB] strides [1] : !tile.ptr<i32>
  %out = tile.make_view %Out[64] strides [1] : !tile.ptr<i32>
  %zero = arith.constant dense<0> : tensor<64xi32>
  %sum = scf.for %j = %c0 to %NB step %c1 iter_args(%acc = %zero) -> (tensor<64xi32>) : i32 {
    // expected-remark @below {{issued one iteration ahead with the loads whose offsets it gives}}
    %blk = tile.load_scalar %blocks[%j] : !tile.view<?xi32, strides = [1]> -> i32
    %off = arith.muli %blk, %c64 : i32
    // expected-remark @below {{issued one iteration ahead, into 4 registers a thread}}
    %t = tile.load %ids[%off] : !tile.view<?xi32, strides = [1]> -> tensor<64xi32>
    %a = arith.addi %acc, %t : tensor<64xi32>
    scf.yield %a : tensor<64xi32>
  }
  tile.store %sum, %out[%c0] : tensor<64xi32>, !tile.view<64xi32, strides = [1]>
  tile.return
}

// -----

// A loop that stores (Triton's fused softmax walking rows): a load issued
// ahead would be read before the store of the iteration before, so the loop
// is versioned on whether the two views' memory overlaps: the prefetched
// loop where it does not, the loop as written where it does.

// CHECK-LABEL: tile.kernel @stores_in_loop(
// CHECK:      %[[X:.+]] = tile.make_view %X
// CHECK:      %[[Y:.+]] = tile.make_view %Y
// CHECK:      %[[OVERLAP:.+]] = tile.views_overlap %[[X]], %[[Y]]
// CHECK:      scf.if %[[OVERLAP]] {
// CHECK:        scf.for %[[IV0:[a-zA-Z0-9_#]+]] =
// CHECK-NEXT:     tile.load %[[X]][%[[IV0]], %{{.+}}]
// CHECK:          tile.store
// CHECK:      } else {
// CHECK:        %[[FIRST:.+]] = tile.load %[[X]]
// CHECK:        scf.for %[[IV:[a-zA-Z0-9_#]+]] = {{.*}} iter_args(%[[CUR:.+]] = %[[FIRST]])
// CHECK-NEXT:     %[[NEXT_IV:.+]] = arith.addi %[[IV]]
// CHECK-NEXT:     %[[NEXT:.+]] = tile.load %[[X]][%[[NEXT_IV]], %{{.+}}]
// CHECK:          math.exp %[[CUR]]
// CHECK:          tile.store
// CHECK:          scf.yield %[[NEXT]]
tile.kernel @stores_in_loop(%X: !tile.ptr<f32> {tile.align = 16 : i64}, %Y: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32) grid(132) warps(4) {
  %c0 = arith.constant 0 : i32
  %pid = tile.program_id x
  %step = tile.num_programs x
  %x = tile.make_view %X[%M, 1024] strides [1024, 1] : !tile.ptr<f32>
  %y = tile.make_view %Y[%M, 1024] strides [1024, 1] : !tile.ptr<f32>
  scf.for %r = %pid to %M step %step : i32 {
    // expected-remark @below {{issued one iteration ahead, into 8 registers a thread, where a run-time check finds the memory the loop writes apart from the memory it reads (else the loop runs as written)}}
    %t = tile.load %x[%r, %c0] : !tile.view<?x1024xf32, strides = [1024, 1]> -> tensor<1x1024xf32>
    %e = math.exp %t : tensor<1x1024xf32>
    tile.store %e, %y[%r, %c0] : tensor<1x1024xf32>, !tile.view<?x1024xf32, strides = [1024, 1]>
  }
  tile.return
}

// -----

// In place (the store writes through the pointer the load reads): the
// views always overlap, so the loop stays as written.

// CHECK-LABEL: tile.kernel @in_place(
// CHECK-NOT:  tile.views_overlap
// CHECK:      scf.for %[[IV:[a-zA-Z0-9_#]+]] =
// CHECK-NEXT:   tile.load %{{.+}}[%[[IV]], %{{.+}}]
tile.kernel @in_place(%X: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32) grid(132) warps(4) {
  %c0 = arith.constant 0 : i32
  %pid = tile.program_id x
  %step = tile.num_programs x
  %x = tile.make_view %X[%M, 1024] strides [1024, 1] : !tile.ptr<f32>
  scf.for %r = %pid to %M step %step : i32 {
    // expected-remark-re @below {{this load waits for memory in every iteration: the loop writes the buffer it reads ('tile.store' at line {{[0-9]+}} writes through the same pointer), so the next iteration's load is not issued ahead}}
    %t = tile.load %x[%r, %c0] : !tile.view<?x1024xf32, strides = [1024, 1]> -> tensor<1x1024xf32>
    %e = math.exp %t : tensor<1x1024xf32>
    tile.store %e, %x[%r, %c0] : tensor<1x1024xf32>, !tile.view<?x1024xf32, strides = [1024, 1]>
  }
  tile.return
}

// -----

// A view made in the loop has no extent before it: no check, no prefetch.

// CHECK-LABEL: tile.kernel @view_in_loop(
// CHECK-NOT:  tile.views_overlap
tile.kernel @view_in_loop(%X: !tile.ptr<f32> {tile.align = 16 : i64}, %Y: !tile.ptr<f32> {tile.align = 16 : i64}, %M: i32) grid(132) warps(4) {
  %c0 = arith.constant 0 : i32
  %pid = tile.program_id x
  %step = tile.num_programs x
  %x = tile.make_view %X[%M, 1024] strides [1024, 1] : !tile.ptr<f32>
  scf.for %r = %pid to %M step %step : i32 {
    %y = tile.make_view %Y[%r, 1024] strides [1024, 1] : !tile.ptr<f32>
    // expected-remark-re @below {{this load waits for memory in every iteration: the loop writes global memory ('tile.store' at line {{[0-9]+}}) through no view made before it by tile.make_view, so the next iteration's load is not issued ahead}}
    %t = tile.load %x[%r, %c0] : !tile.view<?x1024xf32, strides = [1024, 1]> -> tensor<1x1024xf32>
    tile.store %t, %y[%c0, %c0] : tensor<1x1024xf32>, !tile.view<?x1024xf32, strides = [1024, 1]>
  }
  tile.return
}

// -----

// An offset carried by the loop (a pointer chase) cannot be computed an
// iteration ahead.

// CHECK-LABEL: tile.kernel @carried_offset(
// CHECK:      scf.for
// CHECK-NEXT:   tile.load_scalar
tile.kernel @carried_offset(%Next: !tile.ptr<i32> {tile.align = 16 : i64}, %Out: !tile.ptr<i32> {tile.align = 16 : i64}, %N: i32) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %next = tile.make_view %Next[%N] strides [1] : !tile.ptr<i32>
  %out = tile.make_view %Out[1] strides [1] : !tile.ptr<i32>
  %last = scf.for %i = %c0 to %N step %c1 iter_args(%at = %c0) -> (i32) : i32 {
    // expected-remark @below {{this load waits for memory in every iteration: its offsets depend on a value the loop carries}}
    %n = tile.load_scalar %next[%at] : !tile.view<?xi32, strides = [1]> -> i32
    scf.yield %n : i32
  }
  %t = tile.splat %last : tensor<1xi32>
  tile.store %t, %out[%c0] : tensor<1xi32>, !tile.view<1xi32, strides = [1]>
  tile.return
}

// -----

// A tile past the register budget beside what the loop keeps live: on 4
// warps, the carried 128 x 128 f32 accumulator (128 registers a thread and
// 32 in reserve) leaves no room for a prefetched 128 x 256 f32 tile (256).

// CHECK-LABEL: tile.kernel @over_budget(
// CHECK:      scf.for
// CHECK-NEXT:   tile.load
tile.kernel @over_budget(%X: !tile.ptr<f32> {tile.align = 16 : i64}, %Y: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c256 = arith.constant 256 : i32
  %x = tile.make_view %X[128, %K] strides [%K, 1] : !tile.ptr<f32>
  %y = tile.make_view %Y[128, 128] strides [128, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c256 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    // expected-remark @below {{this load waits for memory in every iteration: issued ahead, its tile would take 256 registers a thread beside the loop's 160, over the budget of 255}}
    %t = tile.load %x[%c0, %k] : !tile.view<128x?xf32, strides = [?, 1]> -> tensor<128x256xf32>
    %s = tile.reduce sum %t axis = 1 : tensor<128x256xf32> -> tensor<128xf32>
    %s2 = tile.expand_dims %s axis = 1 : tensor<128xf32> -> tensor<128x1xf32>
    %sb = tile.broadcast %s2 : tensor<128x1xf32> -> tensor<128x128xf32>
    %n = arith.addf %a, %sb : tensor<128x128xf32>
    scf.yield %n : tensor<128x128xf32>
  }
  tile.store %acc, %y[%c0, %c0] : tensor<128x128xf32>, !tile.view<128x128xf32, strides = [128, 1]>
  tile.return
}

// -----

// A load the program already issues an iteration ahead (the next block's
// row statistics of an attention backward, only yielded) is left as it is.

// CHECK-LABEL: tile.kernel @issued_ahead(
// CHECK:      scf.for %[[IV:[a-zA-Z0-9_#]+]] = %{{.+}} iter_args(%{{.+}} = %{{.+}}, %[[CUR:[a-zA-Z0-9_#]+]] = %{{.+}}) -> (tensor<64xf32, #{{.+}}>, tensor<64xf32, #{{.+}}>)
// CHECK-NEXT:   %[[NEXT:[a-zA-Z0-9_#]+]] = arith.addi %[[IV]]
// CHECK-NEXT:   %[[PRE:[a-zA-Z0-9_#]+]] = tile.load %{{.+}}[%[[NEXT]]]
// CHECK-NEXT:   arith.addf %{{.+}}, %[[CUR]]
// CHECK-NEXT:   scf.yield %{{.+}}, %[[PRE]]
tile.kernel @issued_ahead(%L: !tile.ptr<f32> {tile.align = 16 : i64}, %Out: !tile.ptr<f32> {tile.align = 16 : i64}, %S: i32) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %l = tile.make_view %L[%S] strides [1] : !tile.ptr<f32>
  %out = tile.make_view %Out[64] strides [1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %l0 = tile.load %l[%c0] : !tile.view<?xf32, strides = [1]> -> tensor<64xf32>
  %res:2 = scf.for %m = %c0 to %S step %c64 iter_args(%acc = %zero, %cur = %l0) -> (tensor<64xf32>, tensor<64xf32>) : i32 {
    %mn = arith.addi %m, %c64 : i32
    %next = tile.load %l[%mn] : !tile.view<?xf32, strides = [1]> -> tensor<64xf32>
    %a = arith.addf %acc, %cur : tensor<64xf32>
    scf.yield %a, %next : tensor<64xf32>, tensor<64xf32>
  }
  tile.store %res#0, %out[%c0] : tensor<64xf32>, !tile.view<64xf32, strides = [1]>
  tile.return
}
