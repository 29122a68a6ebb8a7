// tile.attention (examples/attention_bf16.mlir: causal, GQA, head_dim 128,
// row lse) expanded to the FlashAttention-2 forward, in PTX for sm_80 and
// sm_90a (mma.sync on both for now), accepted by ptxas; the launch grid is
// (query blocks, heads, batch).

// RUN: tilec %examples/attention_bf16.mlir --chip=sm_80 --emit=ptx -o %t.80
// RUN: FileCheck %s < %t.80/attention_bf16.ptx
// RUN: %ptxas -arch=sm_80 %t.80/attention_bf16.ptx -o %t.80/a.cubin
// RUN: FileCheck %s --check-prefix=JSON < %t.80/attention_bf16.json
// RUN: tilec %examples/attention_bf16.mlir --chip=sm_90a --emit=ptx -o %t.90
// RUN: FileCheck %s < %t.90/attention_bf16.ptx
// RUN: %ptxas -arch=sm_90a %t.90/attention_bf16.ptx -o %t.90/a.cubin

// CHECK: .entry attention_bf16(
// CHECK: .reqntid 256, 1, 1
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx
// CHECK-DAG: lg2.approx
// CHECK: ret;

// JSON: "grid": [
// JSON-NEXT: "ceildiv(SQ, 128)",
// JSON-NEXT: "H",
// JSON-NEXT: "B"
