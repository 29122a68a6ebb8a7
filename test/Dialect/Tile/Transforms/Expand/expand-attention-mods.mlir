// RUN: tilec-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_80}))' | FileCheck %s
// RUN: tilec-opt %s --pass-pipeline='builtin.module(tile.kernel(tile-expand-named-ops{chip=sm_90a}))' | FileCheck %s --check-prefix=SM90A

// tile.attention's score_mod and mask_mod become tile ops on each block of
// scores. score_mod: the scores times the softmax scale (1/sqrt(128)), then
// the region's ops on 128 x 64 tiles (values the same for the whole block
// stay scalars and are splat where a tile needs them; the query and key
// indices are tiles), before the key-bound and causal
// mask; the online softmax then multiplies by log2(e) alone. Every block
// guards rows that saw no key yet (a region may drop all of a row's keys).

// CHECK-LABEL: tile.kernel @attention_softcap_window
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[S:.*]] = tile.dot
// CHECK: %[[SCALE:.*]] = arith.constant dense<0.0883883461> : tensor<128x64xf32>
// CHECK: %[[SS:.*]] = arith.mulf %[[S]], %[[SCALE]] : tensor<128x64xf32>
// CHECK: %[[CAP:.*]] = tile.splat %cap : tensor<128x64xf32>
// CHECK: %[[T:.*]] = arith.divf %[[SS]], %[[CAP]] fastmath<afn> : tensor<128x64xf32>
// CHECK: %[[TH:.*]] = math.tanh %[[T]] fastmath<afn> : tensor<128x64xf32>
// CHECK: %[[C:.*]] = arith.mulf %[[TH]], %[[CAP]] : tensor<128x64xf32>
// CHECK: %[[QI:.*]] = tile.broadcast %{{.*}} : tensor<128x1xi32> -> tensor<128x64xi32>
// CHECK: tile.splat %[[N]] : tensor<64xi32>
// CHECK: %[[KJ:.*]] = tile.broadcast %{{.*}} : tensor<1x64xi32> -> tensor<128x64xi32>
// CHECK: %[[D:.*]] = arith.subi %[[QI]], %[[KJ]] : tensor<128x64xi32>
// CHECK: %[[W:.*]] = tile.splat %window : tensor<128x64xi32>
// CHECK: %[[NEAR:.*]] = arith.cmpi slt, %[[D]], %[[W]] : tensor<128x64xi32>
// CHECK: %[[NINF0:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[NINF:.*]] = tile.splat %[[NINF0]] : tensor<128x64xf32>
// CHECK: %[[R:.*]] = arith.select %[[NEAR]], %[[C]], %[[NINF]]
// CHECK: %[[MAX:.*]] = tile.reduce max %[[R]] axis = 1
// CHECK: %[[LOG2E:.*]] = arith.constant dense<1.44269502> : tensor<128xf32>
// CHECK: %[[M:.*]] = arith.mulf %[[MAX]], %[[LOG2E]]
// CHECK: %[[MNEW:.*]] = arith.maximumf %{{.*}}, %[[M]]
// CHECK: arith.cmpf oeq, %[[MNEW]], %{{.*}} : tensor<128xf32>
// The second (masked) loop: the region, then the mask on its result.
// CHECK: scf.for
// CHECK: math.tanh
// CHECK: %[[R2:.*]] = arith.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xi1>, tensor<128x64xf32>
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<128x64xi32>
// CHECK: arith.cmpi sle, %{{.*}}, %{{.*}} : tensor<128x64xi32>
// CHECK: arith.select %{{.*}}, %[[R2]], %{{.*}} : tensor<128x64xi1>, tensor<128x64xf32>
// CHECK-NOT: tile.attention

// sm_90a: the pass-built warp-specialized program (a score_mod takes it at
// every head dim), one key loop that masks in a branch.
// SM90A-LABEL: tile.kernel @attention_softcap_window
// SM90A: scf.for
// SM90A: math.tanh %{{.*}} fastmath<afn> : tensor<128x128xf32>
// SM90A: scf.if
// SM90A-NOT: tile.attention

tile.kernel @attention_softcap_window(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>, %O: !tile.ptr<bf16>,
    %B: i32, %H: i32, %S: i32, %sb: i32 {tile.divisibility = 16 : i64}, %sh: i32 {tile.divisibility = 16 : i64},
    %cap: f32, %window: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o causal score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    %t = arith.divf %s, %cap fastmath<afn> : f32
    %th = math.tanh %t fastmath<afn> : f32
    %c = arith.mulf %th, %cap : f32
    %d = arith.subi %qi, %kj : i32
    %near = arith.cmpi slt, %d, %window : i32
    %ninf = arith.constant 0xFF800000 : f32
    %r = arith.select %near, %c, %ninf : f32
    tile.yield %r : f32
  } : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// A mask_mod alone: the scores stay raw (no score_mod to see them scaled),
// -inf where the region's i1 is false, and the softmax multiplies by the
// scale times log2(e) as without regions. Its comparison bounds the key
// from below (query - key < window: key >= m0 - window + 1 for the block's
// first query m0), so the key loops start at that key's block (in i64,
// clamped to [0, end], whole 64-key blocks): the blocks before it are
// masked for every row. (The split point moves into [start, end].)
// CHECK-LABEL: tile.kernel @attention_window
// CHECK: %[[ONE:.*]] = arith.constant 1 : i64
// CHECK: %[[M0:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[B1:.*]] = arith.addi %[[ONE]], %[[M0]] : i64
// CHECK: %[[W64:.*]] = arith.extsi %window : i32 to i64
// CHECK: %[[B2:.*]] = arith.subi %[[B1]], %[[W64]] : i64
// CHECK: %[[END:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[B3:.*]] = arith.maxsi %[[B2]], %{{.*}} : i64
// CHECK: %[[B4:.*]] = arith.minsi %[[B3]], %[[END]] : i64
// CHECK: %[[B5:.*]] = arith.divsi %[[B4]], %{{.*}} : i64
// CHECK: %[[B6:.*]] = arith.muli %[[B5]], %{{.*}} : i64
// CHECK: %[[START:.*]] = arith.trunci %[[B6]] : i64 to i32
// CHECK: %[[FULL0:.*]] = arith.maxsi %[[START]], %{{.*}} : i32
// CHECK: %[[FULL:.*]] = arith.minsi %[[FULL0]], %{{.*}} : i32
// CHECK: scf.for %[[N:.*]] = %[[START]] to %[[FULL]] step %{{.*}} iter_args
// CHECK: %[[S:.*]] = tile.dot
// CHECK: %[[NINF:.*]] = arith.constant dense<0xFF800000> : tensor<128x64xf32>
// CHECK: %[[QI:.*]] = tile.broadcast %{{.*}} : tensor<128x1xi32> -> tensor<128x64xi32>
// CHECK: tile.splat %[[N]] : tensor<64xi32>
// CHECK: %[[KJ:.*]] = tile.broadcast %{{.*}} : tensor<1x64xi32> -> tensor<128x64xi32>
// CHECK: %[[D:.*]] = arith.subi %[[QI]], %[[KJ]] : tensor<128x64xi32>
// CHECK: %[[W:.*]] = tile.splat %window : tensor<128x64xi32>
// CHECK: %[[NEAR:.*]] = arith.cmpi slt, %[[D]], %[[W]] : tensor<128x64xi32>
// CHECK: %[[R:.*]] = arith.select %[[NEAR]], %[[S]], %[[NINF]]
// CHECK: %[[MAX:.*]] = tile.reduce max %[[R]] axis = 1
// CHECK: arith.constant dense<0.127517432> : tensor<128xf32>
// CHECK-NOT: tile.attention
// SM90A-LABEL: tile.kernel @attention_window
// SM90A: %[[START:.*]] = arith.trunci %{{.*}} : i64 to i32
// SM90A: scf.for %{{.*}} = %[[START]] to
// SM90A: arith.cmpi slt, %{{.*}}, %{{.*}} : tensor<128x128xi32>
// SM90A-NOT: tile.attention
tile.kernel @attention_window(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>, %O: !tile.ptr<bf16>,
    %B: i32, %H: i32, %S: i32, %sb: i32 {tile.divisibility = 16 : i64}, %sh: i32 {tile.divisibility = 16 : i64},
    %window: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o causal mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    %d = arith.subi %qi, %kj : i32
    %near = arith.cmpi slt, %d, %window : i32
    tile.yield %near : i1
  } : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// Prefix-LM (a prefix every query sees, or the causal diagonal): the
// disjunction takes the looser end of its terms, key < max(prefix, last
// query + 1), clamped to [0, S]; it bounds no start (key 0 on).
// CHECK-LABEL: tile.kernel @attention_prefix_lm
// CHECK: %[[P:.*]] = arith.extsi %prefix : i32 to i64
// CHECK: %[[PE:.*]] = arith.addi %{{.*}}, %[[P]] : i64
// CHECK: %[[LAST:.*]] = arith.extsi %{{.*}} : i32 to i64
// CHECK: %[[DIAG:.*]] = arith.addi %{{.*}}, %[[LAST]] : i64
// CHECK: %[[HI:.*]] = arith.maxsi %[[PE]], %[[DIAG]] : i64
// CHECK: %[[S:.*]] = arith.extsi %S : i32 to i64
// CHECK: %[[HI0:.*]] = arith.maxsi %[[HI]], %{{.*}} : i64
// CHECK: %[[HI1:.*]] = arith.minsi %[[HI0]], %[[S]] : i64
// CHECK: %[[END:.*]] = arith.trunci %[[HI1]] : i64 to i32
// CHECK: %[[SPLIT:.*]] = arith.minsi %{{.*}}, %[[END]] : i32
// CHECK: scf.for %{{.*}} = %c0_i32{{.*}} to %[[SPLIT]] step
// CHECK: arith.ori %{{.*}}, %{{.*}} : tensor<128x64xi1>
// CHECK: scf.for %{{.*}} = %[[SPLIT]] to %[[END]] step
tile.kernel @attention_prefix_lm(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>, %O: !tile.ptr<bf16>,
    %B: i32, %H: i32, %S: i32, %sb: i32 {tile.divisibility = 16 : i64}, %sh: i32 {tile.divisibility = 16 : i64},
    %prefix: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %S, 128] strides [%sb, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    %in_prefix = arith.cmpi slt, %kj, %prefix : i32
    %causal = arith.cmpi sle, %kj, %qi : i32
    %r = arith.ori %in_prefix, %causal : i1
    tile.yield %r : i1
  } : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// Tables: a slope per head (read at the head index: one scalar read, the
// bias computed on tiles) and document ids per token (read at the query
// and at the key index: the block's rows of the table, [128] at the first
// query and [64] at the block's first key, broadcast and compared). The
// reads that need no key (the slope, the queries' ids) happen once, before
// the key loop.
// CHECK-LABEL: tile.kernel @attention_doc_alibi
// CHECK-SAME: %H: i32
// CHECK: %[[SLOPE:.*]] = tile.load_scalar %{{.*}}[%[[HEAD:.*]]] : !tile.view<?xf32, strides = [1]> -> f32
// CHECK: %[[DQ:.*]] = tile.load %{{.*}}[%[[BATCH:.*]], %[[M0:.*]]] : !tile.view<?x?xi32, strides = [?, 1]> -> tensor<128xi32>
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK-NOT: tile.load_scalar
// CHECK: %[[D:.*]] = arith.subi %{{.*}}, %{{.*}} : tensor<128x64xi32>
// CHECK: %[[DF:.*]] = arith.sitofp %[[D]] : tensor<128x64xi32> to tensor<128x64xf32>
// CHECK: %[[SL:.*]] = tile.splat %[[SLOPE]] : tensor<128x64xf32>
// CHECK: arith.mulf %[[SL]], %[[DF]] : tensor<128x64xf32>
// CHECK: tile.expand_dims %[[DQ]] axis = 1
// CHECK: %[[DK:.*]] = tile.load %{{.*}}[%[[BATCH]], %[[N]]] : !tile.view<?x?xi32, strides = [?, 1]> -> tensor<64xi32>
// CHECK: tile.expand_dims %[[DK]] axis = 0
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : tensor<128x64xi32>
tile.kernel @attention_doc_alibi(%Q: !tile.ptr<bf16>, %D: !tile.ptr<i32>, %SL: !tile.ptr<f32>,
    %B: i32, %H: i32, %S: i32, %sb: i32 {tile.divisibility = 16 : i64}, %sh: i32 {tile.divisibility = 16 : i64}) {
  %q = tile.make_view %Q[%B, %H, %S, 64] strides [%sb, %sh, 64, 1] : !tile.ptr<bf16>
  %docs = tile.make_view %D[%B, %S] strides [%S, 1] : !tile.ptr<i32>
  %slopes = tile.make_view %SL[%H] strides [1] : !tile.ptr<f32>
  tile.attention %q, %q, %q, %q causal score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    %slope = tile.load_scalar %slopes[%h] : !tile.view<?xf32, strides = [1]> -> f32
    %d = arith.subi %kj, %qi : i32
    %df = arith.sitofp %d : i32 to f32
    %bias = arith.mulf %slope, %df : f32
    %r = arith.addf %s, %bias : f32
    tile.yield %r : f32
  } mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    %dq = tile.load_scalar %docs[%b, %qi] : !tile.view<?x?xi32, strides = [?, 1]> -> i32
    %dk = tile.load_scalar %docs[%b, %kj] : !tile.view<?x?xi32, strides = [?, 1]> -> i32
    %same = arith.cmpi eq, %dq, %dk : i32
    tile.yield %same : i1
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>,
      !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// A block list whose first listed blocks are wholly visible (full_blocks):
// the mask_mod runs only from the first partial block on (an scf.if on the
// list position). The causal and key-end mask then runs in a branch taken
// by the partial blocks and by those reaching past the keys every row
// sees; so does the guard for rows without a key. On sm_80
// each listed block of 128 keys is two kernel blocks of 64.
// CHECK-LABEL: tile.kernel @doc_full_blocks
// CHECK: %[[FULL:.*]] = tile.load_scalar %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : !tile.view<?x?x?xi32, strides = [?, 0, 1]> -> i32
// CHECK: %[[FULLEND:.*]] = arith.muli %[[FULL]], %c{{[0-9]+}}
// CHECK: scf.for %[[J:[a-z0-9_]+]] =
// CHECK:   %[[ENTRY:.*]] = tile.load_scalar
// CHECK:   %[[KEY:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK:   %[[PARTIAL:.*]] = arith.cmpi sge, %[[J]], %[[FULLEND]] : i32
// CHECK:   scf.if %[[PARTIAL]]
// CHECK:     tile.load %{{.*}} : !tile.view<?x?xi32, strides = [?, 1]> -> tensor<64xi32>
// CHECK:     arith.cmpi eq
// CHECK:   } else {
// CHECK-NEXT: scf.yield
// CHECK:   %[[DIAG:.*]] = arith.cmpi sge, %[[KEY]], %{{.*}} : i32
// CHECK:   %[[PARTIAL2:.*]] = arith.cmpi sge, %[[J]], %[[FULLEND]] : i32
// CHECK:   %[[EDGE:.*]] = arith.ori %[[DIAG]], %[[PARTIAL2]] : i1
// CHECK:   scf.if %[[EDGE]]
// CHECK:     arith.cmpi slt
// CHECK:     arith.select
// CHECK:   } else {
// CHECK-NEXT: scf.yield
// CHECK:   tile.reduce max
// CHECK:   scf.if %[[EDGE]]
// CHECK:     arith.cmpf oeq
tile.kernel @doc_full_blocks(%Q: !tile.ptr<bf16>, %D: !tile.ptr<i32>, %N: !tile.ptr<i32>,
    %I: !tile.ptr<i32>, %F: !tile.ptr<i32>, %B: i32, %H: i32, %S: i32, %QB: i32, %NB: i32, %ld: i32) {
  %q = tile.make_view %Q[%B, %H, %S, 128] strides [%ld, %ld, 128, 1] : !tile.ptr<bf16>
  %docs = tile.make_view %D[%B, %S] strides [%S, 1] : !tile.ptr<i32>
  %num = tile.make_view %N[%B, %H, %QB] strides [%QB, 0, 1] : !tile.ptr<i32>
  %idx = tile.make_view %I[%B, %H, %QB, %NB] strides [%S, 0, %NB, 1] : !tile.ptr<i32>
  %full = tile.make_view %F[%B, %H, %QB] strides [%QB, 0, 1] : !tile.ptr<i32>
  tile.attention %q, %q, %q, %q
      block_list(%num, %idx : !tile.view<?x?x?xi32, strides = [?, 0, 1]>, !tile.view<?x?x?x?xi32, strides = [?, 0, ?, 1]>)
      full_blocks(%full : !tile.view<?x?x?xi32, strides = [?, 0, 1]>)
      causal mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    %dq = tile.load_scalar %docs[%b, %qi] : !tile.view<?x?xi32, strides = [?, 1]> -> i32
    %dk = tile.load_scalar %docs[%b, %kj] : !tile.view<?x?xi32, strides = [?, 1]> -> i32
    %same = arith.cmpi eq, %dq, %dk : i32
    tile.yield %same : i1
  } : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
