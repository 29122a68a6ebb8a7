// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-mask-bounds))' | FileCheck %s
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-mask-bounds))' --remarks-filter=tile-mask-bounds --remark-format=emitRemark -verify-diagnostics -o /dev/null
// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(tile.kernel(tile-mask-bounds,tile-split-loops,canonicalize))' | FileCheck %s --check-prefix=SPLIT

// Causal attention's key mask, as a user writes it (keys past S, keys
// after the query): it holds for every element while the block's last key
// n + 63 is below S and at or below the block's first query m0, that is
// for n < min(S - 63, m0 - 62) (computed in i64, clamped to i32), provided
// no index tile wraps (the checks at lb and ub - 1). The select is applied
// in the branch where it masks.

// CHECK-LABEL: tile.kernel @causal(
// CHECK:      %[[M0:.+]] = arith.muli
// CHECK:      %[[S64:.+]] = arith.extsi %S : i32 to i64
// CHECK:      %[[X:.+]] = arith.addi %[[S64]], %c-63_i64 : i64
// CHECK:      %[[M064:.+]] = arith.extsi %[[M0]] : i32 to i64
// CHECK:      %[[Y:.+]] = arith.addi %[[M064]], %c-62_i64 : i64
// CHECK:      %[[B:.+]] = arith.minsi %[[X]], %[[Y]] : i64
// CHECK:      %[[OK:.+]] = arith.select %{{.+}}, %[[B]], %c-2147483648_i64{{[_0-9]*}} : i64
// CHECK:      %[[B32:.+]] = arith.trunci %{{.+}} : i64 to i32
// CHECK:      scf.for %[[N:.+]] = %c0_i32 to %{{.+}} step %c64_i32
// CHECK:        %[[FAST:.+]] = arith.cmpi slt, %[[N]], %[[B32]] {tile.mask_bound} : i32
// CHECK-NEXT:   %[[R:.+]] = scf.if %[[FAST]] -> (tensor<128x64xf32>) {
// CHECK-NEXT:     scf.yield %[[S:.+]] : tensor<128x64xf32>
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %[[SEL:.+]] = arith.select %{{.+}}, %[[S]], %{{.+}} : tensor<128x64xi1>, tensor<128x64xf32>
// CHECK-NEXT:     scf.yield %[[SEL]]
// CHECK:        tile.reduce max %[[R]]

// Split: the blocks before the bound without the mask, the rest with it.
// SPLIT-LABEL: tile.kernel @causal(
// SPLIT:      %[[R1:.+]] = scf.for
// SPLIT-NOT:    arith.select
// SPLIT-NOT:    arith.cmpi
// SPLIT:        tile.reduce max
// SPLIT:      scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(%{{.+}} = %[[R1]])
// SPLIT:        arith.cmpi slt
// SPLIT:        arith.select
tile.kernel @causal(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %O: !tile.ptr<f32>, %S: i32) grid(ceildiv(%S, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %m0 = arith.muli %mb, %c128 : i32
  %q = tile.make_view %Q[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%S, 64] strides [64, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%S] strides [1] : !tile.ptr<f32>
  %tq = tile.load %q[%m0, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<128x64xbf16>
  %rows = tile.range 0 to 128 : tensor<128xi32>
  %m0v = tile.splat %m0 : tensor<128xi32>
  %qi = arith.addi %rows, %m0v : tensor<128xi32>
  %qi2 = tile.expand_dims %qi axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %qib = tile.broadcast %qi2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %s_b = tile.splat %S : tensor<128x64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %s0 = arith.constant dense<0.0> : tensor<128x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %last = arith.addi %m0, %c128 : i32
  %end = arith.minsi %last, %S : i32
  %m = scf.for %n = %c0 to %end step %c64 iter_args(%m_i = %m_init) -> (tensor<128xf32>) : i32 {
    %tk = tile.load %k[%n, %c0] : !tile.view<?x64xbf16, strides = [64, 1]> -> tensor<64x64xbf16>
    %kt = tile.trans %tk : tensor<64x64xbf16> -> tensor<64x64xbf16>
    %qk = tile.dot %tq, %kt, %s0 : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %inside = arith.cmpi slt, %kjb, %s_b : tensor<128x64xi32>
    %causal = arith.cmpi sle, %kjb, %qib : tensor<128x64xi32>
    %keep = arith.andi %inside, %causal : tensor<128x64xi1>
    // expected-remark @below {{the mask holds everywhere in the iterations before a bound computed before the loop; there the select is skipped, and tile-split-loops runs them in their own loop}}
    %sk = arith.select %keep, %qk, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    %rowmax = tile.reduce max %sk axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    scf.yield %mn : tensor<128xf32>
  }
  tile.store %m, %o[%m0] : tensor<128xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// A sliding window (query i sees keys i - W < j <= i): the distance
// qi - kj decreases with n, so its bound is a lower one, n >= m0 + 128 - W
// (1 - (W - m0 - 127)); the diagonal an upper one. The branches nest, and
// tile-split-loops makes three loops: the first blocks and the diagonal
// masked, those between not.

// CHECK-LABEL: tile.kernel @window(
// CHECK:        %[[LT:.+]] = arith.cmpi slt, %[[N:.+]], %{{.+}} : i32
// CHECK-NEXT:   %[[GE:.+]] = arith.cmpi sge, %[[N]], %{{.+}} : i32
// CHECK-NEXT:   scf.if %[[LT]] -> (tensor<128x64xf32>) {
// CHECK-NEXT:     scf.if %[[GE]] -> (tensor<128x64xf32>) {
// CHECK-NEXT:       scf.yield %[[S:.+]] :
// CHECK-NEXT:     } else {
// CHECK-NEXT:       arith.select
// CHECK:        } else {
// CHECK-NEXT:     arith.select

// SPLIT-LABEL: tile.kernel @window(
// SPLIT:      %[[A:.+]] = scf.for
// SPLIT:        arith.select
// SPLIT:      %[[B:.+]] = scf.for %{{.+}} iter_args(%{{.+}} = %[[A]])
// SPLIT-NOT:    arith.select
// SPLIT:        tile.reduce max
// SPLIT:      scf.for %{{.+}} iter_args(%{{.+}} = %[[B]])
// SPLIT:        arith.select
tile.kernel @window(%S: i32, %W: i32, %O: !tile.ptr<f32>) grid(ceildiv(%S, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %m0 = arith.muli %mb, %c128 : i32
  %o = tile.make_view %O[%S] strides [1] : !tile.ptr<f32>
  %rows = tile.range 0 to 128 : tensor<128xi32>
  %m0v = tile.splat %m0 : tensor<128xi32>
  %qi = arith.addi %rows, %m0v : tensor<128xi32>
  %qi2 = tile.expand_dims %qi axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %qib = tile.broadcast %qi2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %w_b = tile.splat %W : tensor<128x64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %one = arith.constant dense<1.0> : tensor<128x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %lo = arith.subi %m0, %W : i32
  %end = arith.addi %m0, %c128 : i32
  %m = scf.for %n = %lo to %end step %c64 iter_args(%m_i = %m_init) -> (tensor<128xf32>) : i32 {
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %causal = arith.cmpi sle, %kjb, %qib : tensor<128x64xi32>
    %dist = arith.subi %qib, %kjb : tensor<128x64xi32>
    %near = arith.cmpi slt, %dist, %w_b : tensor<128x64xi32>
    %keep = arith.andi %causal, %near : tensor<128x64xi1>
    // expected-remark @below {{the mask holds everywhere in the iterations between two bounds computed before the loop}}
    %sk = arith.select %keep, %one, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    %rowmax = tile.reduce max %sk axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    scf.yield %mn : tensor<128xf32>
  }
  tile.store %m, %o[%m0] : tensor<128xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// Prefix-LM: a key is seen when causal or inside the prefix; the mask holds
// everywhere before the larger of the two bounds (an or takes the looser).

// CHECK-LABEL: tile.kernel @prefix(
// CHECK:      %[[C:.+]] = arith.addi %{{.+}}, %c-62_i64 : i64
// CHECK:      %[[P:.+]] = arith.addi %{{.+}}, %c-63_i64 : i64
// CHECK:      arith.maxsi %[[C]], %[[P]] : i64
tile.kernel @prefix(%S: i32, %P: i32, %O: !tile.ptr<f32>) grid(ceildiv(%S, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %m0 = arith.muli %mb, %c128 : i32
  %o = tile.make_view %O[%S] strides [1] : !tile.ptr<f32>
  %rows = tile.range 0 to 128 : tensor<128xi32>
  %m0v = tile.splat %m0 : tensor<128xi32>
  %qi = arith.addi %rows, %m0v : tensor<128xi32>
  %qi2 = tile.expand_dims %qi axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %qib = tile.broadcast %qi2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %p_b = tile.splat %P : tensor<128x64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %one = arith.constant dense<1.0> : tensor<128x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %m = scf.for %n = %c0 to %S step %c64 iter_args(%m_i = %m_init) -> (tensor<128xf32>) : i32 {
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %causal = arith.cmpi sle, %kjb, %qib : tensor<128x64xi32>
    %inpre = arith.cmpi slt, %kjb, %p_b : tensor<128x64xi32>
    %vis = arith.ori %causal, %inpre : tensor<128x64xi1>
    // expected-remark @below {{the mask holds everywhere in the iterations before a bound}}
    %sk = arith.select %vis, %one, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    %rowmax = tile.reduce max %sk axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    scf.yield %mn : tensor<128xf32>
  }
  tile.store %m, %o[%m0] : tensor<128xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// A document mask compares loaded ids: nothing bounds it, the select stays
// (a missed remark names the comparison).

// CHECK-LABEL: tile.kernel @document(
// CHECK:      scf.for
// CHECK-NOT:    scf.if
// CHECK:        arith.select
tile.kernel @document(%Docs: !tile.ptr<i32> {tile.align = 16 : i64}, %S: i32, %O: !tile.ptr<f32>) grid(ceildiv(%S, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %m0 = arith.muli %mb, %c128 : i32
  %o = tile.make_view %O[%S] strides [1] : !tile.ptr<f32>
  %docs = tile.make_view %Docs[%S] strides [1] : !tile.ptr<i32>
  %dq = tile.load %docs[%m0] : !tile.view<?xi32, strides = [1]> -> tensor<128xi32>
  %dq2 = tile.expand_dims %dq axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %dqb = tile.broadcast %dq2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %one = arith.constant dense<1.0> : tensor<128x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %m = scf.for %n = %c0 to %S step %c64 iter_args(%m_i = %m_init) -> (tensor<128xf32>) : i32 {
    %dk = tile.load %docs[%n] : !tile.view<?xi32, strides = [1]> -> tensor<64xi32>
    %dk2 = tile.expand_dims %dk axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %dkb = tile.broadcast %dk2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %same = arith.cmpi eq, %dqb, %dkb : tensor<128x64xi32>
    // expected-remark @below {{this mask is applied in every iteration: it is computed by a comparison other than <, <=, >, >= (signed), not by comparisons of indices}}
    %sk = arith.select %same, %one, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    %rowmax = tile.reduce max %sk axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    scf.yield %mn : tensor<128xf32>
  }
  tile.store %m, %o[%m0] : tensor<128xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// Causal attention over packed documents: the index comparisons (keys past
// S, keys after the query) are and-ed with a comparison of loaded ids.
// Where the index comparisons hold, the select keeps the id term alone; the
// last blocks apply the whole mask. Split, the first loop has no index
// comparison left.

// CHECK-LABEL: tile.kernel @document_causal(
// CHECK:      scf.for
// CHECK:        %[[SAME:.+]] = arith.cmpi eq
// CHECK:        %[[VIS:.+]] = arith.andi %{{.+}}, %[[SAME]] : tensor<128x64xi1>
// CHECK:        %[[KEEP:.+]] = arith.andi %{{.+}}, %[[VIS]] : tensor<128x64xi1>
// CHECK:        %[[FAST:.+]] = arith.cmpi slt, %{{.+}}, %{{.+}} {tile.mask_bound} : i32
// CHECK:        scf.if %[[FAST]]
// CHECK-NEXT:     %[[S:.+]] = arith.select %[[SAME]], %{{.+}}, %{{.+}} : tensor<128x64xi1>, tensor<128x64xf32>
// CHECK-NEXT:     scf.yield %[[S]]
// CHECK:        } else {
// CHECK-NEXT:     %[[M:.+]] = arith.select %[[KEEP]], %{{.+}}, %{{.+}} : tensor<128x64xi1>, tensor<128x64xf32>
// CHECK-NEXT:     scf.yield %[[M]]

// SPLIT-LABEL: tile.kernel @document_causal(
// SPLIT:      scf.for
// SPLIT-NOT:    arith.cmpi s{{lt|le}}
// SPLIT:        arith.cmpi eq
// SPLIT-NOT:    arith.cmpi s{{lt|le}}
// SPLIT:        arith.select
// SPLIT:        scf.yield
// SPLIT:      scf.for
// SPLIT:        arith.cmpi eq
// SPLIT:        arith.cmpi slt
tile.kernel @document_causal(%Docs: !tile.ptr<i32> {tile.align = 16 : i64}, %S: i32, %O: !tile.ptr<f32>) grid(ceildiv(%S, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %mb = tile.program_id x
  %m0 = arith.muli %mb, %c128 : i32
  %o = tile.make_view %O[%S] strides [1] : !tile.ptr<f32>
  %docs = tile.make_view %Docs[%S] strides [1] : !tile.ptr<i32>
  %dq = tile.load %docs[%m0] : !tile.view<?xi32, strides = [1]> -> tensor<128xi32>
  %dq2 = tile.expand_dims %dq axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %dqb = tile.broadcast %dq2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %rows = tile.range 0 to 128 : tensor<128xi32>
  %m0v = tile.splat %m0 : tensor<128xi32>
  %qi = arith.addi %rows, %m0v : tensor<128xi32>
  %qi2 = tile.expand_dims %qi axis = 1 : tensor<128xi32> -> tensor<128x1xi32>
  %qib = tile.broadcast %qi2 : tensor<128x1xi32> -> tensor<128x64xi32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %s_b = tile.splat %S : tensor<128x64xi32>
  %ninf = arith.constant dense<0xFF800000> : tensor<128x64xf32>
  %one = arith.constant dense<1.0> : tensor<128x64xf32>
  %m_init = arith.constant dense<0xFF800000> : tensor<128xf32>
  %m = scf.for %n = %c0 to %S step %c64 iter_args(%m_i = %m_init) -> (tensor<128xf32>) : i32 {
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %kj2 = tile.expand_dims %kj axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %kjb = tile.broadcast %kj2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %inside = arith.cmpi slt, %kjb, %s_b : tensor<128x64xi32>
    %causal = arith.cmpi sle, %kjb, %qib : tensor<128x64xi32>
    %dk = tile.load %docs[%n] : !tile.view<?xi32, strides = [1]> -> tensor<64xi32>
    %dk2 = tile.expand_dims %dk axis = 0 : tensor<64xi32> -> tensor<1x64xi32>
    %dkb = tile.broadcast %dk2 : tensor<1x64xi32> -> tensor<128x64xi32>
    %same = arith.cmpi eq, %dqb, %dkb : tensor<128x64xi32>
    %vis = arith.andi %causal, %same : tensor<128x64xi1>
    %keep = arith.andi %inside, %vis : tensor<128x64xi1>
    // expected-remark @below {{the mask's index comparisons hold everywhere in the iterations before a bound computed before the loop; there the select applies only the mask's 1 term that is not a comparison of indices, and tile-split-loops runs them in their own loop}}
    %sk = arith.select %keep, %one, %ninf : tensor<128x64xi1>, tensor<128x64xf32>
    %rowmax = tile.reduce max %sk axis = 1 : tensor<128x64xf32> -> tensor<128xf32>
    %mn = arith.maximumf %m_i, %rowmax : tensor<128xf32>
    scf.yield %mn : tensor<128xf32>
  }
  tile.store %m, %o[%m0] : tensor<128xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// An `or` with a term that is not an index comparison has no bound: where
// the index comparison fails, the other term may still hold.

// CHECK-LABEL: tile.kernel @document_or(
// CHECK:      scf.for
// CHECK-NOT:    scf.if
// CHECK:        arith.select
tile.kernel @document_or(%Docs: !tile.ptr<i32> {tile.align = 16 : i64}, %S: i32, %O: !tile.ptr<f32>) grid(ceildiv(%S, 128)) warps(4) {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %o = tile.make_view %O[%S] strides [1] : !tile.ptr<f32>
  %docs = tile.make_view %Docs[%S] strides [1] : !tile.ptr<i32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %s_b = tile.splat %S : tensor<64xi32>
  %d0 = arith.constant dense<0> : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %r = scf.for %n = %c0 to %S step %c64 iter_args(%a = %zero) -> (tensor<64xf32>) : i32 {
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %in = arith.cmpi slt, %kj, %s_b : tensor<64xi32>
    %dk = tile.load %docs[%n] : !tile.view<?xi32, strides = [1]> -> tensor<64xi32>
    %first = arith.cmpi eq, %dk, %d0 : tensor<64xi32>
    %either = arith.ori %in, %first : tensor<64xi1>
    // expected-remark @below {{this mask is applied in every iteration: it is computed by a comparison other than <, <=, >, >= (signed), not by comparisons of indices}}
    %v = arith.select %either, %one, %zero : tensor<64xi1>, tensor<64xf32>
    %s = arith.addf %a, %v : tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  tile.store %r, %o[%c0] : tensor<64xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}

// -----

// A schedule that turns tile-split-loops off turns this pass off too.

// CHECK-LABEL: tile.kernel @no_split(
// CHECK-NOT:  scf.if
tile.kernel @no_split(%S: i32, %O: !tile.ptr<f32>) grid(1) warps(4) schedule<split_loops = false> {
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %o = tile.make_view %O[64] strides [1] : !tile.ptr<f32>
  %cols = tile.range 0 to 64 : tensor<64xi32>
  %s_b = tile.splat %S : tensor<64xi32>
  %zero = arith.constant dense<0.0> : tensor<64xf32>
  %one = arith.constant dense<1.0> : tensor<64xf32>
  %r = scf.for %n = %c0 to %S step %c64 iter_args(%a = %zero) -> (tensor<64xf32>) : i32 {
    %ns = tile.splat %n : tensor<64xi32>
    %kj = arith.addi %cols, %ns : tensor<64xi32>
    %in = arith.cmpi slt, %kj, %s_b : tensor<64xi32>
    %v = arith.select %in, %one, %zero : tensor<64xi1>, tensor<64xf32>
    %s = arith.addf %a, %v : tensor<64xf32>
    scf.yield %s : tensor<64xf32>
  }
  tile.store %r, %o[%c0] : tensor<64xf32>, !tile.view<64xf32, strides = [1]>
  tile.return
}
