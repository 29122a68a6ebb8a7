// RUN: tilec-opt %examples/attention_bf16.mlir --tilec-to-nvvm=chip=sm_80 -mlir-print-ir-after=tile-pipeline -o /dev/null 2>&1 | FileCheck %s

// The pipeline hoists loop-invariant code after tile-assign-layouts: Q,
// loaded once before the key loop, is converted into the mma.sync A
// fragment (through shared memory) once, not on every key block.

// CHECK-LABEL: IR Dump After TilePipeline
// CHECK: %[[QA:.+]] = tile.convert_layout %{{.+}} -> tensor<64x128xbf16, #tile.dot_operand<opIdx = 0
// CHECK: scf.for
// CHECK-NOT: tile.convert_layout {{.*}} -> tensor<64x128xbf16, #tile.dot_operand<opIdx = 0
// CHECK: tile.dot %[[QA]],
