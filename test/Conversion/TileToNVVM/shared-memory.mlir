// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// A cp.async ring on sm_80. tile.local_alloc is the buffer's planned offset
// in the dynamic shared memory @tile_smem. Each thread of the coalesced copy
// layout moves 16-byte chunks (8 bf16) with cp.async.cg: the 32x64 stage is
// 256 chunks, two per thread, the second 16 rows below the first. Lane l of
// warp w starts at row (l >> 3) & 3 + 4 * w, column 8 * (l & 7).
//
// The destination is swizzled: chunk c of row r goes to chunk c ^ (r % 8)
// (vec 8, perPhase 1, maxPhase 8), rows are 64 elements, and the second
// chunk's 16 rows (1024 elements) fold into a constant; stage s is
// s * 2048 elements further.
//
// A checked copy (the default) passes the bytes of the chunk inside the
// view as cp.async's src-size: min(16, 2 * (K - column)) clamped at 0, 0
// for rows past M (and then the view's base as the source); the rest of the
// 16 bytes is zero-filled. An `unchecked` copy has no src-size.

#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @cp_async_ring
  // CHECK-SAME: smem_bytes = 8192
  // CHECK: %[[S0:.+]] = arith.constant 0 : i32
  // CHECK: %[[S1:.+]] = arith.constant 1 : i32
  // CHECK: %[[PID:.+]] = nvvm.read.ptx.sreg.ctaid.x : i32
  // CHECK: %[[VIEW:.+]] = llvm.insertvalue %{{.+}}[4] : !llvm.struct<(ptr<1>, i32, i32, i32, i32)>
  // CHECK: %[[BUF:.+]] = llvm.mlir.addressof @tile_smem : !llvm.ptr<3>
  // CHECK: %[[BASE:.+]] = llvm.extractvalue %[[VIEW]][0]
  // CHECK-NEXT: %[[M:.+]] = llvm.extractvalue %[[VIEW]][1]
  // CHECK-NEXT: %[[LD:.+]] = llvm.extractvalue %[[VIEW]][3]
  // CHECK-NEXT: %[[K:.+]] = llvm.extractvalue %[[VIEW]][2]
  // The thread's row and column in the stage.
  // CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK-NEXT: %[[C31:.+]] = arith.constant 31 : i32
  // CHECK-NEXT: %[[LANE:.+]] = arith.andi %[[TID]], %[[C31]] : i32
  // CHECK: %[[ROW:.+]] = arith.addi %{{.+}}, %{{.+}} : i32
  // CHECK: %[[LANESH:.+]] = arith.shrui %[[LANE]], %{{.+}} : i32
  // CHECK-NEXT: %[[C7:.+]] = arith.constant 7 : i32
  // CHECK-NEXT: %[[LANE7:.+]] = arith.andi %[[LANESH]], %[[C7]] : i32
  // CHECK-NEXT: %[[THREE:.+]] = arith.constant 3 : i32
  // CHECK-NEXT: %[[COL:.+]] = arith.shli %[[LANE7]], %[[THREE]] : i32
  // Chunk 0: the source (the tile's base + row * lda + column) and its
  // bytes inside the view.
  // CHECK: %[[R0:.+]] = arith.addi %[[ROW]], %{{.+}} overflow<nsw> : i32
  // CHECK-NEXT: %{{.+}} = arith.constant 0 : i32
  // CHECK-NEXT: %[[CL0:.+]] = arith.addi %[[COL]], %{{.+}} overflow<nsw> : i32
  // CHECK: %[[LD64:.+]] = arith.extsi %[[LD]] : i32 to i64
  // CHECK-NEXT: %[[R064:.+]] = arith.extsi %[[R0]] : i32 to i64
  // CHECK-NEXT: arith.muli %[[R064]], %[[LD64]] overflow<nsw> : i64
  // CHECK: %[[GROW:.+]] = arith.addi %[[PID]], %[[R0]] overflow<nsw> : i32
  // CHECK-NEXT: %[[GCOL:.+]] = arith.addi %[[S0]], %[[CL0]] overflow<nsw> : i32
  // CHECK-NEXT: %[[INROWS:.+]] = arith.cmpi ult, %[[GROW]], %[[M]] : i32
  // CHECK-NEXT: %[[LEFT:.+]] = arith.subi %[[K]], %[[GCOL]] : i32
  // CHECK-NEXT: %[[TWO:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[LEFTB:.+]] = arith.muli %[[LEFT]], %[[TWO]] : i32
  // CHECK-NEXT: %[[SIXTEEN:.+]] = arith.constant 16 : i32
  // CHECK-NEXT: %[[MIN:.+]] = arith.minsi %[[LEFTB]], %[[SIXTEEN]] : i32
  // CHECK-NEXT: %[[MAX:.+]] = arith.maxsi %[[MIN]], %[[Z:.+]] : i32
  // CHECK-NEXT: %[[BYTES:.+]] = arith.select %[[INROWS]], %[[MAX]], %[[Z]] : i32
  // CHECK-NEXT: %[[ANY:.+]] = arith.cmpi sgt, %[[BYTES]], %[[Z]] : i32
  // CHECK-NEXT: %[[SRC:.+]] = arith.select %[[ANY]], %{{.+}}, %[[BASE]] : !llvm.ptr<1>
  // Chunk 0: the swizzled destination in stage 1.
  // CHECK: %[[CHUNK:.+]] = arith.shrui %{{.+}}, %{{.+}} : i32
  // CHECK: %[[PHASE:.+]] = arith.andi %{{.+}}, %c7_i32{{.*}} : i32
  // CHECK-NEXT: %[[SWZ:.+]] = arith.xori %[[CHUNK]], %[[PHASE]] : i32
  // CHECK: %[[INCHUNK:.+]] = arith.ori %{{.+}}, %{{.+}} : i32
  // CHECK-NEXT: %[[SIX:.+]] = arith.constant 6 : i32
  // CHECK-NEXT: %[[ROWOFF:.+]] = arith.shli %{{.+}}, %[[SIX]] : i32
  // CHECK-NEXT: %[[OFF:.+]] = arith.addi %[[ROWOFF]], %[[INCHUNK]] : i32
  // CHECK-NEXT: %[[ELEM:.+]] = llvm.getelementptr %[[BUF]][%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK-NEXT: %[[TILE:.+]] = arith.constant 2048 : i32
  // CHECK-NEXT: %[[STAGEOFF:.+]] = arith.muli %[[S1]], %[[TILE]] overflow<nsw> : i32
  // CHECK-NEXT: %[[DST:.+]] = llvm.getelementptr %[[ELEM]][%[[STAGEOFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK-NEXT: nvvm.cp.async.shared.global %[[DST]], %[[SRC]], 16, cache = cg, %[[BYTES]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
  // Chunk 1: 16 rows down, the same swizzle plus 16 x 64 elements.
  // CHECK-NEXT: %[[C16:.+]] = arith.constant 16 : i32
  // CHECK-NEXT: arith.addi %[[ROW]], %[[C16]] overflow<nsw> : i32
  // CHECK: arith.minsi
  // CHECK: %[[HI:.+]] = arith.constant 1024 : i32
  // CHECK-NEXT: %[[OFF1:.+]] = arith.addi %{{.+}}, %[[HI]] : i32
  // CHECK-NEXT: llvm.getelementptr %[[BUF]][%[[OFF1]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache = cg, %{{.+}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
  // CHECK-NEXT: nvvm.cp.async.commit.group
  // The unchecked copy into stage 0: no bounds, no src-size.
  // CHECK-NOT: arith.minsi
  // CHECK: arith.muli %[[S0]], %{{.+}} overflow<nsw> : i32
  // CHECK-NEXT: %[[UDST:.+]] = llvm.getelementptr
  // CHECK-NEXT: nvvm.cp.async.shared.global %[[UDST]], %{{.+}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>{{$}}
  // CHECK-NOT: arith.minsi
  // CHECK: nvvm.cp.async.shared.global %{{.+}}, %{{.+}}, 16, cache = cg : !llvm.ptr<3>, !llvm.ptr<1>{{$}}
  // CHECK-NEXT: nvvm.cp.async.commit.group
  // CHECK-NEXT: nvvm.cp.async.wait.group 1
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.return
  tile.kernel @cp_async_ring(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %M: i32, %K: i32, %lda: i32 {tile.divisibility = 8 : i64}) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %m = tile.program_id x
    %va = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
    %buf = tile.local_alloc : !tile.smem<2x32x64xbf16, #sa>
    tile.async_copy %va[%m, %c0], %buf[%c1] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<2x32x64xbf16, #sa>
    tile.async_commit
    tile.async_copy %va[%m, %c0], %buf[%c0] unchecked : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<2x32x64xbf16, #sa>
    tile.async_commit
    tile.async_wait 1
    tile.barrier
    tile.return
  }
}

// -----

// tile.local_load into mma.sync operand layouts is ldmatrix: each lane
// gives the address of row l % 8 of 8x8 matrix l / 8, and register j of
// every lane receives matrix j, which is fragment register j.
//  * A (32x16 slice at K offset 16, warps [2, 2]: 16 rows per warp) from a
//    buffer contiguous along K: one x4 (layout row), the K offset added to
//    the lane's column before swizzling;
//  * B (16x32 slice at K offset 16: 16 columns per warp) from a buffer
//    contiguous along N: one x4.trans (layout col), in a second buffer (at
//    8192 bytes) with a 32-element-row swizzle (perPhase 2, maxPhase 4); the
//    16 rows of the K offset (512 elements) fold into a constant;
//  * B with 8-wide warp tiles (16x16 on warps [2, 2]): x2.trans.
// The registers become bf16 pairs of the operand tile.

#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sb = #tile.shared<vec = 8, perPhase = 2, maxPhase = 4, order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @ldmatrix
  // CHECK: %[[S1:.+]] = arith.constant 1 : i32
  // CHECK: %[[BA:.+]] = llvm.mlir.addressof @tile_smem : !llvm.ptr<3>
  // CHECK: %[[BB:.+]] = llvm.getelementptr %{{.+}}[8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // A: the lane's K column plus the slice's 16.
  // CHECK: %[[K16:.+]] = arith.constant 16 : i32
  // CHECK-NEXT: %[[KL:.+]] = arith.addi %{{.+}}, %[[K16]] : i32
  // CHECK: %[[AE:.+]] = llvm.getelementptr %[[BA]][%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK-NEXT: %[[AT:.+]] = arith.constant 2048 : i32
  // CHECK-NEXT: %[[AS:.+]] = arith.muli %[[S1]], %[[AT]] overflow<nsw> : i32
  // CHECK-NEXT: %[[AP:.+]] = llvm.getelementptr %[[AE]][%[[AS]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK-NEXT: %[[AL:.+]] = nvvm.ldmatrix %[[AP]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK-NEXT: %[[A0:.+]] = llvm.extractvalue %[[AL]][0] : !llvm.struct<(i32, i32, i32, i32)>
  // CHECK-NEXT: %[[A0P:.+]] = llvm.bitcast %[[A0]] : i32 to vector<2xbf16>
  // CHECK-NEXT: %[[A00:.+]] = vector.extract %[[A0P]][0] : bf16 from vector<2xbf16>
  // CHECK-NEXT: %[[A01:.+]] = vector.extract %[[A0P]][1] : bf16 from vector<2xbf16>
  // CHECK: vector.from_elements %[[A00]], %[[A01]], %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : vector<8xbf16>
  // B: rows of 32 elements (shift 5), the K offset's 512 elements folded.
  // CHECK: %[[BROW:.+]] = arith.shli %{{.+}}, %c5_i32{{(_[0-9]+)?}} : i32
  // CHECK-NEXT: %[[BOFF:.+]] = arith.addi %[[BROW]], %{{.+}} : i32
  // CHECK-NEXT: %[[HI:.+]] = arith.constant 512 : i32
  // CHECK-NEXT: %[[BOFF1:.+]] = arith.addi %[[BOFF]], %[[HI]] : i32
  // CHECK-NEXT: %[[BE:.+]] = llvm.getelementptr %[[BB]][%[[BOFF1]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK: %[[BP:.+]] = llvm.getelementptr %[[BE]][%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK-NEXT: nvvm.ldmatrix %[[BP]] {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  // The narrow B: two matrices.
  // CHECK: nvvm.ldmatrix %{{.+}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
  // CHECK: vector.from_elements %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : vector<4xbf16>
  // CHECK-NOT: nvvm.ldmatrix
  // CHECK: llvm.return
  tile.kernel @ldmatrix() warps(4) {
    %c1 = arith.constant 1 : i32
    %ba = tile.local_alloc : !tile.smem<2x32x64xbf16, #sa>
    %bb = tile.local_alloc : !tile.smem<2x64x32xbf16, #sb>
    %a = tile.local_load %ba[%c1] offsets [0, 16] : !tile.smem<2x32x64xbf16, #sa> -> tensor<32x16xbf16, #da>
    %b = tile.local_load %bb[%c1] offsets [16, 0] : !tile.smem<2x64x32xbf16, #sb> -> tensor<16x32xbf16, #db>
    %b8 = tile.local_load %bb[%c1] : !tile.smem<2x64x32xbf16, #sb> -> tensor<16x16xbf16, #db>
    tile.return
  }
}

// -----

// fp8 operands contiguous along K (sm_89's mma.sync m16n8k32): a matrix row
// is 16 bytes = 16 K elements, so one ldmatrix.x4 (layout row, b16 moves the
// bytes as they are) covers a 16x32 A block and the K halves are 16 apart;
// each register is four fp8 (vector<4xi8>) of the fragment. B stored N x K
// (contiguous along K, the K-major operand) takes non-transposed ldmatrix
// too. A B contiguous along N cannot be transposed by ldmatrix in 8-bit
// units: it is read element by element (llvm.load i8).

#sa = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0]>
#sbk = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1]>
#sbn = #tile.shared<vec = 16, perPhase = 4, maxPhase = 2, order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [1, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
#db = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 4>
gpu.module @g [#nvvm.target<chip = "sm_89", features = "+ptx84">] {
  // CHECK-LABEL: llvm.func @ldmatrix_fp8
  // CHECK: %[[AL:.+]] = nvvm.ldmatrix %{{.+}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK: %[[W0:.+]] = llvm.extractvalue %[[AL]][0]
  // CHECK-NEXT: %[[Q0:.+]] = llvm.bitcast %[[W0]] : i32 to vector<4xi8>
  // CHECK-NEXT: vector.extract %[[Q0]][0] : i8 from vector<4xi8>
  // CHECK-COUNT-3: vector.extract %[[Q0]]
  // CHECK-NOT: nvvm.ldmatrix
  // CHECK: nvvm.ldmatrix %{{.+}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 2 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32)>
  // CHECK-NOT: nvvm.ldmatrix
  // CHECK: llvm.load %{{.+}} : !llvm.ptr<3> -> i8
  // CHECK-NOT: nvvm.ldmatrix
  // CHECK: llvm.return
  tile.kernel @ldmatrix_fp8() warps(1) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x16x64xf8E4M3FN, #sa>
    %bk = tile.local_alloc : !tile.smem<1x64x8xf8E4M3FN, #sbk>
    %bn = tile.local_alloc : !tile.smem<1x32x32xf8E4M3FN, #sbn>
    %a = tile.local_load %ba[%c0] offsets [0, 32] : !tile.smem<1x16x64xf8E4M3FN, #sa> -> tensor<16x32xf8E4M3FN, #da>
    %b = tile.local_load %bk[%c0] : !tile.smem<1x64x8xf8E4M3FN, #sbk> -> tensor<32x8xf8E4M3FN, #db>
    %n = tile.local_load %bn[%c0] : !tile.smem<1x32x32xf8E4M3FN, #sbn> -> tensor<32x8xf8E4M3FN, #db>
    tile.return
  }
}

// -----

// A one-stage buffer (loop-invariant addresses, e.g. attention's Q): the
// constant part of an ldmatrix address stays in the instruction, as inline
// PTX. Each warp of warps [2, 2] holds 32 rows of the 64x16 A slice: the
// first 16 (no constant) are nvvm.ldmatrix, the next 16 (16 rows x 64
// elements x 2 bytes = 2048 bytes) `[$4+2048]`.

#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @ldmatrix_one_stage
  // CHECK: nvvm.ldmatrix %{{.+}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
  // CHECK: %[[ADDR:.+]] = llvm.ptrtoint %{{.+}} : !llvm.ptr<3> to i32
  // CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [$4+2048];", "=r,=r,=r,=r,r" %[[ADDR]] : (i32) -> !llvm.struct<(i32, i32, i32, i32)>
  // CHECK-NOT: ldmatrix
  // CHECK: vector.from_elements {{.*}} : vector<16xbf16>
  tile.kernel @ldmatrix_one_stage() warps(4) {
    %c0 = arith.constant 0 : i32
    %bq = tile.local_alloc : !tile.smem<1x64x64xbf16, #sa>
    %q = tile.local_load %bq[%c0] offsets [0, 48] : !tile.smem<1x64x64xbf16, #sa> -> tensor<64x16xbf16, #da>
    tile.return
  }
}

// -----

// tile.local_store writes each thread's runs along the buffer's contiguous
// dimension: the accumulator fragment's column pairs, 8 per thread here
// (a 16x32 warp tile of 16x8 tiles, rows r and r + 8), as 4-byte stores.
// A local_load into a blocked layout reads its 8-element runs as 16-byte
// loads.

#sa = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [2, 2]>
#bl = #tile.blocked<sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]>
gpu.module @g [#nvvm.target<chip = "sm_80", features = "+ptx70">] {
  // CHECK-LABEL: llvm.func @store_and_load
  // CHECK-COUNT-8: llvm.store %{{.+}}, %{{.+}} {alignment = 4 : i64} : vector<2xbf16>, !llvm.ptr<3>
  // CHECK-NOT: llvm.store
  // CHECK: nvvm.barrier0
  // CHECK: llvm.load %{{.+}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<8xbf16>
  // CHECK-NOT: llvm.load
  // CHECK: llvm.return
  tile.kernel @store_and_load() warps(4) {
    %c0 = arith.constant 0 : i32
    %buf = tile.local_alloc : !tile.smem<1x32x64xbf16, #sa>
    %acc = arith.constant dense<1.0> : tensor<32x64xbf16, #mma>
    tile.local_store %acc, %buf[%c0] : tensor<32x64xbf16, #mma>, !tile.smem<1x32x64xbf16, #sa>
    tile.barrier
    %t = tile.local_load %buf[%c0] : !tile.smem<1x32x64xbf16, #sa> -> tensor<16x64xbf16, #bl>
    tile.return
  }
}

// -----

// sm_90a: a local_load into the buffer's own #tile.shared encoding is the
// stage's address (wgmma reads it in place: no loads);
// tile.fence_async_shared is fence.proxy.async.shared::cta.

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @in_place_and_fence
  // CHECK: %[[S2:.+]] = arith.constant 2 : i32
  // CHECK: %[[BUF:.+]] = llvm.mlir.addressof @tile_smem : !llvm.ptr<3>
  // CHECK-NEXT: %[[Z:.+]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[E:.+]] = llvm.getelementptr %[[BUF]][%[[Z]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK-NEXT: %[[TILE:.+]] = arith.constant 4096 : i32
  // CHECK-NEXT: %[[OFF:.+]] = arith.muli %[[S2]], %[[TILE]] overflow<nsw> : i32
  // CHECK-NEXT: llvm.getelementptr %[[E]][%[[OFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK-NOT: llvm.load
  // CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
  // CHECK-NEXT: nvvm.barrier0
  // CHECK-NEXT: llvm.return
  tile.kernel @in_place_and_fence() warps(4) {
    %c2 = arith.constant 2 : i32
    %buf = tile.local_alloc : !tile.smem<3x64x64xbf16, #sw>
    %t = tile.local_load %buf[%c2] : !tile.smem<3x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    tile.fence_async_shared
    tile.barrier
    tile.return
  }
}
