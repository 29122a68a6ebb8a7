// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of the named ops tile.gemm and tile.attention.

func.func @gemm_0(%a: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{expected 2-D views for A, B and C}}
  tile.gemm %a, %b, %c : !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_1(%a: !tile.view<?x?xf32, strides = [?, 1]>, %b: !tile.view<?x?xf32, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{expected bf16 or f16 inputs, got 'f32'}}
  tile.gemm %a, %b, %c : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_2(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{expected A and B of the same element type, got 'bf16' and 'f16'}}
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_3(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xi32, strides = [?, 1]>) {
  // expected-error @+1 {{expected a bf16, f16 or f32 output, got 'i32'}}
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xi32, strides = [?, 1]>
  return
}

// -----

func.func @gemm_4(%a: !tile.view<?x?xbf16, strides = [1, ?]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{expected A contiguous along K (strides = [?, 1])}}
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_5(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{expected B contiguous along N (row-major, strides = [?, 1]) or along K (column-major, strides = [1, ?])}}
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_6(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [1, ?]>) {
  // expected-error @+1 {{expected C contiguous along N (strides = [?, 1])}}
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [1, ?]>
  return
}

// -----

func.func @gemm_7(%a: !tile.view<?x64xbf16, strides = [?, 1]>, %b: !tile.view<32x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{K differs between A and B}}
  tile.gemm %a, %b, %c : !tile.view<?x64xbf16, strides = [?, 1]>, !tile.view<32x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_8(%a: !tile.view<16x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<32x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{M differs between A and C}}
  tile.gemm %a, %b, %c : !tile.view<16x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<32x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_9(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x16xbf16, strides = [?, 1]>, %c: !tile.view<?x32xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{N differs between B and C}}
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x16xbf16, strides = [?, 1]>, !tile.view<?x32xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_10(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %bias: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{expected a 1-D bias view}}
  tile.gemm %a, %b, %c bias(%bias) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_11(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %bias: !tile.view<?xbf16, strides = [2]>) {
  // expected-error @+1 {{expected a contiguous bias (strides = [1])}}
  tile.gemm %a, %b, %c bias(%bias) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?xbf16, strides = [2]>
  return
}

// -----

func.func @gemm_12(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x32xbf16, strides = [?, 1]>, %bias: !tile.view<16xbf16, strides = [1]>) {
  // expected-error @+1 {{bias length differs from N}}
  tile.gemm %a, %b, %c bias(%bias) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x32xbf16, strides = [?, 1]>, !tile.view<16xbf16, strides = [1]>
  return
}

// -----

func.func @gemm_13(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %bias: !tile.view<?xi32, strides = [1]>) {
  // expected-error @+1 {{expected a bf16, f16 or f32 bias, got 'i32'}}
  tile.gemm %a, %b, %c bias(%bias) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?xi32, strides = [1]>
  return
}

// -----

func.func @gemm_14(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{unknown config key 'tile_q'; expected one of block_m, block_n, block_k, stages, warps, group_m, warp_specialize, consumer_regs, producer_regs, tma_store, cluster_m, cluster_n}}
  tile.gemm %a, %b, %c config {tile_q = 4} : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_15(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{config key 'stages' expects a positive integer}}
  tile.gemm %a, %b, %c config {stages = 0} : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

// Named ops must sit directly in a kernel (their expansion rewrites it).
tile.kernel @k(%a: !tile.ptr<bf16>, %n: i32) {
  %va = tile.make_view %a[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
  scf.execute_region {
    // expected-error @+1 {{expected to be directly inside a tile.kernel}}
    tile.gemm %va, %va, %va : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
    scf.yield
  }
  tile.return
}

// -----

func.func @attention_0(%q: !tile.view<?x?x128xbf16, strides = [?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{expected a 4-D [batch, heads, seq, head_dim] view for Q}}
  tile.attention %q, %k, %v, %o : !tile.view<?x?x128xbf16, strides = [?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_1(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, 1, ?]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{expected K contiguous along head_dim (last stride 1)}}
  tile.attention %q, %k, %v, %o : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_2(%q: !tile.view<?x?x?x128xf32, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xf32, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xf32, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xf32, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{expected bf16 or f16 Q/K/V/O, got 'f32'}}
  tile.attention %q, %k, %v, %o : !tile.view<?x?x?x128xf32, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf32, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf32, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf32, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_3(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{expected Q, K, V and O of one element type}}
  tile.attention %q, %k, %v, %o : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_4(%q: !tile.view<?x?x?x96xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{expected a static head_dim of 64, 128 or 256}}
  tile.attention %q, %k, %v, %o : !tile.view<?x?x?x96xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_5(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x64xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{expected the same head_dim for Q, K, V and O}}
  tile.attention %q, %k, %v, %o : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x64xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_6(%q: !tile.view<2x?x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<3x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{batch size of K differs from Q's}}
  tile.attention %q, %k, %v, %o : !tile.view<2x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<3x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_7(%q: !tile.view<?x?x16x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x32x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{expected O to have Q's heads and sequence length}}
  tile.attention %q, %k, %v, %o : !tile.view<?x?x16x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x32x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_8(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x16x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x32x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{expected K and V of the same heads and sequence length}}
  tile.attention %q, %k, %v, %o : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x16x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x32x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_9(%q: !tile.view<?x8x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x3x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x3x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x8x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{K/V heads (3) must divide Q heads (8)}}
  tile.attention %q, %k, %v, %o : !tile.view<?x8x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x3x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x3x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x8x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_10(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %l: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>) {
  // expected-error @+1 {{expected an f32 [batch, heads, seq] lse view}}
  tile.attention %q, %k, %v, %o lse(%l) : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>
  return
}

// -----

func.func @attention_11(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %l: !tile.view<?x?x?xf32, strides = [?, 1, ?]>) {
  // expected-error @+1 {{expected lse contiguous along seq}}
  tile.attention %q, %k, %v, %o lse(%l) : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?xf32, strides = [?, 1, ?]>
  return
}

// -----

func.func @attention_12(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{expected a positive finite scale}}
  tile.attention %q, %k, %v, %o scale(-1.0) : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_13(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{unknown config key 'block_k'; expected one of block_m, block_n, stages, warps}}
  tile.attention %q, %k, %v, %o config {block_k = 64} : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}
