// The Ampere/Ada GEMM data path in PTX: cp.async 16-byte copies with
// zero-fill into the ring, commit/wait groups, ldmatrix x4 (.trans for the
// row-major B), mma.sync m16n8k16 bf16 -> f32; ptxas accepts it.

// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_80 --emit=ptx -o %t.sm80
// RUN: FileCheck %s --check-prefixes=CHECK,SM80 < %t.sm80/gemm_bf16.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80/gemm_bf16.ptx -o %t.sm80/gemm_bf16.cubin
// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_89 --emit=ptx -o %t.sm89
// RUN: FileCheck %s --check-prefixes=CHECK,SM89 < %t.sm89/gemm_bf16.ptx
// RUN: %ptxas -arch=sm_89 %t.sm89/gemm_bf16.ptx -o %t.sm89/gemm_bf16.cubin
// RUN: FileCheck %s --check-prefix=JSON < %t.sm80/gemm_bf16.json

// SM80: .target sm_80
// SM89: .target sm_89
// CHECK: .extern .shared .align 1024 .b8 tile_smem[];
// CHECK: .reqntid 256, 1, 1
// CHECK: cp.async.cg.shared.global [%r{{[0-9+]+}}], [%rd{{[0-9+]+}}], 16;
// CHECK: cp.async.commit_group;
// SM80: cp.async.wait_group 2;
// SM89: cp.async.wait_group 1;
// CHECK: bar.sync 0;
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// The edge version zero-fills with a run-time source size.
// CHECK: cp.async.cg.shared.global [%r{{[0-9+]+}}], [%rd{{[0-9+]+}}], 16, %r{{[0-9]+}};
// CHECK: cp.async.wait_group 0;

// JSON: "grid": [
// JSON-NEXT: "ceildiv(M, 128) * ceildiv(N, 256)"
// JSON: "align": 16,
// JSON-NEXT: "dtype": "bf16",
// JSON-NEXT: "kind": "pointer",
// JSON-NEXT: "name": "A"
// JSON: "divisibility": 8,
// JSON-NEXT: "dtype": "i32",
// JSON-NEXT: "kind": "scalar",
// JSON-NEXT: "name": "lda"
// JSON: "smem_bytes": 98304
