// RUN: tilec-opt %s -split-input-file --tile-split-dots | FileCheck %s

// Attention's two products on mma.sync: QKᵀ with both operands read from
// shared memory, P·V with P in registers. Each becomes a chain of 16-wide
// K steps reading (or slicing) its operands per step.
#sq = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#sk = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
// CHECK-LABEL: tile.kernel @attention_step
// CHECK: %[[Q0:.+]] = tile.local_load %[[BQ:.+]][%{{.+}}] : !tile.smem<1x128x64xbf16, #{{.+}}> -> tensor<128x16xbf16, #[[A:.+]]>
// CHECK: %[[K0:.+]] = tile.local_load %[[BK:.+]][%[[S:.+]]] offsets [64, 0] : !tile.smem<2x128x32xbf16, #{{.+}}> -> tensor<16x32xbf16, #[[B:.+]]>
// CHECK: %[[S0:.+]] = tile.dot %[[Q0]], %[[K0]], %{{.+}} : tensor<128x16xbf16, #[[A]]>, tensor<16x32xbf16, #[[B]]>
// CHECK: tile.local_load %[[BQ]][%{{.+}}] offsets [0, 16]
// CHECK: tile.local_load %[[BK]][%[[S]]] offsets [80, 0]
// CHECK: tile.dot %{{.+}}, %{{.+}}, %[[S0]]
// CHECK: offsets [0, 32]
// CHECK: offsets [96, 0]
// CHECK: tile.dot
// CHECK: offsets [0, 48]
// CHECK: offsets [112, 0]
// CHECK: %[[S3:.+]] = tile.dot
// CHECK-NOT: tile.local_load %[[BQ]]
// CHECK: arith.truncf %[[S3]]
// CHECK: %[[P:.+]] = tile.convert_layout
// CHECK: %[[P0:.+]] = tile.extract_slice %[[P]] offsets [0, 0] : tensor<128x32xbf16, #[[A]]> -> tensor<128x16xbf16, #[[A]]>
// CHECK: %[[V0:.+]] = tile.local_load %[[BV:.+]][%[[S]]] : !tile.smem<2x32x64xbf16, #{{.+}}> -> tensor<16x64xbf16, #[[B]]>
// CHECK: %[[O0:.+]] = tile.dot %[[P0]], %[[V0]], %{{.+}} : tensor<128x16xbf16, #[[A]]>, tensor<16x64xbf16, #[[B]]>
// CHECK: %[[P1:.+]] = tile.extract_slice %[[P]] offsets [0, 16]
// CHECK: %[[V1:.+]] = tile.local_load %[[BV]][%[[S]]] offsets [16, 0]
// CHECK: %[[O1:.+]] = tile.dot %[[P1]], %[[V1]], %[[O0]]
// CHECK: tile.return
tile.kernel @attention_step(%s: i32) warps(4) {
  %c0 = arith.constant 0 : i32
  %bq = tile.local_alloc : !tile.smem<1x128x64xbf16, #sq>
  %bk = tile.local_alloc : !tile.smem<2x128x32xbf16, #sk>
  %bv = tile.local_alloc : !tile.smem<2x32x64xbf16, #sq>
  %zs = arith.constant dense<0.0> : tensor<128x32xf32, #mma>
  %zo = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %q = tile.local_load %bq[%c0] : !tile.smem<1x128x64xbf16, #sq> -> tensor<128x64xbf16, #a>
  // The second half of the Kᵀ stage (offsets [64, 0]): the steps keep it.
  %k = tile.local_load %bk[%s] offsets [64, 0] : !tile.smem<2x128x32xbf16, #sk> -> tensor<64x32xbf16, #b>
  %v = tile.local_load %bv[%s] : !tile.smem<2x32x64xbf16, #sq> -> tensor<32x64xbf16, #b>
  %sc = tile.dot %q, %k, %zs : tensor<128x64xbf16, #a>, tensor<64x32xbf16, #b> -> tensor<128x32xf32, #mma>
  %p32 = arith.truncf %sc : tensor<128x32xf32, #mma> to tensor<128x32xbf16, #mma>
  %p = tile.convert_layout %p32 : tensor<128x32xbf16, #mma> -> tensor<128x32xbf16, #a>
  %o = tile.dot %p, %v, %zo : tensor<128x32xbf16, #a>, tensor<32x64xbf16, #b> -> tensor<128x64xf32, #mma>
  tile.return
}

// -----

// Left alone: a read with a barrier (a possible write by other threads)
// before its dot, a dot of one K step, and a dot with only register
// operands.
#sq = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]>
#mma = #tile.mma<warpsPerCTA = [4, 1]>
#a = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#b = #tile.dot_operand<opIdx = 1, parent = #mma, kWidth = 2>
// CHECK-LABEL: tile.kernel @not_split
// CHECK: tile.local_load {{.+}} -> tensor<64x32xbf16
// CHECK: tile.barrier
// CHECK: tile.dot {{.+}} : tensor<64x32xbf16, #{{.+}}>, tensor<32x64xbf16
// CHECK: tile.dot {{.+}} : tensor<64x16xbf16, #{{.+}}>, tensor<16x64xbf16
// CHECK: tile.dot {{.+}} : tensor<64x32xbf16, #{{.+}}>, tensor<32x64xbf16
// CHECK-NOT: tile.extract_slice
tile.kernel @not_split() warps(4) {
  %c0 = arith.constant 0 : i32
  %buf = tile.local_alloc : !tile.smem<1x64x64xbf16, #sq>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %ra = arith.constant dense<1.0> : tensor<64x32xbf16, #a>
  %rb = arith.constant dense<1.0> : tensor<32x64xbf16, #b>
  %a = tile.local_load %buf[%c0] : !tile.smem<1x64x64xbf16, #sq> -> tensor<64x32xbf16, #a>
  tile.barrier
  %d0 = tile.dot %a, %rb, %z : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b> -> tensor<64x64xf32, #mma>
  %a16 = tile.local_load %buf[%c0] : !tile.smem<1x64x64xbf16, #sq> -> tensor<64x16xbf16, #a>
  %b16 = tile.local_load %buf[%c0] : !tile.smem<1x64x64xbf16, #sq> -> tensor<16x64xbf16, #b>
  %d1 = tile.dot %a16, %b16, %d0 : tensor<64x16xbf16, #a>, tensor<16x64xbf16, #b> -> tensor<64x64xf32, #mma>
  %d2 = tile.dot %ra, %rb, %d1 : tensor<64x32xbf16, #a>, tensor<32x64xbf16, #b> -> tensor<64x64xf32, #mma>
  tile.return
}
