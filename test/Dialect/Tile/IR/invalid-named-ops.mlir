// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// One case per verifier error of the named ops tile.gemm and tile.attention.

func.func @gemm_0(%a: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{expected 2-D views for A, B and C, 3-D ones [batch, rows, cols] for a batched GEMM, or 3-D A and B with a 2-D C for a batch-reduce GEMM}}
  tile.gemm %a, %b, %c : !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_1(%a: !tile.view<?x?xf64, strides = [?, 1]>, %b: !tile.view<?x?xf64, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{inputs must be bf16, f16, fp8 (f8E4M3FN, f8E5M2), f32 or i8, got f64}}
  tile.gemm %a, %b, %c : !tile.view<?x?xf64, strides = [?, 1]>, !tile.view<?x?xf64, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

// TF32 operands are read K-major: a row-major f32 B is refused.
func.func @gemm_tf32_row_major_b(%a: !tile.view<?x?xf32, strides = [?, 1]>, %b: !tile.view<?x?xf32, strides = [?, 1]>, %c: !tile.view<?x?xf32, strides = [?, 1]>) {
  // expected-error @+1 {{expected an f32 B contiguous along K (column-major, strides = [1, ?], e.g. an nn.Linear weight): TF32 tensor-core operands are read K-major}}
  tile.gemm %a, %b, %c precision(tf32) : !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [?, 1]>, !tile.view<?x?xf32, strides = [?, 1]>
  return
}

// -----

func.func @gemm_precision_bf16(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{precision(tf32x3) is for f32 inputs; 'bf16' inputs multiply exactly}}
  tile.gemm %a, %a, %c precision(tf32x3) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

// Row and column scales are contiguous f32 vectors of length M and N.
func.func @gemm_scale_a_bf16(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %s: !tile.view<?xbf16, strides = [1]>) {
  // expected-error @+1 {{expected scale_a to be a contiguous 1-D f32 view (strides = [1]), got '!tile.view<?xbf16, strides = [1]>'}}
  tile.gemm %a, %a, %a scale_a(%s : !tile.view<?xbf16, strides = [1]>) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_scale_b_length(%a: !tile.view<64x32xbf16, strides = [32, 1]>, %b: !tile.view<32x48xbf16, strides = [48, 1]>, %c: !tile.view<64x48xbf16, strides = [48, 1]>, %s: !tile.view<64xf32, strides = [1]>) {
  // expected-error @+1 {{scale_b has 64 elements, expected N = 48}}
  tile.gemm %a, %b, %c scale_b(%s : !tile.view<64xf32, strides = [1]>) : !tile.view<64x32xbf16, strides = [32, 1]>, !tile.view<32x48xbf16, strides = [48, 1]>, !tile.view<64x48xbf16, strides = [48, 1]>
  return
}

// -----

// Block scales (2-D scale_a / scale_b): fp8 inputs, both scales, 2-D f32
// views [ceildiv(K, 128), M] and [ceildiv(N, 128), ceildiv(K, 128)].
func.func @gemm_block_scales_bf16(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %s: !tile.view<?x?xf32, strides = [?, 1]>) {
  // expected-error @+1 {{block scales (2-D scale_a / scale_b) need fp8 inputs, got 'bf16'}}
  tile.gemm %a, %a, %a scale_a(%s : !tile.view<?x?xf32, strides = [?, 1]>) scale_b(%s : !tile.view<?x?xf32, strides = [?, 1]>) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_block_scales_one(%a: !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, %b: !tile.view<?x?xf8E4M3FN, strides = [1, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %s: !tile.view<?x?xf32, strides = [?, 1]>) {
  // expected-error @+1 {{block scales need both scale_a and scale_b}}
  tile.gemm %a, %b, %c scale_a(%s : !tile.view<?x?xf32, strides = [?, 1]>) : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E4M3FN, strides = [1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_block_scales_mixed_rank(%a: !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, %b: !tile.view<?x?xf8E4M3FN, strides = [1, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %s: !tile.view<?x?xf32, strides = [?, 1]>, %v: !tile.view<?xf32, strides = [1]>) {
  // expected-error @+1 {{expected scale_b to be a 2-D f32 view [ceildiv(N, 128), ceildiv(K, 128)] with contiguous rows (strides = [?, 1]), as block scales are, got '!tile.view<?xf32, strides = [1]>'}}
  tile.gemm %a, %b, %c scale_a(%s : !tile.view<?x?xf32, strides = [?, 1]>) scale_b(%v : !tile.view<?xf32, strides = [1]>) : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E4M3FN, strides = [1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_block_scales_shape(%a: !tile.view<100x300xf8E4M3FN, strides = [300, 1]>, %b: !tile.view<300x200xf8E4M3FN, strides = [1, 300]>, %c: !tile.view<100x200xbf16, strides = [200, 1]>, %sa: !tile.view<3x100xf32, strides = [100, 1]>, %sb: !tile.view<2x2xf32, strides = [2, 1]>) {
  // expected-error @+1 {{scale_b is 2x2, expected [ceildiv(N, 128), ceildiv(K, 128)] = 2x3}}
  tile.gemm %a, %b, %c scale_a(%sa : !tile.view<3x100xf32, strides = [100, 1]>) scale_b(%sb : !tile.view<2x2xf32, strides = [2, 1]>) : !tile.view<100x300xf8E4M3FN, strides = [300, 1]>, !tile.view<300x200xf8E4M3FN, strides = [1, 300]>, !tile.view<100x200xbf16, strides = [200, 1]>
  return
}

// -----

func.func @gemm_block_scales_a_transposed(%a: !tile.view<100x300xf8E4M3FN, strides = [300, 1]>, %b: !tile.view<300x200xf8E4M3FN, strides = [1, 300]>, %c: !tile.view<100x200xbf16, strides = [200, 1]>, %sa: !tile.view<100x3xf32, strides = [3, 1]>, %sb: !tile.view<2x3xf32, strides = [3, 1]>) {
  // expected-error @+1 {{scale_a is 100x3, expected [ceildiv(K, 128), M] = 3x100}}
  tile.gemm %a, %b, %c scale_a(%sa : !tile.view<100x3xf32, strides = [3, 1]>) scale_b(%sb : !tile.view<2x3xf32, strides = [3, 1]>) : !tile.view<100x300xf8E4M3FN, strides = [300, 1]>, !tile.view<300x200xf8E4M3FN, strides = [1, 300]>, !tile.view<100x200xbf16, strides = [200, 1]>
  return
}

// -----

// i8 x i8 -> i32 (torch._int_mm): B column-major, an i32 output, no epilogue.
func.func @gemm_i8_row_major_b(%a: !tile.view<?x?xi8, strides = [?, 1]>, %c: !tile.view<?x?xi32, strides = [?, 1]>) {
  // expected-error @+1 {{expected an i8 B contiguous along K (column-major, strides = [1, ?]): i8 tensor-core operands are read K-major, as torch._int_mm takes them}}
  tile.gemm %a, %a, %c : !tile.view<?x?xi8, strides = [?, 1]>, !tile.view<?x?xi8, strides = [?, 1]>, !tile.view<?x?xi32, strides = [?, 1]>
  return
}

// -----

func.func @gemm_i8_bf16_out(%a: !tile.view<?x?xi8, strides = [?, 1]>, %b: !tile.view<?x?xi8, strides = [1, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{i8 inputs must produce i32 (exact i32 sums, as torch._int_mm), got bf16}}
  tile.gemm %a, %b, %c : !tile.view<?x?xi8, strides = [?, 1]>, !tile.view<?x?xi8, strides = [1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_i8_alpha(%a: !tile.view<?x?xi8, strides = [?, 1]>, %b: !tile.view<?x?xi8, strides = [1, ?]>, %c: !tile.view<?x?xi32, strides = [?, 1]>, %s: f32) {
  // expected-error @+1 {{i8 inputs take no epilogue (alpha, beta, scales, bias, activation): the i32 sums are stored as they are, as torch._int_mm does}}
  tile.gemm %a, %b, %c alpha(%s) : !tile.view<?x?xi8, strides = [?, 1]>, !tile.view<?x?xi8, strides = [1, ?]>, !tile.view<?x?xi32, strides = [?, 1]>
  return
}

// -----

// fp8 operands are read K-major: a row-major B is refused.
func.func @gemm_fp8_row_major_b(%a: !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, %b: !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{expected an fp8 B contiguous along K (column-major, strides = [1, ?]): fp8 tensor-core operands are read K-major, as torch._scaled_mm takes them}}
  tile.gemm %a, %b, %c : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

// fp8 A with a bf16 B.
func.func @gemm_fp8_bf16(%a: !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [1, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{A and B must have the same element type (fp8 may mix e4m3 and e5m2), got f8E4M3FN and bf16}}
  tile.gemm %a, %b, %c : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_2(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{A and B must have the same element type (fp8 may mix e4m3 and e5m2), got bf16 and f16}}
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_3(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xi32, strides = [?, 1]>) {
  // expected-error @+1 {{the output must be bf16, f16 or f32, got i32}}
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
  // expected-error @+1 {{duplicate or unknown struct parameter name: tile_q}}
  tile.gemm %a, %b, %c config <tile_q = 4> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_15(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{stages = 0 must be at least 2}}
  tile.gemm %a, %b, %c config <stages = 0> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
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
  // expected-error @+1 {{expected bf16, f16 or FP8 (f8E4M3FN, f8E5M2) Q/K/V, got 'f32'}}
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
  // expected-error @+1 {{duplicate or unknown struct parameter name: block_k}}
  tile.attention %q, %k, %v, %o config <block_k = 64> : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

// The typed configs refuse what no chip can run, before any pass.

tile.kernel @not_pow2(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{block_m = 96 must be a power of two}}
  tile.gemm %a, %a, %a config <block_m = 96> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @one_stage(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{stages = 1 must be at least 2}}
  tile.gemm %a, %a, %a config <stages = 1> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @attention_one_stage(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 64] strides [%S, %S, 64, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{stages = 1 must be at least 2}}
  tile.attention %q, %q, %q, %q config <stages = 1>
      : !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>,
        !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>, !tile.view<?x4x?x64xbf16, strides = [?, ?, 64, 1]>
  tile.return
}

// -----

tile.kernel @cluster_without_ws(%A: !tile.ptr<bf16>, %M: i32) {
  %a = tile.make_view %A[%M, %M] strides [%M, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{cluster_n needs the warp-specialized kernel, but warp_specialize = false}}
  tile.gemm %a, %a, %a config <cluster_n = 2, warp_specialize = false> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @attention_pingpong_cp_async(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{pingpong needs the warp-specialized kernel, but warp_specialize = false}}
  tile.attention %q, %q, %q, %q config <warp_specialize = false, pingpong = true>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @attention_tma_store_cp_async(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{tma_store needs the warp-specialized kernel, but warp_specialize = false}}
  tile.attention %q, %q, %q, %q config <warp_specialize = false, tma_store = true>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

tile.kernel @attention_persistent_cp_async(%Q: !tile.ptr<bf16>, %B: i32, %S: i32) {
  %q = tile.make_view %Q[%B, 4, %S, 128] strides [%S, %S, 128, 1] : !tile.ptr<bf16>
  // expected-error @+1 {{persistent needs the warp-specialized kernel, but warp_specialize = false}}
  tile.attention %q, %q, %q, %q config <warp_specialize = false, persistent = true>
      : !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x4x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

// -----

func.func @config_warps_not_pow2(%a: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{warps = 6 must be a power of two}}
  tile.gemm %a, %a, %a config <warps = 6> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @config_regs_not_multiple_of_8(%a: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{consumer_regs must be a multiple of 8 in [24, 256], got 100}}
  tile.gemm %a, %a, %a config <consumer_regs = 100> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @config_regs_too_few(%a: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{producer_regs must be a multiple of 8 in [24, 256], got 16}}
  tile.gemm %a, %a, %a config <producer_regs = 16> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @config_gemm_tma_store_without_ws(%a: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{tma_store needs the warp-specialized kernel, but warp_specialize = false}}
  tile.gemm %a, %a, %a config <warp_specialize = false, tma_store = true> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @config_gemm_regs_without_ws(%a: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{consumer_regs needs the warp-specialized kernel, but warp_specialize = false}}
  tile.gemm %a, %a, %a config <warp_specialize = false, consumer_regs = 240> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @config_duplicate_key(%a: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{duplicate or unknown struct parameter name: stages}}
  tile.gemm %a, %a, %a config <stages = 3, stages = 4> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @config_attention_block_n_small(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{block_n = 8 must be at least 16}}
  tile.attention %q, %q, %q, %q config <block_n = 8> : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @config_attention_block_n_not_pow2(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{block_n = 96 must be a power of two}}
  tile.attention %q, %q, %q, %q config <block_n = 96> : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @config_attention_regs_without_ws(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{producer_regs needs the warp-specialized kernel, but warp_specialize = false}}
  tile.attention %q, %q, %q, %q config <warp_specialize = 0, producer_regs = 24> : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_fp8_v_layout(%q: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %d: f32) {
  // expected-error @+1 {{expected an FP8 V contiguous along seq (stride 1 on dimension 2: V transposed in memory, [batch, heads, head_dim, seq]), as FP8 tensor cores read P V's B operand K-major}}
  tile.attention %q, %k, %v, %o descale(%d, %d, %d) : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_fp8_mixed(%q: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %d: f32) {
  // expected-error @+1 {{expected FP8 Q, K and V together, got K of 'bf16'}}
  tile.attention %q, %k, %v, %o descale(%d, %d, %d) : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_fp8_out(%q: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, %o: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %d: f32) {
  // expected-error @+1 {{expected a bf16, f16 or f32 O for FP8 inputs, got 'f8E4M3FN'}}
  tile.attention %q, %k, %v, %o descale(%d, %d, %d) : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_fp8_no_descale(%q: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>) {
  // expected-error @+1 {{expected descale(q, k, v) for FP8 inputs (the per-tensor factors that turn Q, K and V back into their values; 1.0 if none)}}
  tile.attention %q, %k, %v, %o : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_bf16_descale(%q: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %d: f32) {
  // expected-error @+1 {{descale is for FP8 inputs only}}
  tile.attention %q, %k, %v, %o descale(%d, %d, %d) : !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_fp8_descale_mix(%q: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %d: f32, %dv: !tile.view<?x?xf32, strides = [?, ?]>) {
  // expected-error @+1 {{expected three f32 descale values or three descale views, not a mix}}
  tile.attention %q, %k, %v, %o descale(%d, %d, %dv : f32, f32, !tile.view<?x?xf32, strides = [?, ?]>) : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_fp8_descale_rank(%q: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %dv: !tile.view<?xf32, strides = [1]>) {
  // expected-error @+1 {{expected 2-D f32 descale views [batch, kv_heads], got '!tile.view<?xf32, strides = [1]>'}}
  tile.attention %q, %k, %v, %o descale(%dv, %dv, %dv : !tile.view<?xf32, strides = [1]>, !tile.view<?xf32, strides = [1]>, !tile.view<?xf32, strides = [1]>) : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_fp8_descale_type(%q: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %dv: !tile.view<?x?xbf16, strides = [?, ?]>) {
  // expected-error @+1 {{expected 2-D f32 descale views [batch, kv_heads], got '!tile.view<?x?xbf16, strides = [?, ?]>'}}
  tile.attention %q, %k, %v, %o descale(%dv, %dv, %dv : !tile.view<?x?xbf16, strides = [?, ?]>, !tile.view<?x?xbf16, strides = [?, ?]>, !tile.view<?x?xbf16, strides = [?, ?]>) : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @attention_fp8_descale_types(%q: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %k: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, %v: !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, %o: !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>, %dv: !tile.view<?x?xf32, strides = [?, ?]>) {
  // expected-error @+1 {{expected 3 descale types, got 1}}
  tile.attention %q, %k, %v, %o descale(%dv, %dv, %dv : !tile.view<?x?xf32, strides = [?, ?]>) : !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, ?, 1]>, !tile.view<?x?x?x128xf8E4M3FN, strides = [?, ?, 1, ?]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, ?, 1]>
  return
}

// -----

func.func @gemm_swap_ab_tma_store(%a: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{swap_ab takes no tma_store or clusters}}
  tile.gemm %a, %a, %a config <swap_ab = true, tma_store = true> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_unaligned_tma_store(%a: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{aligned = false takes no tma_store or clusters (TMA needs 16-byte aligned operands)}}
  tile.gemm %a, %a, %a config <aligned = false, tma_store = true> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

// Grouped GEMMs: i32 offsets, one per matrix of a 3-D B; 2-D A and C; no
// scales.
func.func @gemm_grouped_offsets_type(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?x?xbf16, strides = [?, 1, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %o: !tile.view<?xi64, strides = [1]>) {
  // expected-error @+1 {{expected group_offsets to be a 1-D i32 view (the groups' cumulative row ends), got '!tile.view<?xi64, strides = [1]>'}}
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi64, strides = [1]>) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?x?xbf16, strides = [?, 1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_grouped_ranks(%a: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, %b: !tile.view<?x?x?xbf16, strides = [?, 1, ?]>, %c: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, %o: !tile.view<?xi32, strides = [1]>) {
  // expected-error @+1 {{a grouped GEMM takes a 2-D A [M, K], a 3-D B [groups, K, N] and a 2-D C [M, N]}}
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>) : !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?x?xbf16, strides = [?, 1, ?]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>
  return
}

// -----

func.func @gemm_grouped_count(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<8x?x?xbf16, strides = [?, 1, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %o: !tile.view<4xi32, strides = [1]>) {
  // expected-error @+1 {{group_offsets has 4 elements, B holds 8 matrices}}
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<4xi32, strides = [1]>) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<8x?x?xbf16, strides = [?, 1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_grouped_scales(%a: !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, %b: !tile.view<?x?x?xf8E4M3FN, strides = [?, 1, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %o: !tile.view<?xi32, strides = [1]>, %s: !tile.view<?xf32, strides = [1]>) {
  // expected-error @+1 {{a grouped GEMM takes no scale_a / scale_b}}
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>) scale_a(%s : !tile.view<?xf32, strides = [1]>) : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?x?xf8E4M3FN, strides = [?, 1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_grouped_k(%a: !tile.view<?x64xbf16, strides = [?, 1]>, %b: !tile.view<?x32x?xbf16, strides = [?, 1, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %o: !tile.view<?xi32, strides = [1]>) {
  // expected-error @+1 {{K differs between A and B}}
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>) : !tile.view<?x64xbf16, strides = [?, 1]>, !tile.view<?x32x?xbf16, strides = [?, 1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

// Batch-reduce GEMMs (3-D A and B, 2-D C): no scales; other rank mixes
// are refused.
func.func @gemm_batch_reduce_scales(%a: !tile.view<?x?x?xf8E4M3FN, strides = [?, ?, 1]>, %b: !tile.view<?x?x?xf8E4M3FN, strides = [?, 1, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %s: !tile.view<?xf32, strides = [1]>) {
  // expected-error @+1 {{a batch-reduce GEMM takes no scale_a / scale_b}}
  tile.gemm %a, %b, %c scale_a(%s : !tile.view<?xf32, strides = [1]>) : !tile.view<?x?x?xf8E4M3FN, strides = [?, ?, 1]>, !tile.view<?x?x?xf8E4M3FN, strides = [?, 1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_rank_mix(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{expected 2-D views for A, B and C, 3-D ones [batch, rows, cols] for a batched GEMM, or 3-D A and B with a 2-D C for a batch-reduce GEMM}}
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

// Batched GEMMs: one batch size, no scales.
func.func @gemm_batch_mismatch(%a: !tile.view<4x?x?xbf16, strides = [?, ?, 1]>, %b: !tile.view<5x?x?xbf16, strides = [?, ?, 1]>, %c: !tile.view<4x?x?xbf16, strides = [?, ?, 1]>) {
  // expected-error @+1 {{the batch size differs between A, B and C}}
  tile.gemm %a, %b, %c : !tile.view<4x?x?xbf16, strides = [?, ?, 1]>, !tile.view<5x?x?xbf16, strides = [?, ?, 1]>, !tile.view<4x?x?xbf16, strides = [?, ?, 1]>
  return
}

// -----

func.func @gemm_batch_scales(%a: !tile.view<?x?x?xf8E4M3FN, strides = [?, ?, 1]>, %b: !tile.view<?x?x?xf8E4M3FN, strides = [?, 1, ?]>, %c: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, %s: !tile.view<?xf32, strides = [1]>) {
  // expected-error @+1 {{a batched GEMM takes no scale_a / scale_b}}
  tile.gemm %a, %b, %c scale_a(%s : !tile.view<?xf32, strides = [1]>) : !tile.view<?x?x?xf8E4M3FN, strides = [?, ?, 1]>, !tile.view<?x?x?xf8E4M3FN, strides = [?, 1, ?]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>
  return
}

// -----

func.func @gemm_batch_k_major(%a: !tile.view<?x?x?xbf16, strides = [?, 1, ?]>, %b: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, %c: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>) {
  // expected-error @+1 {{expected A contiguous along K (strides = [?, 1])}}
  tile.gemm %a, %b, %c : !tile.view<?x?x?xbf16, strides = [?, 1, ?]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>
  return
}


// -----

// Split-K: a workspace exactly with split_k > 1, a stage only then, and a
// 2-D GEMM without block scales or i8 inputs.
func.func @gemm_workspace_without_split(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %w: !tile.view<2x?x?xf32, strides = [?, ?, 1]>) {
  // expected-error @+1 {{a workspace is for split-K (config <split_k = S> with S > 1)}}
  tile.gemm %a, %b, %c workspace(%w : !tile.view<2x?x?xf32, strides = [?, ?, 1]>) : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_stage_without_split(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{a stage is for split-K (config <split_k = S> with S > 1)}}
  tile.gemm %a, %b, %c stage(reduce) config <split_k = 1> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_split_without_workspace(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{split_k = 4 needs a workspace(%ws : !tile.view<4x?x?xf32, strides = [?, ?, 1]>) for the partial products}}
  tile.gemm %a, %b, %c config <split_k = 4> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_split_batched(%a: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, %b: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, %c: !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, %w: !tile.view<2x?x?xf32, strides = [?, ?, 1]>) {
  // expected-error @+1 {{split_k needs a 2-D GEMM (not batched, batch-reduce or grouped)}}
  tile.gemm %a, %b, %c workspace(%w : !tile.view<2x?x?xf32, strides = [?, ?, 1]>) config <split_k = 2> : !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>
  return
}

// -----

func.func @gemm_split_i8(%a: !tile.view<?x?xi8, strides = [?, 1]>, %b: !tile.view<?x?xi8, strides = [1, ?]>, %c: !tile.view<?x?xi32, strides = [?, 1]>, %w: !tile.view<2x?x?xf32, strides = [?, ?, 1]>) {
  // expected-error @+1 {{split_k takes no i8 inputs (its partial sums are f32)}}
  tile.gemm %a, %b, %c workspace(%w : !tile.view<2x?x?xf32, strides = [?, ?, 1]>) config <split_k = 2> : !tile.view<?x?xi8, strides = [?, 1]>, !tile.view<?x?xi8, strides = [1, ?]>, !tile.view<?x?xi32, strides = [?, 1]>
  return
}

// -----

func.func @gemm_split_block_scales(%a: !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, %b: !tile.view<?x?xf8E4M3FN, strides = [1, ?]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %sa: !tile.view<?x?xf32, strides = [?, 1]>, %sb: !tile.view<?x?xf32, strides = [?, 1]>, %w: !tile.view<2x?x?xf32, strides = [?, ?, 1]>) {
  // expected-error @+1 {{split_k takes no block scales}}
  tile.gemm %a, %b, %c workspace(%w : !tile.view<2x?x?xf32, strides = [?, ?, 1]>) scale_a(%sa : !tile.view<?x?xf32, strides = [?, 1]>) scale_b(%sb : !tile.view<?x?xf32, strides = [?, 1]>) config <split_k = 2> : !tile.view<?x?xf8E4M3FN, strides = [?, 1]>, !tile.view<?x?xf8E4M3FN, strides = [1, ?]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_split_workspace_type(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %w: !tile.view<2x?x?xbf16, strides = [?, ?, 1]>) {
  // expected-error @+1 {{expected an f32 workspace [split_k, M, N] contiguous along N (strides = [?, ?, 1]), got '!tile.view<2x?x?xbf16, strides = [?, ?, 1]>'}}
  tile.gemm %a, %b, %c workspace(%w : !tile.view<2x?x?xbf16, strides = [?, ?, 1]>) config <split_k = 2> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_split_workspace_strided(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %w: !tile.view<2x?x?xf32, strides = [?, 1, ?]>) {
  // expected-error @+1 {{expected an f32 workspace [split_k, M, N] contiguous along N}}
  tile.gemm %a, %b, %c workspace(%w : !tile.view<2x?x?xf32, strides = [?, 1, ?]>) config <split_k = 2> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_split_workspace_count(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>, %w: !tile.view<3x?x?xf32, strides = [?, ?, 1]>) {
  // expected-error @+1 {{the workspace holds 3 partial products, expected split_k = 2}}
  tile.gemm %a, %b, %c workspace(%w : !tile.view<3x?x?xf32, strides = [?, ?, 1]>) config <split_k = 2> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_split_workspace_shape(%a: !tile.view<16x?xbf16, strides = [?, 1]>, %b: !tile.view<?x64xbf16, strides = [?, 1]>, %c: !tile.view<16x64xbf16, strides = [?, 1]>, %w: !tile.view<2x64x16xf32, strides = [?, ?, 1]>) {
  // expected-error @+1 {{the workspace's matrices differ from C's M x N}}
  tile.gemm %a, %b, %c workspace(%w : !tile.view<2x64x16xf32, strides = [?, ?, 1]>) config <split_k = 2> : !tile.view<16x?xbf16, strides = [?, 1]>, !tile.view<?x64xbf16, strides = [?, 1]>, !tile.view<16x64xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_split_tma_store(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{split_k takes no tma_store or clusters (the partial products are stored by the threads, in f32)}}
  tile.gemm %a, %b, %c config <split_k = 2, tma_store = true> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_split_too_many(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{split_k = 65 is larger than 64}}
  tile.gemm %a, %b, %c config <split_k = 65> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}

// -----

func.func @gemm_split_zero(%a: !tile.view<?x?xbf16, strides = [?, 1]>, %b: !tile.view<?x?xbf16, strides = [?, 1]>, %c: !tile.view<?x?xbf16, strides = [?, 1]>) {
  // expected-error @+1 {{split_k = 0 must be at least 1}}
  tile.gemm %a, %b, %c config <split_k = 0> : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  return
}
