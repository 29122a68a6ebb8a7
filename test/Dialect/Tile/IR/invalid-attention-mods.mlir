// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of tile.attention's score_mod and mask_mod
// regions.

tile.kernel @args(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{expected score_mod's block arguments to be (score: f32, batch: i32, head: i32, query: i32, key: i32)}}
  tile.attention %q, %q, %q, %q score_mod {
  ^bb0(%s: f32, %qi: i32, %kj: i32):
    tile.yield %s : f32
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

tile.kernel @yield_type(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{expected score_mod to end in tile.yield of one 'f32' score}}
  tile.attention %q, %q, %q, %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    tile.yield %qi : i32
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

tile.kernel @yield_count(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{expected score_mod to end in tile.yield of one 'f32' score}}
  tile.attention %q, %q, %q, %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    tile.yield %s, %s : f32, f32
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// Ops that are not elementwise arith/math (here a tile op) are refused, at
// the op.
tile.kernel @not_elementwise(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %q, %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    // expected-error @+1 {{'tile.program_id' op is not allowed in tile.attention's score_mod, which holds elementwise arith and math ops, constants and tile.load_scalar on scalars}}
    %p = tile.program_id x
    tile.yield %s : f32
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// Scalars only: a tensor constant is refused.
tile.kernel @tensor_value(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %q, %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    // expected-error @+1 {{'arith.constant' op is not allowed in tile.attention's score_mod}}
    %c = arith.constant dense<1.0> : tensor<4xf32>
    tile.yield %s : f32
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// A region-holding op (scf.if) is refused.
tile.kernel @region_op(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %q, %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    %p = arith.cmpi slt, %qi, %kj : i32
    // expected-error @+1 {{'scf.if' op is not allowed in tile.attention's score_mod}}
    %r = scf.if %p -> f32 {
      scf.yield %s : f32
    } else {
      scf.yield %s : f32
    }
    tile.yield %r : f32
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

tile.kernel @fp8(%Q: !tile.ptr<f8E4M3FN>, %O: !tile.ptr<bf16>, %B: i32, %S: i32, %d: f32) {
  %q = tile.make_view %Q[%B, %B, %S, 128] strides [%B, %S, 128, 1] : !tile.ptr<f8E4M3FN>
  %v = tile.make_view %Q[%B, %B, %S, 128] strides [%B, %S, 1, 128] : !tile.ptr<f8E4M3FN>
  %o = tile.make_view %O[%B, %B, %S, 128] strides [%B, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{score_mod with FP8 inputs is not supported yet}}
  tile.attention %q, %q, %v, %o descale(%d, %d, %d) score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    tile.yield %s : f32
  } : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 128, 1]>,
      !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, 128]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @two_blocks(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{expected score_mod to be one block}}
  tile.attention %q, %q, %q, %q score_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    cf.br ^bb1
  ^bb1:
    tile.yield %s : f32
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

tile.kernel @yield_outside(%Q: !tile.ptr<bf16>) {
  %c = arith.constant 1.0 : f32
  %r = scf.execute_region -> f32 {
    // expected-error @+1 {{'tile.yield' op expects parent op 'tile.attention'}}
    tile.yield %c : f32
  }
  tile.return
}

// -----

tile.kernel @mask_args(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{expected mask_mod's block arguments to be (batch: i32, head: i32, query: i32, key: i32)}}
  tile.attention %q, %q, %q, %q mask_mod {
  ^bb0(%s: f32, %b: i32, %h: i32, %qi: i32, %kj: i32):
    %t = arith.cmpi sle, %kj, %qi : i32
    tile.yield %t : i1
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

tile.kernel @mask_yield(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{expected mask_mod to end in tile.yield of one 'i1' (whether the key is visible)}}
  tile.attention %q, %q, %q, %q mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    %d = arith.subi %qi, %kj : i32
    tile.yield %d : i32
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// The same ops as score_mod: a math op on tensors is refused.
tile.kernel @mask_op(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  tile.attention %q, %q, %q, %q mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    // expected-error @+1 {{'tile.splat' op is not allowed in tile.attention's mask_mod}}
    %t = tile.splat %qi : tensor<4xi32>
    %c = arith.cmpi sle, %kj, %qi : i32
    tile.yield %c : i1
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// A table read along the query index must index the view's last
// dimension.
tile.kernel @table_not_last(%Q: !tile.ptr<bf16>, %D: !tile.ptr<i32>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  %docs = tile.make_view %D[%S, %B] strides [1, %S] : !tile.ptr<i32>
  tile.attention %q, %q, %q, %q mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    // expected-error @+1 {{'tile.load_scalar' op in a score_mod or mask_mod reads at indices the same for the whole block (batch, head, values from above) or, in the last index only, the query or key index plus such an offset}}
    %d = tile.load_scalar %docs[%qi, %b] : !tile.view<?x?xi32, strides = [1, ?]> -> i32
    %c = arith.cmpi sgt, %d, %b : i32
    tile.yield %c : i1
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

// ... and be the index plus a uniform offset (not a product, not a
// difference of indices).
tile.kernel @table_index_form(%Q: !tile.ptr<bf16>, %D: !tile.ptr<i32>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, %B, %S, 64] strides [%B, %S, 64, 1] : !tile.ptr<bf16>
  %docs = tile.make_view %D[%S] strides [1] : !tile.ptr<i32>
  tile.attention %q, %q, %q, %q mask_mod {
  ^bb0(%b: i32, %h: i32, %qi: i32, %kj: i32):
    %i = arith.subi %qi, %kj : i32
    // expected-error @+1 {{'tile.load_scalar' op in a score_mod or mask_mod reads at indices}}
    %d = tile.load_scalar %docs[%i] : !tile.view<?xi32, strides = [1]> -> i32
    %c = arith.cmpi sgt, %d, %b : i32
    tile.yield %c : i1
  } : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}
