// RUN: tilec-opt %s --tilec-to-nvvm=chip=sm_80 -mlir-print-ir-after=tile-pipeline -o /dev/null 2>&1 | FileCheck %s

// The pipeline hoists loop-invariant code after tile-assign-layouts: Q held
// in registers (`q_in_smem = 0`), loaded once before the key loop, is
// converted into the mma.sync A fragment (through shared memory) once, not
// on every key block.

// CHECK-LABEL: IR Dump After TilePipeline
// CHECK: %[[QA:.+]] = tile.convert_layout %{{.+}} -> tensor<64x128xbf16, #tile.dot_operand<opIdx = 0
// CHECK: scf.for
// CHECK-NOT: tile.convert_layout {{.*}} -> tensor<64x128xbf16, #tile.dot_operand<opIdx = 0
// CHECK: tile.dot %[[QA]],
tile.kernel @attention_q_in_registers(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                      %O: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>,
                                      %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                                      %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32,
                                      %lse_batch: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kv_batch, %kv_head, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%q_batch, %q_head, 128, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) causal config <block_m = 64, q_in_smem = false>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}
