// RUN: tilec-opt %s -split-input-file --tile-split-loops | FileCheck %s
// RUN: tilec-opt %s -split-input-file --tile-split-loops --remarks-filter=tile-split-loops --remark-format=emitRemark 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// A key loop masking the blocks from %full on: the blocks before run the
// unmasked branch, those from the first block at or past %full (rounded up
// to the loop's grid) the masked one; the second loop starts from the
// first's results, and both branches on the comparison are gone.
// CHECK-LABEL: tile.kernel @masked_tail
// CHECK-SAME: (%{{.+}}: !tile.ptr<f32>, %[[N:.+]]: i32, %[[FULL:.+]]: i32, %[[X:.+]]: f32)
// CHECK-DAG: %[[LB:.+]] = arith.constant 16 : i32
// CHECK-DAG: %[[ST:.+]] = arith.constant 64 : i32
// The bound is clamped to [lb, ub] before the rounding: unclamped, a bound
// near INT32_MAX wrapped lb + ceil((x - lb) / st) * st below lb.
// CHECK: %[[MAX:.+]] = arith.maxsi %[[FULL]], %[[LB]] : i32
// CHECK: %[[CLAMP:.+]] = arith.minsi %[[MAX]], %[[N]] : i32
// CHECK: %[[AHEAD:.+]] = arith.subi %[[CLAMP]], %[[LB]] : i32
// CHECK: %[[ITERS:.+]] = arith.ceildivsi %[[AHEAD]], %[[ST]] : i32
// CHECK: %[[SPAN:.+]] = arith.muli %[[ITERS]], %[[ST]] : i32
// CHECK: %[[AT0:.+]] = arith.addi %[[LB]], %[[SPAN]] : i32
// CHECK: %[[AT:.+]] = arith.minsi %[[N]], %[[AT0]] : i32
// CHECK: %[[A:.+]] = scf.for %{{.+}} = %[[LB]] to %[[AT]] step %[[ST]] iter_args(%[[ACC:.+]] = %[[X]]) -> (f32)
// CHECK-NOT: scf.if
// CHECK: %[[U:.+]] = arith.addf %[[ACC]], %[[ACC]] : f32
// CHECK-NOT: arith.mulf
// CHECK: scf.yield %[[U]] : f32
// CHECK: %[[B:.+]] = scf.for %{{.+}} = %[[AT]] to %[[N]] step %[[ST]] iter_args(%[[ACC2:.+]] = %[[A]]) -> (f32)
// CHECK-NOT: scf.if
// CHECK: %[[M:.+]] = arith.mulf %[[ACC2]], %[[ACC2]] : f32
// CHECK: arith.subf
// CHECK-NOT: arith.addf
// CHECK: scf.yield %{{.+}} : f32
// CHECK: tile.splat %[[B]]
tile.kernel @masked_tail(%p: !tile.ptr<f32>, %n: i32, %full: i32, %x: f32) warps(4) {
  %view = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  %lb = arith.constant 16 : i32
  %st = arith.constant 64 : i32
  // REMARK: split-loops.mlir:[[@LINE+1]]:8: remark: [Passed] Split | Category:tile-split-loops | Remark="the iterations before the bound
  %r = scf.for %i = %lb to %n step %st iter_args(%acc = %x) -> (f32) : i32 {
    %edge = arith.cmpi sge, %i, %full : i32
    %v = scf.if %edge -> (f32) {
      %m = arith.mulf %acc, %acc : f32
      scf.yield %m : f32
    } else {
      %u = arith.addf %acc, %acc : f32
      scf.yield %u : f32
    }
    // A second branch on the same comparison.
    %w = scf.if %edge -> (f32) {
      %d = arith.subf %v, %acc : f32
      scf.yield %d : f32
    } else {
      scf.yield %v : f32
    }
    scf.yield %w : f32
  }
  %t1 = tile.splat %r : tensor<16xf32>
  tile.store %t1, %view[%n] : tensor<16xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// The mirrored comparison (x > i: the iterations before x take the branch).
// CHECK-LABEL: tile.kernel @head_first
// CHECK: scf.for %[[I:.+]] = %{{.+}} to
// CHECK-NOT: scf.if
// CHECK: arith.addf
// CHECK: tile.store %{{.+}}, %{{.+}}[%[[I]]]
// CHECK: scf.for %[[J:.+]] = %{{.+}} to
// CHECK-NOT: arith.addf
// CHECK-NOT: tile.store %{{.+}}, %{{.+}}[%[[J]]]
// CHECK: tile.return
tile.kernel @head_first(%p: !tile.ptr<f32>, %n: i32, %x: i32, %y: f32) warps(4) {
  %view = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  // REMARK: split-loops.mlir:[[@LINE+1]]:8: remark: [Passed] Split
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y) -> (f32) : i32 {
    %head = arith.cmpi sgt, %x, %i : i32
    %v = scf.if %head -> (f32) {
      %u = arith.addf %acc, %acc : f32
      scf.yield %u : f32
    } else {
      scf.yield %acc : f32
    }
    // A branch without an else: it goes from the second loop.
    scf.if %head {
      %s = tile.splat %acc : tensor<16xf32>
      tile.store %s, %view[%i] : tensor<16xf32>, !tile.view<?xf32, strides = [1]>
    }
    scf.yield %v : f32
  }
  %t2 = tile.splat %r : tensor<16xf32>
  tile.store %t2, %view[%n] : tensor<16xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// Left alone: a bound computed in the loop, an equality, a comparison that
// decides no branch, and a loop around another loop.
// CHECK-LABEL: tile.kernel @not_split
// CHECK-COUNT-5: scf.for
// CHECK-NOT: scf.for
// REMARK-NOT: Split
tile.kernel @not_split(%p: !tile.ptr<f32>, %n: i32, %x: i32, %y: f32) warps(4) {
  %view = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y) -> (f32) : i32 {
    %b = arith.addi %x, %i : i32
    %e = arith.cmpi sge, %i, %b : i32
    %v = scf.if %e -> (f32) {
      %u = arith.addf %acc, %acc : f32
      scf.yield %u : f32
    } else {
      scf.yield %acc : f32
    }
    scf.yield %v : f32
  }
  %b = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> (f32) : i32 {
    %e = arith.cmpi eq, %i, %x : i32
    %v = scf.if %e -> (f32) {
      %u = arith.addf %acc, %acc : f32
      scf.yield %u : f32
    } else {
      scf.yield %acc : f32
    }
    scf.yield %v : f32
  }
  %c = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %b) -> (f32) : i32 {
    %e = arith.cmpi sge, %i, %x : i32
    %s = arith.select %e, %acc, %y : f32
    scf.yield %s : f32
  }
  scf.for %j = %c0 to %n step %c1 : i32 {
    scf.for %i = %c0 to %n step %c1 : i32 {
      %e = arith.cmpi sge, %j, %x : i32
      scf.if %e {
        %t3 = tile.splat %c : tensor<16xf32>
        tile.store %t3, %view[%i] : tensor<16xf32>, !tile.view<?xf32, strides = [1]>
      }
    }
  }
  tile.return
}

// -----

// schedule<split_loops = false> keeps the loop whole.
// CHECK-LABEL: tile.kernel @kept
// CHECK-SAME: schedule<split_loops = false>
// CHECK: scf.for
// CHECK: scf.if
// CHECK-NOT: scf.for
tile.kernel @kept(%p: !tile.ptr<f32>, %n: i32, %x: i32, %y: f32) warps(4) schedule<split_loops = false> {
  %view = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y) -> (f32) : i32 {
    %e = arith.cmpi sge, %i, %x : i32
    %v = scf.if %e -> (f32) {
      %u = arith.addf %acc, %acc : f32
      scf.yield %u : f32
    } else {
      scf.yield %acc : f32
    }
    scf.yield %v : f32
  }
  %t = tile.splat %r : tensor<16xf32>
  tile.store %t, %view[%n] : tensor<16xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// tile-mask-bounds's branch (a comparison marked tile.mask_bound) in a
// loop that waits on a 2-stage TMA ring (the carried stage wraps at 2): the
// split ran slower there, so the masked branch is kept, inlined, in one
// loop (the program as written), with a missed remark.
// CHECK-LABEL: tile.kernel @shallow_ring
// CHECK: scf.for
// CHECK-NOT: scf.if
// CHECK: tile.mbarrier_wait
// CHECK: arith.mulf
// CHECK-NOT: scf.for
// REMARK: remark: [Missed] ShallowRing | Category:tile-split-loops | Reason="the mask stays in every iteration: split at its bounds, a loop on a 2-stage ring ran slower than as written"
tile.kernel @shallow_ring(%p: !tile.ptr<f32>, %n: i32, %b: i32, %y: f32) warps(4) {
  %view = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y, %s = %c0) -> (f32, i32) : i32 {
    tile.mbarrier_wait %full[%s], %c0 : !tile.mbarrier<2>
    %fast = arith.cmpi slt, %i, %b {tile.mask_bound} : i32
    %v = scf.if %fast -> (f32) {
      scf.yield %acc : f32
    } else {
      %m = arith.mulf %acc, %acc : f32
      scf.yield %m : f32
    }
    %s1 = arith.addi %s, %c1 : i32
    %wrap = arith.cmpi eq, %s1, %c2 : i32
    %sn = arith.select %wrap, %c0, %s1 : i32
    scf.yield %v, %sn : f32, i32
  }
  %t = tile.splat %r#0 : tensor<16xf32>
  tile.store %t, %view[%n] : tensor<16xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// The same on a 5-stage ring: split.
// CHECK-LABEL: tile.kernel @deep_ring
// CHECK: scf.for
// CHECK-NOT: arith.mulf
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: arith.mulf
tile.kernel @deep_ring(%p: !tile.ptr<f32>, %n: i32, %b: i32, %y: f32) warps(4) {
  %view = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<5>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y, %s = %c0) -> (f32, i32) : i32 {
    tile.mbarrier_wait %full[%s], %c0 : !tile.mbarrier<5>
    %fast = arith.cmpi slt, %i, %b {tile.mask_bound} : i32
    %v = scf.if %fast -> (f32) {
      scf.yield %acc : f32
    } else {
      %m = arith.mulf %acc, %acc : f32
      scf.yield %m : f32
    }
    %s1 = arith.addi %s, %c1 : i32
    %wrap = arith.cmpi eq, %s1, %c5 : i32
    %sn = arith.select %wrap, %c0, %s1 : i32
    scf.yield %v, %sn : f32, i32
  }
  %t = tile.splat %r#0 : tensor<16xf32>
  tile.store %t, %view[%n] : tensor<16xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// The 5-stage ring of @deep_ring, but the loop starts where loaded data
// says (tile.load_scalar: a skip to the first visible block, as
// corpus/attention_document_skip.mlir does): few iterations precede the
// bound, and split such a loop ran slower, so the masked branch is kept.
// CHECK-LABEL: tile.kernel @loaded_start
// CHECK: tile.load_scalar
// CHECK: scf.for
// CHECK-NOT: scf.{{for|if}}
// CHECK: arith.mulf
// CHECK-NOT: scf.for
// CHECK: tile.return
// REMARK: remark: [Missed] LoadedStart | Category:tile-split-loops | Reason="the mask stays in every iteration: the loop starts where loaded data says (a skip to the visible blocks), so few iterations precede the bound; split, such a loop ran slower than as written"
tile.kernel @loaded_start(%p: !tile.ptr<f32>, %starts: !tile.ptr<i32>, %n: i32, %b: i32, %y: f32) warps(4) {
  %view = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  %sv = tile.make_view %starts[%n] strides [1] : !tile.ptr<i32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %first = tile.load_scalar %sv[%c0] : !tile.view<?xi32, strides = [1]> -> i32
  %lo = arith.addi %first, %c1 : i32
  %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<5>
  %r:2 = scf.for %i = %lo to %n step %c1 iter_args(%acc = %y, %s = %c0) -> (f32, i32) : i32 {
    tile.mbarrier_wait %full[%s], %c0 : !tile.mbarrier<5>
    %fast = arith.cmpi slt, %i, %b {tile.mask_bound} : i32
    %v = scf.if %fast -> (f32) {
      scf.yield %acc : f32
    } else {
      %m = arith.mulf %acc, %acc : f32
      scf.yield %m : f32
    }
    %s1 = arith.addi %s, %c1 : i32
    %wrap = arith.cmpi eq, %s1, %c5 : i32
    %sn = arith.select %wrap, %c0, %s1 : i32
    scf.yield %v, %sn : f32, i32
  }
  %t = tile.splat %r#0 : tensor<16xf32>
  tile.store %t, %view[%n] : tensor<16xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// schedule<split_loops = true> splits where a bound allows, the loaded
// start notwithstanding.
// CHECK-LABEL: tile.kernel @loaded_start_asked
// CHECK: scf.for
// CHECK-NOT: arith.mulf
// CHECK: scf.yield
// CHECK: scf.for
// CHECK: arith.mulf
tile.kernel @loaded_start_asked(%p: !tile.ptr<f32>, %starts: !tile.ptr<i32>, %n: i32, %b: i32, %y: f32) warps(4) schedule<split_loops = true> {
  %view = tile.make_view %p[%n] strides [1] : !tile.ptr<f32>
  %sv = tile.make_view %starts[%n] strides [1] : !tile.ptr<i32>
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c5 = arith.constant 5 : i32
  %first = tile.load_scalar %sv[%c0] : !tile.view<?xi32, strides = [1]> -> i32
  %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<5>
  %r:2 = scf.for %i = %first to %n step %c1 iter_args(%acc = %y, %s = %c0) -> (f32, i32) : i32 {
    tile.mbarrier_wait %full[%s], %c0 : !tile.mbarrier<5>
    %fast = arith.cmpi slt, %i, %b {tile.mask_bound} : i32
    %v = scf.if %fast -> (f32) {
      scf.yield %acc : f32
    } else {
      %m = arith.mulf %acc, %acc : f32
      scf.yield %m : f32
    }
    %s1 = arith.addi %s, %c1 : i32
    %wrap = arith.cmpi eq, %s1, %c5 : i32
    %sn = arith.select %wrap, %c0, %s1 : i32
    scf.yield %v, %sn : f32, i32
  }
  %t = tile.splat %r#0 : tensor<16xf32>
  tile.store %t, %view[%n] : tensor<16xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}
