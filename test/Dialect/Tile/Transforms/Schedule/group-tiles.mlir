// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-group-tiles))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-group-tiles))' --remarks-filter=tile-group-tiles --remark-format=emitRemark -verify-diagnostics -o /dev/null

// A dual GEMM (SwiGLU) as a user first writes it: one grid dimension, the
// tile row pid / npn and column pid % npn. The pass renumbers the tiles in
// groups of 8 tile rows over the grid's whole rows (programs = the grid
// rule's ceildiv(M, 128) * ceildiv(N, 128); rows = programs / npn); a
// program past them keeps pid / npn and pid % npn (the selects).

// CHECK-LABEL: tile.kernel @swiglu(
// CHECK:      %[[PID:.+]] = tile.program_id x
// CHECK-NEXT: %[[NPN:.+]] = arith.ceildivsi %N, %[[C128:.+]] : i32
// CHECK-NEXT: %[[PM:.+]] = arith.divsi %[[PID]], %[[NPN]] : i32
// CHECK-NEXT: %[[PN:.+]] = arith.remsi %[[PID]], %[[NPN]] : i32
// CHECK:      %[[GM:.+]] = arith.ceildivsi %M, %{{.+}} : i32
// CHECK:      %[[GN:.+]] = arith.ceildivsi %N, %{{.+}} : i32
// CHECK-NEXT: %[[PROGRAMS:.+]] = arith.muli %[[GM]], %[[GN]] : i32
// CHECK-NEXT: %[[ROWS:.+]] = arith.divsi %[[PROGRAMS]], %[[NPN]] : i32
// CHECK-NEXT: %[[WHOLE:.+]] = arith.muli %[[ROWS]], %[[NPN]] : i32
// CHECK-NEXT: %[[IN:.+]] = arith.cmpi slt, %[[PID]], %[[WHOLE]] : i32
// CHECK-NEXT: %[[C8:.+]] = arith.constant 8 : i32
// CHECK-NEXT: %[[WIDTH:.+]] = arith.muli %[[NPN]], %[[C8]] : i32
// CHECK-NEXT: %[[GROUP:.+]] = arith.divsi %[[PID]], %[[WIDTH]] : i32
// CHECK-NEXT: %[[FIRST:.+]] = arith.muli %[[GROUP]], %[[C8]] : i32
// CHECK-NEXT: %[[LEFT:.+]] = arith.subi %[[ROWS]], %[[FIRST]] : i32
// CHECK-NEXT: %[[SIZE0:.+]] = arith.minsi %[[LEFT]], %[[C8]] : i32
// CHECK-NEXT: %[[C1:.+]] = arith.constant 1 : i32
// CHECK-NEXT: %[[SIZE:.+]] = arith.maxsi %[[SIZE0]], %[[C1]] : i32
// CHECK-NEXT: %[[INGROUP:.+]] = arith.remsi %[[PID]], %[[WIDTH]] : i32
// CHECK-NEXT: %[[R:.+]] = arith.remsi %[[INGROUP]], %[[SIZE]] : i32
// CHECK-NEXT: %[[ROW:.+]] = arith.addi %[[FIRST]], %[[R]] : i32
// CHECK-NEXT: %[[COL:.+]] = arith.divsi %[[INGROUP]], %[[SIZE]] : i32
// CHECK-NEXT: %[[NEWPM:.+]] = arith.select %[[IN]], %[[ROW]], %[[PM]] : i32
// CHECK-NEXT: %[[NEWPN:.+]] = arith.select %[[IN]], %[[COL]], %[[PN]] : i32
// CHECK-NEXT: arith.muli %[[NEWPM]], %[[C128]] : i32
// CHECK-NEXT: arith.muli %[[NEWPN]], %[[C128]] : i32

tile.kernel @swiglu(%X: !tile.ptr<bf16>, %Wg: !tile.ptr<bf16>, %Wu: !tile.ptr<bf16>, %Y: !tile.ptr<bf16>, %M: i32, %N: i32, %K: i32) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  // expected-remark @+1 {{the output tiles (row program_id / n, column program_id % n) are visited in groups of 8 tile rows, so that the programs running together share both operands' tiles in L2}}
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %x = tile.make_view %X[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %wg = tile.make_view %Wg[%N, %K] strides [%K, 1] : !tile.ptr<bf16>
  %wu = tile.make_view %Wu[%N, %K] strides [%K, 1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc:2 = scf.for %k = %c0 to %K step %c64 iter_args(%g = %zero, %u = %zero) -> (tensor<128x128xf32>, tensor<128x128xf32>) : i32 {
    %tx = tile.load %x[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tg = tile.load %wg[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tu = tile.load %wu[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tgt = tile.trans %tg : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %tut = tile.trans %tu : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %g2 = tile.dot %tx, %tgt, %g : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    %u2 = tile.dot %tx, %tut, %u : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %g2, %u2 : tensor<128x128xf32>, tensor<128x128xf32>
  }
  %h = arith.mulf %acc#0, %acc#1 : tensor<128x128xf32>
  %hb = arith.truncf %h : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %hb, %y[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// The tile row used before the column is computed (as a program that
// derives its query block, then its key range, writes it): the remainder
// moves up beside the division, so that the grouped coordinates precede
// every use (they used to be placed after the remainder, below the row's
// first use).

// CHECK-LABEL: tile.kernel @row_used_first(
// CHECK:      %[[PM:.+]] = arith.divsi %[[PID:.+]], %[[NPN:.+]] : i32
// CHECK-NEXT: %[[PN:.+]] = arith.remsi %[[PID]], %[[NPN]] : i32
// CHECK:      %[[NEWPM:.+]] = arith.select %[[IN:.+]], %{{.+}}, %[[PM]] : i32
// CHECK-NEXT: %[[NEWPN:.+]] = arith.select %[[IN]], %{{.+}}, %[[PN]] : i32
// CHECK-NEXT: %[[M0:.+]] = arith.muli %[[NEWPM]], %{{.+}} : i32
// CHECK-NEXT: arith.muli %[[NEWPN]], %{{.+}} : i32

tile.kernel @row_used_first(%X: !tile.ptr<bf16>, %W: !tile.ptr<bf16>, %Y: !tile.ptr<bf16>, %M: i32, %N: i32, %K: i32) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  // expected-remark @+1 {{the output tiles (row program_id / n, column program_id % n) are visited in groups of 8 tile rows}}
  %pm = arith.divsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %pn = arith.remsi %pid, %npn : i32
  %n0 = arith.muli %pn, %c128 : i32
  %x = tile.make_view %X[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %w = tile.make_view %W[%N, %K] strides [%K, 1] : !tile.ptr<bf16>
  %y = tile.make_view %Y[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%a = %zero) -> (tensor<128x128xf32>) : i32 {
    %tx = tile.load %x[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tw = tile.load %w[%n0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %twt = tile.trans %tw : tensor<128x64xbf16> -> tensor<64x128xbf16>
    %a2 = tile.dot %tx, %twt, %a : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %a2 : tensor<128x128xf32>
  }
  %yb = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  tile.store %yb, %y[%m0, %n0] : tensor<128x128xbf16>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

// A batched GEMM on a 3-D grid: program_id x the tile column, y the tile
// row, z the batch. The program ids x and y become the grouped coordinates
// of p = y * gx + x over the grid's gx x gy tiles; z keeps its meaning.

// CHECK-LABEL: tile.kernel @bmm(
// CHECK:      %[[GX:.+]] = arith.ceildivsi %N, %{{.+}} : i32
// CHECK:      %[[GY:.+]] = arith.ceildivsi %M, %{{.+}} : i32
// CHECK-NEXT: %[[X:.+]] = tile.program_id x
// CHECK-NEXT: %[[Y:.+]] = tile.program_id y
// CHECK-NEXT: %[[YX:.+]] = arith.muli %[[Y]], %[[GX]] : i32
// CHECK-NEXT: %[[P:.+]] = arith.addi %[[YX]], %[[X]] : i32
// CHECK-NEXT: %[[C8:.+]] = arith.constant 8 : i32
// CHECK-NEXT: %[[WIDTH:.+]] = arith.muli %[[GX]], %[[C8]] : i32
// CHECK-NEXT: %[[GROUP:.+]] = arith.divsi %[[P]], %[[WIDTH]] : i32
// CHECK-NEXT: %[[FIRST:.+]] = arith.muli %[[GROUP]], %[[C8]] : i32
// CHECK-NEXT: %[[LEFT:.+]] = arith.subi %[[GY]], %[[FIRST]] : i32
// CHECK:      %[[ROW:.+]] = arith.addi %[[FIRST]], %{{.+}} : i32
// CHECK-NEXT: %[[COL:.+]] = arith.divsi
// CHECK:      tile.program_id z
// CHECK:      arith.muli %[[ROW]], %{{.+}} : i32
// CHECK-NEXT: arith.muli %[[COL]], %{{.+}} : i32
// CHECK-NOT:  tile.program_id

// expected-remark @+1 {{the output tiles (row program_id y, column program_id x) are visited in groups of 8 tile rows}}
tile.kernel @bmm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32, %batch: i32) grid(ceildiv(%N, 128), ceildiv(%M, 128), %batch) warps(8) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %bz = tile.program_id z
  %py = tile.program_id y
  %px = tile.program_id x
  %m0 = arith.muli %py, %c128 : i32
  %n0 = arith.muli %px, %c128 : i32
  %a = tile.make_view %A[%batch, %M, %K] strides [%K, %K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%batch, %K, %N] strides [%N, %N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%batch, %M, %N] strides [%N, %N, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%s = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%bz, %m0, %k] : !tile.view<?x?x?xbf16, strides = [?, ?, 1]> -> tensor<128x64xbf16>
    %tb = tile.load %b[%bz, %k, %n0] : !tile.view<?x?x?xbf16, strides = [?, ?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %s : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%bz, %m0, %n0] : tensor<128x128xf32>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

// -----

// Attention's grid (query block x, head y), with grouped-query heads: the
// first dot's Q tile depends on both coordinates (the head as an offset
// itself), its K tile on the head only. Not a GEMM order: the program ids
// stay, and without a group_rows knob there is no remark.

// CHECK-LABEL: tile.kernel @attention(
// CHECK:      %[[QB:.+]] = tile.program_id x
// CHECK-NEXT: %[[HEAD:.+]] = tile.program_id y
// CHECK-NOT:  arith.minsi
tile.kernel @attention(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %O: !tile.ptr<f32>, %S: i32, %H: i32, %G: i32) grid(ceildiv(%S, 128), %H) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %qb = tile.program_id x
  %h = tile.program_id y
  %m0 = arith.muli %qb, %c128 : i32
  %q = tile.make_view %Q[%H, %S, 64] strides [%S, 64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%H, %S, 64] strides [%S, 64, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%H, %S, 64] strides [%S, 64, 1] : !tile.ptr<f32>
  %tq = tile.load %q[%h, %m0, %c0] : !tile.view<?x?x64xbf16, strides = [?, 64, 1]> -> tensor<128x64xbf16>
  %hk = arith.divsi %h, %G : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %n = %c0 to %S step %c64 iter_args(%s = %zero) -> (tensor<128x64xf32>) : i32 {
    %tk = tile.load %k[%hk, %n, %c0] : !tile.view<?x?x64xbf16, strides = [?, 64, 1]> -> tensor<64x64xbf16>
    %kt = tile.trans %tk : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %d = tile.dot %tq, %kt, %s : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    scf.yield %d : tensor<128x64xf32>
  }
  tile.store %acc, %o[%h, %m0, %c0] : tensor<128x64xf32>, !tile.view<?x?x64xf32, strides = [?, 64, 1]>
  tile.return
}

// -----

// A program that groups its tiles itself (Triton's matmul tutorial): the
// division and remainder of the program id by one value are the group and
// the place in it, and the A tile's row comes from both. Left alone.

// CHECK-LABEL: tile.kernel @grouped_by_hand(
// CHECK-COUNT-1: arith.minsi
// CHECK-NOT:     arith.minsi
// CHECK-NOT:     arith.select
tile.kernel @grouped_by_hand(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npm = arith.ceildivsi %M, %c128 : i32
  %npn = arith.ceildivsi %N, %c128 : i32
  %width = arith.muli %npn, %c8 : i32
  %group = arith.divsi %pid, %width : i32
  %first = arith.muli %group, %c8 : i32
  %left = arith.subi %npm, %first : i32
  %size = arith.minsi %left, %c8 : i32
  %in = arith.remsi %pid, %width : i32
  %r = arith.remsi %in, %size : i32
  %pm = arith.addi %first, %r : i32
  %pn = arith.divsi %in, %size : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%s = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %s : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// schedule<group_rows = 1> keeps the program's order; group_rows = 4 groups
// four tile rows.

// CHECK-LABEL: tile.kernel @row_order(
// CHECK-NOT:   arith.select
// CHECK-LABEL: tile.kernel @four_rows(
// CHECK:       arith.constant 4 : i32
// CHECK:       arith.select
tile.kernel @row_order(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) schedule<group_rows = 1> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%s = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %s : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

tile.kernel @four_rows(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) schedule<group_rows = 4> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  // expected-remark @+1 {{visited in groups of 4 tile rows}}
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%s = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %s : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}

// -----

// A kernel that asks for groups but has no GEMM order (a row-wise
// reduction) gets a missed remark; one in clusters is left alone too.

// CHECK-LABEL: tile.kernel @rows(
// CHECK-NOT:   arith.select
// expected-remark @+1 {{the tiles keep the program's order: no tile.dot in a loop reads an A tile placed by one tile coordinate of the program id and a B tile placed by the other}}
tile.kernel @rows(%X: !tile.ptr<f32>, %Y: !tile.ptr<f32>, %M: i32) grid(%M) warps(4) schedule<group_rows = 8> {
  %pid = tile.program_id x
  %c0 = arith.constant 0 : i32
  %x = tile.make_view %X[%M, 1024] strides [1024, 1] : !tile.ptr<f32>
  %y = tile.make_view %Y[%M] strides [1] : !tile.ptr<f32>
  %t = tile.load %x[%pid, %c0] : !tile.view<?x1024xf32, strides = [1024, 1]> -> tensor<1x1024xf32>
  %s = tile.reduce sum %t axis = 1 : tensor<1x1024xf32> -> tensor<1xf32>
  tile.store %s, %y[%pid] : tensor<1xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// CHECK-LABEL: tile.kernel @clustered(
// CHECK-NOT:   arith.select
// expected-remark @+1 {{the tiles keep the program's order: the kernel runs in clusters, whose programs share tiles by their rank}}
tile.kernel @clustered(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>, %M: i32, %N: i32, %K: i32) grid(ceildiv(%M, 128) * ceildiv(%N, 128)) warps(8) cluster(2, 1, 1) schedule<group_rows = 8> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %pid = tile.program_id x
  %npn = arith.ceildivsi %N, %c128 : i32
  %pm = arith.divsi %pid, %npn : i32
  %pn = arith.remsi %pid, %npn : i32
  %m0 = arith.muli %pm, %c128 : i32
  %n0 = arith.muli %pn, %c128 : i32
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%s = %zero) -> (tensor<128x128xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<128x64xbf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<64x128xbf16>
    %d = tile.dot %ta, %tb, %s : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    scf.yield %d : tensor<128x128xf32>
  }
  tile.store %acc, %c[%m0, %n0] : tensor<128x128xf32>, !tile.view<?x?xf32, strides = [?, 1]>
  tile.return
}
