// The linalg frontend on f32, i8 and fp8 matmuls (Inputs/linalg_lowp.mlir),
// end to end to PTX that ptxas accepts: the B transposes as block programs,
// the GEMMs on the tensor-core forms of each type and chip.

// RUN: rm -rf %t && mkdir -p %t
// RUN: tilec-opt %S/Inputs/linalg_lowp.mlir -tile-from-linalg -o %t/in.mlir
// RUN: tilec-opt %S/Inputs/linalg_lowp.mlir -tile-from-linalg=f32-precision=tf32 -o %t/in_tf32.mlir
// RUN: tilec %t/in.mlir --chip=sm_90a --emit=cubin -o %t/sm_90a
// RUN: tilec %t/in.mlir --chip=sm_89 --emit=cubin -o %t/sm_89
// RUN: tilec %t/in_tf32.mlir --chip=sm_90a --emit=ptx -o %t/tf32
// RUN: FileCheck %s --check-prefix=T < %t/sm_90a/matmul_f32_transpose0.ptx
// RUN: FileCheck %s --check-prefix=F32X3 < %t/sm_90a/matmul_f32_gemm0.ptx
// RUN: FileCheck %s --check-prefix=TF32 < %t/tf32/matmul_f32_gemm0.ptx
// RUN: FileCheck %s --check-prefix=I8-90A < %t/sm_90a/matmul_i8_gemm0.ptx
// RUN: FileCheck %s --check-prefix=I8-89 < %t/sm_89/matmul_i8_gemm0.ptx
// RUN: FileCheck %s --check-prefix=FP8-90A < %t/sm_90a/batch_matmul_fp8_gemm0.ptx
// RUN: FileCheck %s --check-prefix=FP8-89 < %t/sm_89/batch_matmul_fp8_gemm0.ptx
// RUN: FileCheck %s --check-prefix=LIN-90A < %t/sm_90a/linear_fp8_bias_relu_gemm0.ptx
// RUN: FileCheck %s --check-prefix=TJSON < %t/sm_90a/matmul_i8_transpose0.json
// RUN: ls %t/sm_90a | FileCheck %s --check-prefix=FILES

// The transpose: 64 x 64 tiles through shared memory, loaded and stored
// along rows (vector accesses where a tile is whole and aligned).
// T: .visible .entry matmul_f32_transpose0(
// T-DAG: ld.global
// T-DAG: st.shared
// T-DAG: bar.sync
// T-DAG: ld.shared
// T-DAG: st.global

// f32, f32-precision=tf32x3 (default): three TF32 products on mma.sync.
// F32X3: cvt.rna.tf32.f32
// F32X3: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// f32-precision=tf32: one product, wgmma on sm_90a.
// TF32: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k8.f32.tf32.tf32

// I8-90A: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.s32.s8.s8
// I8-89: mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32
// FP8-90A: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.f32.e4m3.e5m2
// FP8-89: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e5m2.f32
// LIN-90A: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.f32.e4m3.e4m3
// LIN-90A: max.NaN.f32

// TJSON: "grid": [
// TJSON-NEXT: "ceildiv(R, 64) * ceildiv(C, 64)"
// TJSON: "name": "X"
// TJSON: "name": "Y"
// TJSON: "name": "R"
// TJSON: "name": "C"

// FILES: batch_matmul_fp8_gemm0.cubin
// FILES: batch_matmul_fp8_transpose0.cubin
// FILES: linear_fp8_bias_relu_gemm0.cubin
// FILES-NOT: linear_fp8_bias_relu_transpose
// FILES: matmul_f32_gemm0.cubin
// FILES: matmul_f32_transpose0.cubin
// FILES: matmul_i8_gemm0.cubin
// FILES: matmul_i8_transpose0.cubin

// sm_80 has no fp8 instruction: refused, naming the chips that have one.
// RUN: not tilec %t/in.mlir --chip=sm_80 --emit=ptx -o %t/sm_80 2>&1 | FileCheck %s --check-prefix=SM80
// SM80: error: 'tile.dot' op fp8 operands need mma.sync m16n8k32 (sm_89 or later) or wgmma (sm_90a); sm_80 has neither
