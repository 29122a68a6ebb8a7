// RUN: tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(convert-tile-to-nvvm))' | FileCheck %s

// tile.dot on shared-memory operands (tile.local_load into the buffer's own
// #tile.shared encoding: the stage's address, no data moves) is one wgmma
// group: the registers it reads pinned by an empty asm statement, then
// wgmma.fence, one wgmma.mma_async m64nNk16 per 16-wide K step (the
// accumulator struct threaded through), and wgmma.commit_group.
//
// Both operands are read through 64-bit matrix descriptors:
//   (addr & 0x3FFFF) >> 4  |  LBO >> 4 << 16  |  SBO >> 4 << 32  |  1 << 62
// with SBO = 1024 (8 rows of 128 bytes) and the 128-byte swizzle (1 << 62).
// A (64x64 per warpgroup, K-major): LBO 16, the constant
// 4611686293305360384 = 1 << 62 | 64 << 32 | 1 << 16; +32 bytes per K step.
// B (K x N stored row-major, MN-major): LBO = the bytes between 64-wide N
// segments (64 K rows x 128 bytes = 8192: 512 << 16, the constant
// 4611686293338849280), +2048 bytes (16 rows) per K step, layout row.
// The tile.warpgroup_wait of the accumulator passes its registers through
// the wait_group asm statement.

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @ss_bf16
  // CHECK-SAME: smem_bytes = 32768
  // The buffers at 0 and 16384 bytes; stage 1 of each: 4096 elements in.
  // CHECK: %[[S1:.+]] = arith.constant 1 : i32
  // CHECK: %[[BBUF:.+]] = llvm.getelementptr %{{.+}}[16384] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[AT:.+]] = arith.constant 4096 : i32
  // CHECK-NEXT: %[[AOFF:.+]] = arith.muli %[[S1]], %[[AT]] overflow<nsw> : i32
  // CHECK-NEXT: %[[ASTAGE:.+]] = llvm.getelementptr %{{.+}}[%[[AOFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK-NEXT: %{{.+}} = arith.constant 0 : i32
  // CHECK-NEXT: %[[BB:.+]] = llvm.getelementptr %[[BBUF]][%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // CHECK-NEXT: %[[BT:.+]] = arith.constant 4096 : i32
  // CHECK-NEXT: %[[BOFF:.+]] = arith.muli %[[S1]], %[[BT]] overflow<nsw> : i32
  // CHECK-NEXT: %[[BSTAGE:.+]] = llvm.getelementptr %[[BB]][%[[BOFF]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, bf16
  // Each warpgroup's 64 rows of A start 64 x 128 bytes further.
  // CHECK: %[[TID:.+]] = nvvm.read.ptx.sreg.tid.x : i32
  // CHECK: %[[FIVE:.+]] = arith.constant 5 : i32
  // CHECK-NEXT: %[[WARP:.+]] = arith.shrui %[[TID]], %[[FIVE]] : i32
  // CHECK-NEXT: %[[TWO:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[WG:.+]] = arith.shrui %[[WARP]], %[[TWO]] : i32
  // CHECK-NEXT: %[[WGB:.+]] = arith.constant 8192 : i32
  // CHECK-NEXT: %[[AROWS:.+]] = arith.muli %[[WG]], %[[WGB]] : i32
  // CHECK-NEXT: %[[ABASE:.+]] = llvm.getelementptr %[[ASTAGE]][%[[AROWS]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "{{(=f,){32}0}},1,2,
  // CHECK: nvvm.wgmma.fence.aligned
  // K step 0: B's descriptor, then A's.
  // CHECK: %[[B0:.+]] = llvm.getelementptr %[[BSTAGE]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: %[[B0I:.+]] = llvm.ptrtoint %[[B0]] : !llvm.ptr<3> to i32
  // CHECK-NEXT: %[[B0L:.+]] = arith.extui %[[B0I]] : i32 to i64
  // CHECK-NEXT: %[[SH:.+]] = arith.constant 4 : i64
  // CHECK-NEXT: %[[MASK:.+]] = arith.constant 262143 : i64
  // CHECK-NEXT: %[[B0M:.+]] = arith.andi %[[B0L]], %[[MASK]] : i64
  // CHECK-NEXT: %[[B0S:.+]] = arith.shrui %[[B0M]], %[[SH]] : i64
  // CHECK-NEXT: %[[BFIX:.+]] = arith.constant 4611686293338849280 : i64
  // CHECK-NEXT: %[[DB0:.+]] = arith.ori %[[B0S]], %[[BFIX]] : i64
  // CHECK-NEXT: %[[A0:.+]] = llvm.getelementptr %[[ABASE]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[AFIX:.+]] = arith.constant 4611686293305360384 : i64
  // CHECK-NEXT: %[[DA0:.+]] = arith.ori %{{.+}}, %[[AFIX]] : i64
  // CHECK-NEXT: %[[D0:.+]] = nvvm.wgmma.mma_async %[[DA0]], %[[DB0]], %{{.+}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
  // CHECK-SAME: : !llvm.struct<({{(f32, ){31}f}}32)> -> !llvm.struct<({{(f32, ){31}f}}32)>
  // K steps 1 to 3.
  // CHECK-NEXT: llvm.getelementptr %[[BSTAGE]][2048]
  // CHECK: llvm.getelementptr %[[ABASE]][32]
  // CHECK: %[[D1:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[D0]], <m = 64, n = 64, k = 16>
  // CHECK-NEXT: llvm.getelementptr %[[BSTAGE]][4096]
  // CHECK: llvm.getelementptr %[[ABASE]][64]
  // CHECK: %[[D2:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[D1]], <m = 64, n = 64, k = 16>
  // CHECK-NEXT: llvm.getelementptr %[[BSTAGE]][6144]
  // CHECK: llvm.getelementptr %[[ABASE]][96]
  // CHECK: %[[D3:.+]] = nvvm.wgmma.mma_async %{{.+}}, %{{.+}}, %[[D2]], <m = 64, n = 64, k = 16>
  // CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NEXT: llvm.extractvalue %[[D3]][0]
  // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "wgmma.wait_group.sync.aligned 0;", "{{(=f,){32}0}},1,2,
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: llvm.return
  tile.kernel @ss_bf16() warps(4) {
    %c1 = arith.constant 1 : i32
    %ba = tile.local_alloc : !tile.smem<2x64x64xbf16, #sw>
    %bb = tile.local_alloc : !tile.smem<2x64x64xbf16, #sw>
    %a = tile.local_load %ba[%c1] : !tile.smem<2x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %b = tile.local_load %bb[%c1] : !tile.smem<2x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %d = tile.dot %a, %b, %z : tensor<64x64xbf16, #sw>, tensor<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    %r = tile.warpgroup_wait 0, %d : tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// Two warpgroups (8 warps, M = 128: 64 rows each, m64n32k16) on f16, with B
// stored N x K (contiguous along K, order = [0, 1]): B is K-major too, so
// layout col, LBO 16 (the same constant as A's) and +32 bytes per K step.

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#swk = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @ss_f16_kmajor_b
  // CHECK-SAME: nvvm.reqntid = array<i32: 256, 1, 1>
  // CHECK: %[[TWO:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[WG:.+]] = arith.shrui %{{.+}}, %[[TWO]] : i32
  // CHECK-NEXT: %[[WGB:.+]] = arith.constant 8192 : i32
  // CHECK-NEXT: %[[AROWS:.+]] = arith.muli %[[WG]], %[[WGB]] : i32
  // CHECK-NEXT: %[[ABASE:.+]] = llvm.getelementptr %{{.+}}[%[[AROWS]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: %[[B0:.+]] = llvm.getelementptr %[[BSTAGE:.+]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[BFIX:.+]] = arith.constant 4611686293305360384 : i64
  // CHECK-NEXT: %[[DB0:.+]] = arith.ori %{{.+}}, %[[BFIX]] : i64
  // CHECK-NEXT: llvm.getelementptr %[[ABASE]][0]
  // CHECK: nvvm.wgmma.mma_async %{{.+}}, %[[DB0]], %{{.+}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
  // CHECK-SAME: : !llvm.struct<({{(f32, ){15}f}}32)> -> !llvm.struct<({{(f32, ){15}f}}32)>
  // CHECK-NEXT: llvm.getelementptr %[[BSTAGE]][32]
  // CHECK: llvm.getelementptr %[[ABASE]][32]
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>
  // CHECK-NEXT: llvm.getelementptr %[[BSTAGE]][64]
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>
  // CHECK-NEXT: llvm.getelementptr %[[BSTAGE]][96]
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>
  // CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: llvm.return
  tile.kernel @ss_f16_kmajor_b() warps(8) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x128x64xf16, #sw>
    %bb = tile.local_alloc : !tile.smem<1x64x32xf16, #swk>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x128x64xf16, #sw> -> tensor<128x64xf16, #sw>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x64x32xf16, #swk> -> tensor<64x32xf16, #swk>
    %z = arith.constant dense<0.0> : tensor<128x32xf32, #mma>
    %d = tile.dot %a, %b, %z : tensor<128x64xf16, #sw>, tensor<64x32xf16, #swk> -> tensor<128x32xf32, #mma>
    tile.return
  }
}

// -----

// An M-major A (contiguous along M, order = [0, 1]: Bᵀ of a transposed
// product with a row-major B): wgmma's transposed A (layout col). Its rows
// are 64-element segments of all 32 K rows: warpgroup g reads the g-th
// (32 x 128 bytes = 4096 bytes further), each K step 16 rows (2048 bytes)
// further, and LBO is the bytes between segments (4096: 256 << 16).

#swm = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>
#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @ss_m_major_a
  // CHECK: %[[TWO:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[WG:.+]] = arith.shrui %{{.+}}, %[[TWO]] : i32
  // CHECK-NEXT: %[[SEG:.+]] = arith.constant 4096 : i32
  // CHECK-NEXT: %[[AROWS:.+]] = arith.muli %[[WG]], %[[SEG]] : i32
  // CHECK-NEXT: %[[ABASE:.+]] = llvm.getelementptr %{{.+}}[%[[AROWS]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: llvm.getelementptr %[[ABASE]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[AFIX:.+]] = arith.constant 4611686293322072064 : i64
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <row>]
  // CHECK: llvm.getelementptr %[[ABASE]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async {{.*}} A[<bf16>, <one>, <col>]
  // CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
  tile.kernel @ss_m_major_a() warps(8) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x128x32xbf16, #swm>
    %bb = tile.local_alloc : !tile.smem<1x32x64xbf16, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x128x32xbf16, #swm> -> tensor<128x32xbf16, #swm>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x32x64xbf16, #sw> -> tensor<32x64xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
    %d = tile.dot %a, %b, %z : tensor<128x32xbf16, #swm>, tensor<32x64xbf16, #sw> -> tensor<128x64xf32, #mma>
    tile.return
  }
}

// -----

// Two warpgroups on 64 rows split N (#tile.mma with mFirst: warps along M
// first): both read all of A; warpgroup g reads B from column 64 g on, one
// 64-element segment of the N-major B further (64 K rows x 128 bytes =
// 8192 bytes), and runs m64n64k16 on its 32 accumulator registers.

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 2], mFirst = true>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @ss_warpgroups_split_n
  // CHECK-SAME: nvvm.reqntid = array<i32: 256, 1, 1>
  // CHECK: %[[TWO:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[WG:.+]] = arith.shrui %{{.+}}, %[[TWO]] : i32
  // CHECK-NEXT: %[[ZERO:.+]] = arith.constant 0 : i32
  // CHECK-NEXT: %[[WGB:.+]] = arith.constant 8192 : i32
  // CHECK-NEXT: %[[AROWS:.+]] = arith.muli %[[ZERO]], %[[WGB]] : i32
  // CHECK-NEXT: %[[ABASE:.+]] = llvm.getelementptr %{{.+}}[%[[AROWS]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK-NEXT: %[[SEG:.+]] = arith.constant 8192 : i32
  // CHECK-NEXT: %[[BCOLS:.+]] = arith.muli %[[WG]], %[[SEG]] : i32
  // CHECK-NEXT: %[[BBASE:.+]] = llvm.getelementptr %{{.+}}[%[[BCOLS]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: llvm.getelementptr %[[BBASE]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
  // CHECK-SAME: : !llvm.struct<({{(f32, ){31}f}}32)> -> !llvm.struct<({{(f32, ){31}f}}32)>
  // CHECK: llvm.getelementptr %[[BBASE]][2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
  // CHECK-NEXT: llvm.getelementptr %[[BBASE]][4096]
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
  // CHECK-NEXT: llvm.getelementptr %[[BBASE]][6144]
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
  // CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: llvm.return
  tile.kernel @ss_warpgroups_split_n() warps(8) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %bb = tile.local_alloc : !tile.smem<1x64x128xbf16, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x64x128xbf16, #sw> -> tensor<64x128xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<64x128xf32, #mma>
    %d = tile.dot %a, %b, %z : tensor<64x64xbf16, #sw>, tensor<64x128xbf16, #sw> -> tensor<64x128xf32, #mma>
    tile.return
  }
}

// -----

// Four warpgroups on 128 rows and two N halves: warpgroup g takes rows
// 64 (g % 2) and, of the K-major B (stored N x K), rows 32 (g / 2) of N
// (32 rows x 128 bytes = 4096 bytes); m64n32k16. A in registers (RS): the
// A fragment of each warp's 16 rows, held by both N halves.

#swk = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>
#mma = #tile.mma<warpsPerCTA = [8, 2], mFirst = true>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @rs_warpgroups_split_m_and_n
  // CHECK-SAME: nvvm.reqntid = array<i32: 512, 1, 1>
  // CHECK: %[[TWO:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[WG:.+]] = arith.shrui %{{.+}}, %[[TWO]] : i32
  // CHECK-NEXT: %[[MG:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[ROW:.+]] = arith.remui %[[WG]], %[[MG]] : i32
  // CHECK-NEXT: %[[MG2:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[COL:.+]] = arith.divui %[[WG]], %[[MG2]] : i32
  // CHECK: %[[NROWS:.+]] = arith.constant 4096 : i32
  // CHECK-NEXT: %[[BCOLS:.+]] = arith.muli %[[COL]], %[[NROWS]] : i32
  // CHECK-NEXT: llvm.getelementptr %{{.+}}[%[[BCOLS]]] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-COUNT-4: wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {$0, {{(\$[0-9]+, ){14}\$}}15}
  // CHECK-NOT: wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK: llvm.return
  tile.kernel @rs_warpgroups_split_m_and_n() warps(16) {
    %c0 = arith.constant 0 : i32
    %a = arith.constant dense<1.0> : tensor<128x64xbf16, #da>
    %bb = tile.local_alloc : !tile.smem<1x64x64xbf16, #swk>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x64x64xbf16, #swk> -> tensor<64x64xbf16, #swk>
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
    %d = tile.dot %a, %b, %z : tensor<128x64xbf16, #da>, tensor<64x64xbf16, #swk> -> tensor<128x64xf32, #mma>
    tile.return
  }
}

// -----

// RS: A in registers (each warp's mma.sync A fragment, four i32 per K step)
// and B in shared memory. The NVVM op only takes an A descriptor, so each K
// step is inline PTX: the 32 accumulator registers tied in and out, the A
// fragment, B's descriptor and scale-d (a predicate from a register), with
// imm-trans-b 1 for the row-major B. The A fragments of both K steps are
// packed before the fence and pinned with the accumulator. A
// tile.warpgroup_wait without values is the NVVM op.

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @rs_bf16
  // CHECK-COUNT-8: llvm.bitcast %{{.+}} : vector<2xbf16> to i32
  // CHECK: %[[PIN:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "", "{{(=f,){32}(=r,){8}0}},1,
  // CHECK: %[[FA0:.+]] = llvm.extractvalue %[[PIN]][32]
  // CHECK: %[[FA4:.+]] = llvm.extractvalue %[[PIN]][36]
  // CHECK: nvvm.wgmma.fence.aligned
  // No A descriptor (LBO 16) and no NVVM wgmma op.
  // CHECK-NOT: 4611686293305360384
  // CHECK-NOT: nvvm.wgmma.mma_async
  // B (32x64, one 64-wide N segment of 32 K rows): LBO 4096 = 256 << 16.
  // CHECK: %[[BFIX:.+]] = arith.constant 4611686293322072064 : i64
  // CHECK-NEXT: %[[DB0:.+]] = arith.ori %{{.+}}, %[[BFIX]] : i64
  // CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{(\$[0-9]+, ){30}\$}}31}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;\0A}"
  // CHECK-SAME: "{{(=f,){32}0}},{{([0-9]+,){31}r}},r,r,r,l,r"
  // CHECK-SAME: %[[FA0]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %[[DB0]], %{{[^ ]+}} :
  // CHECK: llvm.getelementptr %{{.+}}[2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
  // CHECK-SAME: %[[FA4]], %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^,]+}}, %{{[^ ]+}} :
  // CHECK-NOT: wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // CHECK: nvvm.wgmma.wait.group.sync.aligned 1
  // CHECK: llvm.return
  tile.kernel @rs_bf16() warps(4) {
    %c0 = arith.constant 0 : i32
    %a = arith.constant dense<1.0> : tensor<64x32xbf16, #da>
    %bb = tile.local_alloc : !tile.smem<1x32x64xbf16, #sw>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x32x64xbf16, #sw> -> tensor<32x64xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %d = tile.dot %a, %b, %z : tensor<64x32xbf16, #da>, tensor<32x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    tile.warpgroup_wait 1
    tile.return
  }
}

// -----

// fp8 (e4m3 x e5m2), both operands K-major in 128-byte rows of 128
// elements: m64nNk32, 32 bytes of K per instruction as for 16-bit types (so
// A's start address steps by 2 (32 >> 4) per K step), B's layout col (K-major).

#swa = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 128>
#swb = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 128>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @ss_fp8
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: %[[A0:.+]] = llvm.getelementptr %{{.+}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async
  // CHECK-SAME: <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e5m2>, <one>, <col>]
  // CHECK: llvm.getelementptr %{{.+}}[32] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async
  // CHECK: llvm.getelementptr %{{.+}}[64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async
  // CHECK: llvm.getelementptr %{{.+}}[96] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  tile.kernel @ss_fp8() warps(4) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x128xf8E4M3FN, #swa>
    %bb = tile.local_alloc : !tile.smem<1x128x64xf8E5M2, #swb>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x128xf8E4M3FN, #swa> -> tensor<64x128xf8E4M3FN, #swa>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x128x64xf8E5M2, #swb> -> tensor<128x64xf8E5M2, #swb>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %d = tile.dot %a, %b, %z : tensor<64x128xf8E4M3FN, #swa>, tensor<128x64xf8E5M2, #swb> -> tensor<64x64xf32, #mma>
    %r = tile.warpgroup_wait 0, %d : tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// fp8 at K = 64: 64-byte rows in the 64-byte swizzle (perPhase 2, maxPhase
// 4, 64-element segments). The descriptors say so: layout type 2 (2 << 62),
// SBO = 512 (8 rows of 64 bytes: 32 << 32), LBO 16 (1 << 16), the constant
// -9223371899415756800 (as i64). Each warpgroup's A rows start 64 x 64 =
// 4096 bytes apart; two K steps of 32 bytes each.

#s64a = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [1, 0], segment = 64>
#s64b = #tile.shared<vec = 16, perPhase = 2, maxPhase = 4, order = [0, 1], segment = 64>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @ss_fp8_swizzle64
  // CHECK: %[[TWO:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: %[[WG:.+]] = arith.shrui %{{.+}}, %[[TWO]] : i32
  // CHECK-NEXT: %[[WGB:.+]] = arith.constant 4096 : i32
  // CHECK-NEXT: arith.muli %[[WG]], %[[WGB]] : i32
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: llvm.getelementptr %{{.+}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[BFIX:.+]] = arith.constant -9223371899415756800 : i64
  // CHECK: %[[AFIX:.+]] = arith.constant -9223371899415756800 : i64
  // CHECK: nvvm.wgmma.mma_async
  // CHECK-SAME: <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
  // CHECK: llvm.getelementptr %{{.+}}[32] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: llvm.getelementptr %{{.+}}[32] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  tile.kernel @ss_fp8_swizzle64() warps(8) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x128x64xf8E4M3FN, #s64a>
    %bb = tile.local_alloc : !tile.smem<1x64x64xf8E4M3FN, #s64b>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x128x64xf8E4M3FN, #s64a> -> tensor<128x64xf8E4M3FN, #s64a>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x64x64xf8E4M3FN, #s64b> -> tensor<64x64xf8E4M3FN, #s64b>
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
    %d = tile.dot %a, %b, %z : tensor<128x64xf8E4M3FN, #s64a>, tensor<64x64xf8E4M3FN, #s64b> -> tensor<128x64xf32, #mma>
    %r = tile.warpgroup_wait 0, %d : tensor<128x64xf32, #mma>
    tile.return
  }
}

// -----

// fp8 RS: A from registers (the m16n8k32 A fragment, four bytes a register)
// as inline PTX with no transpose operand (fp8 wgmma has none).

#swb = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 128>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @rs_fp8
  // CHECK: llvm.bitcast %{{.+}} : vector<4xi8> to i32
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {{.*}}, p, 1, 1;
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
  // CHECK-NOT: wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  tile.kernel @rs_fp8() warps(4) {
    %c0 = arith.constant 0 : i32
    %bb = tile.local_alloc : !tile.smem<1x128x64xf8E4M3FN, #swb>
    %a = arith.constant dense<1.0> : tensor<64x128xf8E4M3FN, #da>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x128x64xf8E4M3FN, #swb> -> tensor<128x64xf8E4M3FN, #swb>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %d = tile.dot %a, %b, %z : tensor<64x128xf8E4M3FN, #da>, tensor<128x64xf8E4M3FN, #swb> -> tensor<64x64xf32, #mma>
    %r = tile.warpgroup_wait 0, %d : tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// i8 x i8 -> s32: the NVVM op with s8 operands and an s32 accumulator (a
// struct of i32); RS as inline PTX without scale or transpose operands.

#swa = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 128>
#swb = #tile.shared<vec = 16, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 128>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 4>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @i8
  // CHECK: nvvm.wgmma.mma_async
  // CHECK-SAME: <m = 64, n = 64, k = 32>, D[<s32>, <one>], A[<s8>, <one>, <row>], B[<s8>, <one>, <col>] : !llvm.struct<(i32,
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k32.s32.s8.s8 {{.*}}, p;
  // CHECK-SAME: "=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,=r,0,
  tile.kernel @i8(%p: !tile.ptr<i8>) warps(4) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x128xi8, #swa>
    %bb = tile.local_alloc : !tile.smem<1x128x64xi8, #swb>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x128xi8, #swa> -> tensor<64x128xi8, #swa>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x128x64xi8, #swb> -> tensor<128x64xi8, #swb>
    %z = arith.constant dense<0> : tensor<64x64xi32, #mma>
    %d = tile.dot %a, %b, %z : tensor<64x128xi8, #swa>, tensor<128x64xi8, #swb> -> tensor<64x64xi32, #mma>
    %r = tile.warpgroup_wait 0, %d : tensor<64x64xi32, #mma>
    %v = tile.make_view %p[64, 128] strides [128, 1] : !tile.ptr<i8>
    %ra = tile.load %v[%c0, %c0] : !tile.view<64x128xi8, strides = [128, 1]> -> tensor<64x128xi8, #da>
    %d2 = tile.dot %ra, %b, %r : tensor<64x128xi8, #da>, tensor<128x64xi8, #swb> -> tensor<64x64xi32, #mma>
    %r2 = tile.warpgroup_wait 0, %d2 : tensor<64x64xi32, #mma>
    tile.return
  }
}

// -----

// f32 as TF32: m64nNk8, 32 bytes of K per instruction as for the other types
// (128-byte rows of 32 elements), both operands K-major; the NVVM op for SS.

#swa = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 32>
#swb = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 32>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @ss_tf32
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: nvvm.wgmma.mma_async
  // CHECK-SAME: <m = 64, n = 64, k = 8>, D[<f32>, <one>], A[<tf32>, <one>, <row>], B[<tf32>, <one>, <col>]
  // CHECK: llvm.getelementptr %{{.+}}[32] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async
  // CHECK: llvm.getelementptr %{{.+}}[64] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async
  // CHECK: llvm.getelementptr %{{.+}}[96] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  tile.kernel @ss_tf32() warps(4) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x32xf32, #swa>
    %bb = tile.local_alloc : !tile.smem<1x32x64xf32, #swb>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x32xf32, #swa> -> tensor<64x32xf32, #swa>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x32x64xf32, #swb> -> tensor<32x64xf32, #swb>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %d = tile.dot %a, %b, %z precision(tf32) : tensor<64x32xf32, #swa>, tensor<32x64xf32, #swb> -> tensor<64x64xf32, #mma>
    %r = tile.warpgroup_wait 0, %d : tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// TF32 RS: the A fragment (one element a register) converted with
// cvt.rna.tf32.f32 before the fence, then inline PTX with scale operands and
// no transpose operand (tf32 wgmma has none).

#swb = #tile.shared<vec = 4, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 32>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#da = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 1>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @rs_tf32
  // CHECK: nvvm.convert.float.to.tf32 %{{.+}} {rnd = #nvvm.fp_rnd_mode<rna>}
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-NOT: nvvm.convert.float.to.tf32
  // CHECK: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32 {{.*}}, p, 1, 1;
  // CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
  // CHECK-NOT: wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  tile.kernel @rs_tf32(%x: f32) warps(4) {
    %c0 = arith.constant 0 : i32
    %bb = tile.local_alloc : !tile.smem<1x32x64xf32, #swb>
    %a = tile.splat %x : tensor<64x32xf32, #da>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x32x64xf32, #swb> -> tensor<32x64xf32, #swb>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %d = tile.dot %a, %b, %z precision(tf32) : tensor<64x32xf32, #da>, tensor<32x64xf32, #swb> -> tensor<64x64xf32, #mma>
    %r = tile.warpgroup_wait 0, %d : tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// A dot in a loop whose A tile is defined outside it (attention's Q in the
// key loop): A's base goes through an empty side-effecting asm after the
// fence, so its descriptors are rebuilt in the loop instead of hoisted out
// of it (2 registers per K step live through the loop), incrementally: the
// start field ((addr & 0x3FFFF) >> 4, i32) once, then + offset / 16 per K
// step (+2 for 32 bytes). B, loaded in the loop from the loop's stage, keeps
// a descriptor per step from its own address.

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @loop_invariant_a
  // CHECK: %[[ABASE:.+]] = llvm.getelementptr %{{.+}}[%{{.+}}] : (!llvm.ptr<3>, i32) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-NEXT: %[[AI:.+]] = llvm.ptrtoint %[[ABASE]] : !llvm.ptr<3> to i32
  // CHECK-NEXT: %[[AP:.+]] = llvm.inline_asm has_side_effects asm_dialect = att "", "=r,0" %[[AI]] : (i32) -> i32
  // CHECK-NEXT: %[[APTR:.+]] = llvm.inttoptr %[[AP]] : i32 to !llvm.ptr<3>
  // CHECK-NEXT: %[[AI2:.+]] = llvm.ptrtoint %[[APTR]] : !llvm.ptr<3> to i32
  // CHECK-NEXT: %[[SH:.+]] = arith.constant 4 : i32
  // CHECK-NEXT: %[[MASK:.+]] = arith.constant 262143 : i32
  // CHECK-NEXT: %[[AM:.+]] = arith.andi %[[AI2]], %[[MASK]] : i32
  // CHECK-NEXT: %[[AS:.+]] = arith.shrui %[[AM]], %[[SH]] : i32
  // K step 0: B from its own address, A from the start field.
  // CHECK-NEXT: llvm.getelementptr %{{.+}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK-NOT: llvm.inline_asm
  // CHECK: arith.extui %[[AS]] : i32 to i64
  // CHECK: nvvm.wgmma.mma_async
  // CHECK-NEXT: llvm.getelementptr %{{.+}}[2048] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: %[[A1:.+]] = arith.constant 2 : i32
  // CHECK-NEXT: arith.addi %[[AS]], %[[A1]] : i32
  // CHECK: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  // The dot after the loop reads A where it is defined: no asm, and A's
  // descriptors from its own addresses.
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-NOT: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,0"
  // CHECK: llvm.getelementptr %{{.+}}[32] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  tile.kernel @loop_invariant_a(%n: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %bb = tile.local_alloc : !tile.smem<2x64x64xbf16, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #mma>) : i32 {
      %b = tile.local_load %bb[%i] : !tile.smem<2x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
      %d = tile.dot %a, %b, %c : tensor<64x64xbf16, #sw>, tensor<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
      %w = tile.warpgroup_wait 0, %d : tensor<64x64xf32, #mma>
      scf.yield %w : tensor<64x64xf32, #mma>
    }
    %b0 = tile.local_load %bb[%c0] : !tile.smem<2x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %e = tile.dot %a, %b0, %acc : tensor<64x64xbf16, #sw>, tensor<64x64xbf16, #sw> -> tensor<64x64xf32, #mma>
    %r = tile.warpgroup_wait 0, %e : tensor<64x64xf32, #mma>
    tile.return
  }
}

// -----

// The same loop with K = 256 (16 K steps of an invariant A): more than 8
// such steps in the loop, so A's descriptors are not rebuilt in it (no asm;
// per-step descriptors from A's own addresses, which LLVM may hoist).

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @loop_invariant_a_k256
  // CHECK-NOT: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,0"
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK-NEXT: llvm.getelementptr %{{.+}}[0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK-NOT: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,0"
  // CHECK-COUNT-16: nvvm.wgmma.mma_async
  // CHECK: nvvm.wgmma.commit.group.sync.aligned
  tile.kernel @loop_invariant_a_k256(%n: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %ba = tile.local_alloc : !tile.smem<1x64x256xbf16, #sw>
    %bb = tile.local_alloc : !tile.smem<2x256x64xbf16, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x64x256xbf16, #sw> -> tensor<64x256xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #mma>) : i32 {
      %b = tile.local_load %bb[%i] : !tile.smem<2x256x64xbf16, #sw> -> tensor<256x64xbf16, #sw>
      %d = tile.dot %a, %b, %c : tensor<64x256xbf16, #sw>, tensor<256x64xbf16, #sw> -> tensor<64x64xf32, #mma>
      %w = tile.warpgroup_wait 0, %d : tensor<64x64xf32, #mma>
      scf.yield %w : tensor<64x64xf32, #mma>
    }
    tile.return
  }
}

// -----

// 128 rows on one warpgroup (Triton's 128-row tiles on 4 warps):
// #tile.mma<warpRows = 16> repeats the warps' 64 rows down M, and each K
// step issues one m64 instruction per repetition, the second on A's rows
// 64 on (+8192 bytes: 64 rows of 128 bytes) and on accumulator registers
// 32 on (the repetition is the slowest register dimension).

#sw = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#mma = #tile.mma<warpsPerCTA = [4, 1], warpRows = 16>
gpu.module @g [#nvvm.target<chip = "sm_90a", features = "+ptx86">] {
  // CHECK-LABEL: llvm.func @ss_rows_repeated
  // CHECK-SAME: nvvm.reqntid = array<i32: 128, 1, 1>
  // CHECK: nvvm.wgmma.fence.aligned
  // CHECK: llvm.getelementptr %[[BBASE:.+]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: llvm.getelementptr %[[ABASE:.+]][0] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
  // CHECK: llvm.getelementptr %[[ABASE]][8192] : (!llvm.ptr<3>) -> !llvm.ptr<3>, i8
  // CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
  // CHECK: llvm.getelementptr %[[BBASE]][2048]
  // CHECK: llvm.getelementptr %[[ABASE]][32]
  // CHECK-COUNT-6: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
  // CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
  // CHECK-NOT: nvvm.wgmma.mma_async
  // CHECK: llvm.return
  tile.kernel @ss_rows_repeated() warps(4) {
    %c0 = arith.constant 0 : i32
    %ba = tile.local_alloc : !tile.smem<1x128x64xbf16, #sw>
    %bb = tile.local_alloc : !tile.smem<1x64x64xbf16, #sw>
    %a = tile.local_load %ba[%c0] : !tile.smem<1x128x64xbf16, #sw> -> tensor<128x64xbf16, #sw>
    %b = tile.local_load %bb[%c0] : !tile.smem<1x64x64xbf16, #sw> -> tensor<64x64xbf16, #sw>
    %z = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
    %d = tile.dot %a, %b, %z : tensor<128x64xbf16, #sw>, tensor<64x64xbf16, #sw> -> tensor<128x64xf32, #mma>
    tile.return
  }
}
