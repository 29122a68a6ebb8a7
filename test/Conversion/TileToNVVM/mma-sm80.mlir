// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// tile.dot with a #tile.mma accumulator and #tile.dot_operand operands is
// mma.sync.aligned.m16n8k16.row.col: one instruction per 16x8 accumulator
// tile and 16-wide K step of each warp. bf16 pairs go in as i32 registers:
// A is four of them (a0..a3: rows r and r + 8 at K 0-1, then at K 8-9), B
// two, C four f32.

#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @one_mma_bf16
  // CHECK-SAME: nvvm.reqntid = array<i32: 32, 1, 1>
  // CHECK: %[[AV:.+]] = arith.constant dense<1.000000e+00> : vector<8xbf16>
  // CHECK: %[[BV:.+]] = arith.constant dense<2.000000e+00> : vector<4xbf16>
  // CHECK: %[[CV:.+]] = arith.constant dense<0.000000e+00> : vector<4xf32>
  // CHECK: %[[A0:.+]] = vector.extract %[[AV]][0] : bf16 from vector<8xbf16>
  // CHECK: %[[A1:.+]] = vector.extract %[[AV]][1] : bf16 from vector<8xbf16>
  // CHECK: %[[C0:.+]] = vector.extract %[[CV]][0] : f32 from vector<4xf32>
  // CHECK: %[[C1:.+]] = vector.extract %[[CV]][1] : f32 from vector<4xf32>
  // CHECK: %[[C2:.+]] = vector.extract %[[CV]][2] : f32 from vector<4xf32>
  // CHECK: %[[C3:.+]] = vector.extract %[[CV]][3] : f32 from vector<4xf32>
  // CHECK: %[[P0:.+]] = vector.from_elements %[[A0]], %[[A1]] : vector<2xbf16>
  // CHECK-NEXT: %[[R0:.+]] = llvm.bitcast %[[P0]] : vector<2xbf16> to i32
  // CHECK: %[[D:.+]] = nvvm.mma.sync A[%[[R0]], %{{.+}}, %{{.+}}, %{{.+}}] B[%{{.+}}, %{{.+}}] C[%[[C0]], %[[C1]], %[[C2]], %[[C3]]]
  // CHECK-SAME: layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
  // CHECK-SAME: multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
  // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
  // CHECK-SAME: : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NEXT: %[[D0:.+]] = llvm.extractvalue %[[D]][0]
  // CHECK-NEXT: %[[D1:.+]] = llvm.extractvalue %[[D]][1]
  // CHECK-NEXT: %[[D2:.+]] = llvm.extractvalue %[[D]][2]
  // CHECK-NEXT: %[[D3:.+]] = llvm.extractvalue %[[D]][3]
  // CHECK-NEXT: vector.from_elements %[[D0]], %[[D1]], %[[D2]], %[[D3]] : vector<4xf32>
  // CHECK-NOT: nvvm.mma.sync
  // CHECK: llvm.return
  tile.kernel @one_mma_bf16() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x16xbf16, #da>
    %b = arith.constant dense<2.0> : tensor<16x8xbf16, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = tile.dot %a, %b, %c : tensor<16x16xbf16, #da>, tensor<16x8xbf16, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}

// -----

// f16 operands: the NVVM op takes f16 pairs as vector<2xf16> (no bitcast)
// and infers the PTX types from them.

#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @one_mma_f16
  // CHECK-NOT: llvm.bitcast
  // CHECK: nvvm.mma.sync A[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}] B[%{{.+}}, %{{.+}}] C[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}]
  // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
  // CHECK-SAME: : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NOT: nvvm.mma.sync
  // CHECK: llvm.return
  tile.kernel @one_mma_f16() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x16xf16, #da>
    %b = arith.constant dense<1.0> : tensor<16x8xf16, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = tile.dot %a, %b, %c : tensor<16x16xf16, #da>, tensor<16x8xf16, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}

// -----

// Two warps stacked along M, each with a 16x16 warp tile (two 16x8 tiles)
// and K = 32 (two steps): four instructions per warp, K steps outermost.
// Both N tiles of a K step share the A fragment; the second K step reads a
// new A fragment and accumulates into the first step's results. The
// accumulator registers of N tile 0 are C[0..3], of N tile 1 C[4..7].

#mma = #tile.mma<warpsPerCTA = [2, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @k_steps
  // CHECK-SAME: nvvm.reqntid = array<i32: 64, 1, 1>
  // CHECK: %[[CV:.+]] = arith.constant dense<0.000000e+00> : vector<8xf32>
  // CHECK: %[[C0:.+]] = vector.extract %[[CV]][0] : f32 from vector<8xf32>
  // CHECK: %[[C4:.+]] = vector.extract %[[CV]][4] : f32 from vector<8xf32>
  // k = 0, n = 0
  // CHECK: %[[M0:.+]] = nvvm.mma.sync A[%[[A0:.+]], %[[A1:.+]], %[[A2:.+]], %[[A3:.+]]] B[%{{.+}}, %{{.+}}] C[%[[C0]], %{{.+}}, %{{.+}}, %{{.+}}]
  // CHECK-SAME: shape = #nvvm.shape<m = 16, n = 8, k = 16>
  // CHECK: %[[M0R0:.+]] = llvm.extractvalue %[[M0]][0]
  // k = 0, n = 8: the same A fragment.
  // CHECK: %[[M1:.+]] = nvvm.mma.sync A[%[[A0]], %[[A1]], %[[A2]], %[[A3]]] B[%{{.+}}, %{{.+}}] C[%[[C4]], %{{.+}}, %{{.+}}, %{{.+}}]
  // CHECK: %[[M1R0:.+]] = llvm.extractvalue %[[M1]][0]
  // k = 16: the next A fragment, accumulating into k = 0's results.
  // CHECK: %[[M2:.+]] = nvvm.mma.sync A[%[[A4:.+]], %{{.+}}, %{{.+}}, %{{.+}}] B[%{{.+}}, %{{.+}}] C[%[[M0R0]], %{{.+}}, %{{.+}}, %{{.+}}]
  // CHECK: %[[M2R0:.+]] = llvm.extractvalue %[[M2]][0]
  // CHECK: %[[M3:.+]] = nvvm.mma.sync A[%[[A4]], %{{.+}}, %{{.+}}, %{{.+}}] B[%{{.+}}, %{{.+}}] C[%[[M1R0]], %{{.+}}, %{{.+}}, %{{.+}}]
  // CHECK: %[[M3R0:.+]] = llvm.extractvalue %[[M3]][0]
  // CHECK-NOT: nvvm.mma.sync
  // CHECK: vector.from_elements %[[M2R0]], %{{.+}}, %{{.+}}, %{{.+}}, %[[M3R0]], %{{.+}}, %{{.+}}, %{{.+}} : vector<8xf32>
  tile.kernel @k_steps() warps(2) {
    %a = arith.constant dense<1.0> : tensor<32x32xbf16, #da>
    %b = arith.constant dense<1.0> : tensor<32x16xbf16, #db>
    %c = arith.constant dense<0.0> : tensor<32x16xf32, #mma>
    %d = tile.dot %a, %b, %c : tensor<32x32xbf16, #da>, tensor<32x16xbf16, #db> -> tensor<32x16xf32, #mma>
    tile.return
  }
}

// -----

// On sm_90a a dot whose operands are in registers (not #tile.shared) is
// not a wgmma: it stays on mma.sync.

#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @registers_on_sm90a
  // CHECK-NOT: nvvm.wgmma
  // CHECK-COUNT-2: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 16>
  // CHECK-NOT: nvvm.mma.sync
  // CHECK-NOT: nvvm.wgmma
  // CHECK: llvm.return
  tile.kernel @registers_on_sm90a() warps(4) {
    %a = arith.constant dense<1.0> : tensor<64x16xbf16, #da>
    %b = arith.constant dense<1.0> : tensor<16x16xbf16, #db>
    %c = arith.constant dense<0.0> : tensor<64x16xf32, #mma>
    %d = tile.dot %a, %b, %c : tensor<64x16xbf16, #da>, tensor<16x16xbf16, #db> -> tensor<64x16xf32, #mma>
    tile.return
  }
}

// -----

// fp8 (sm_89): mma.sync.aligned.m16n8k32 as inline PTX (NVVM's verifier
// rejects the dense fp8 forms), e4m3 x e5m2 mixed. Four K-adjacent bytes go
// in one i32 register (kWidth 4): a0 holds K 0-3 of row r, a2 K 16-19; the
// accumulator registers are tied to the results.

#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
gpu.module @g [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
  // CHECK-LABEL: llvm.func @one_mma_fp8
  // CHECK: %[[AV:.+]] = arith.constant dense<56> : vector<16xi8>
  // CHECK: arith.constant dense<64> : vector<8xi8>
  // CHECK: %[[A0:.+]] = vector.extract %[[AV]][0] : i8 from vector<16xi8>
  // CHECK: %[[A1:.+]] = vector.extract %[[AV]][1] : i8 from vector<16xi8>
  // CHECK: %[[A2:.+]] = vector.extract %[[AV]][2] : i8 from vector<16xi8>
  // CHECK: %[[A3:.+]] = vector.extract %[[AV]][3] : i8 from vector<16xi8>
  // CHECK: %[[P0:.+]] = vector.from_elements %[[A0]], %[[A1]], %[[A2]], %[[A3]] : vector<4xi8>
  // CHECK-NEXT: %[[R0:.+]] = llvm.bitcast %[[P0]] : vector<4xi8> to i32
  // CHECK: %[[D:.+]] = llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3" %[[R0]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NEXT: llvm.extractvalue %[[D]][0]
  // CHECK-NOT: mma.sync
  // CHECK: llvm.return
  tile.kernel @one_mma_fp8() warps(1) {
    %a = arith.constant dense<1.0> : tensor<16x32xf8E4M3FN, #da>
    %b = arith.constant dense<2.0> : tensor<32x8xf8E5M2, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = tile.dot %a, %b, %c : tensor<16x32xf8E4M3FN, #da>, tensor<32x8xf8E5M2, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}

// -----

// i8 (sm_80+): the same m16n8k32 fragments as fp8, s32 accumulators (i32
// registers, "r" constraints) tied to the results.

#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @one_mma_i8
  // CHECK: llvm.bitcast %{{.+}} : vector<4xi8> to i32
  // CHECK: llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};", "=r,=r,=r,=r,r,r,r,r,r,r,0,1,2,3" {{.*}} : (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
  tile.kernel @one_mma_i8(%p: !tile.ptr<i8>) warps(1) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %p[16, 32] strides [32, 1] : !tile.ptr<i8>
    %a = tile.load %v[%c0, %c0] : !tile.view<16x32xi8, strides = [32, 1]> -> tensor<16x32xi8, #da>
    %b = arith.constant dense<3> : tensor<32x8xi8, #db>
    %c = arith.constant dense<0> : tensor<16x8xi32, #mma>
    %d = tile.dot %a, %b, %c : tensor<16x32xi8, #da>, tensor<32x8xi8, #db> -> tensor<16x8xi32, #mma>
    %w = tile.make_view %p[16, 32] strides [32, 1] : !tile.ptr<i8>
    tile.return
  }
}

// -----

// f32 as TF32 (sm_80+): every operand element becomes a TF32 register once
// (cvt.rna.tf32.f32), one element a register (kWidth 1: a0 (r, k), a2
// (r, k + 4)), then mma.sync m16n8k8.tf32.

#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 1>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 1>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @one_mma_tf32
  // CHECK-COUNT-6: nvvm.convert.float.to.tf32 %{{.+}} {rnd = #nvvm.fp_rnd_mode<rna>}
  // CHECK-NOT: nvvm.convert.float.to.tf32
  // CHECK: nvvm.mma.sync A[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}]  B[%{{.+}}, %{{.+}}]  C[%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
  // CHECK-NOT: nvvm.mma.sync
  // CHECK: llvm.return
  tile.kernel @one_mma_tf32(%x: f32, %y: f32) warps(1) {
    %a = tile.splat %x : tensor<16x8xf32, #da>
    %b = tile.splat %y : tensor<8x8xf32, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = tile.dot %a, %b, %c precision(tf32) : tensor<16x8xf32, #da>, tensor<8x8xf32, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}

// -----

// tf32x3: each element also gets the TF32 of its remainder, x - tf32(x)
// (the .tf32 register's low 13 bits cleared first), and each instruction
// slot sums three products, the small ones first: small(A) x big(B),
// big(A) x small(B), big(A) x big(B), from zero (the tensor cores' f32
// accumulation truncates), then adds them to the accumulator with fadd.

#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 1>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 1>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @one_mma_tf32x3
  // CHECK: %[[X:.+]] = vector.extract %{{.+}}[0] : f32 from vector<4xf32>
  // CHECK: %[[C0:.+]] = vector.extract %[[CV:.+]][0] : f32 from vector<4xf32>
  // CHECK: %[[BIG:.+]] = nvvm.convert.float.to.tf32 %[[X]] {rnd = #nvvm.fp_rnd_mode<rna>}
  // CHECK: %[[MASK:.+]] = llvm.mlir.constant(-8192 : i32) : i32
  // CHECK: %[[HEAD:.+]] = llvm.and %[[BIG]], %[[MASK]] : i32
  // CHECK: %[[HEADF:.+]] = llvm.bitcast %[[HEAD]] : i32 to f32
  // CHECK: %[[REST:.+]] = llvm.fsub %[[X]], %[[HEADF]] : f32
  // CHECK: %[[SMALL:.+]] = nvvm.convert.float.to.tf32 %[[REST]] {rnd = #nvvm.fp_rnd_mode<rna>}
  // CHECK: %[[Z:.+]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
  // CHECK: %[[D1:.+]] = nvvm.mma.sync A[%[[SMALL]], {{.*}} C[%[[Z]], {{.*}}multiplicandAPtxType = #nvvm.mma_type<tf32>
  // CHECK: %[[C1:.+]] = llvm.extractvalue %[[D1]][0]
  // CHECK: %[[D2:.+]] = nvvm.mma.sync A[%[[BIG]], {{.*}} C[%[[C1]],
  // CHECK: %[[C2:.+]] = llvm.extractvalue %[[D2]][0]
  // CHECK: %[[D3:.+]] = nvvm.mma.sync A[%[[BIG]], {{.*}} C[%[[C2]],
  // CHECK: %[[C3:.+]] = llvm.extractvalue %[[D3]][0]
  // CHECK: llvm.fadd %[[C0]], %[[C3]] : f32
  // CHECK-NOT: nvvm.mma.sync
  // CHECK: llvm.return
  tile.kernel @one_mma_tf32x3(%x: f32, %y: f32) warps(1) {
    %a = tile.splat %x : tensor<16x8xf32, #da>
    %b = tile.splat %y : tensor<8x8xf32, #db>
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #mma>
    %d = tile.dot %a, %b, %c precision(tf32x3) : tensor<16x8xf32, #da>, tensor<8x8xf32, #db> -> tensor<16x8xf32, #mma>
    tile.return
  }
}
