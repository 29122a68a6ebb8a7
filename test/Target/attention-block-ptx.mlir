// The FlashAttention-2 forward block program (Inputs/flash_attention_block.mlir:
// online softmax with exp2, running max and sum, accumulator rescaling, a
// causal mask from index comparisons, two dots per iteration) compiles to
// PTX for sm_80 and sm_90a, and ptxas accepts it. Its loop-carried row
// statistics keep one layout across iterations, and K^T (tile.trans) reaches
// the first dot through a layout conversion.

// RUN: tilec %S/Inputs/flash_attention_block.mlir --chip=sm_80 --emit=ptx -o %t.80
// RUN: FileCheck %s --check-prefixes=CHECK,SM80 < %t.80/flash_attention_block_program.ptx
// RUN: %ptxas -arch=sm_80 %t.80/flash_attention_block_program.ptx -o %t.80/fa.cubin
// RUN: tilec %S/Inputs/flash_attention_block.mlir --chip=sm_90a --emit=ptx -o %t.90
// RUN: FileCheck %s --check-prefixes=CHECK,SM90A < %t.90/flash_attention_block_program.ptx
// RUN: %ptxas -arch=sm_90a %t.90/flash_attention_block_program.ptx -o %t.90/fa.cubin

// CHECK: .entry flash_attention_block_program(
// Q·Kᵀ and P·V on mma.sync (sm_80) or wgmma (sm_90a: the views are not
// known to be 16-byte aligned, so no ring brings Q, Kᵀ and V; the threads
// stage them in swizzled buffers, fenced for the async proxy), row max and
// sum with butterfly shuffles, exp2, the final division by the row sums.
// SM80-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM90A-DAG: fence.proxy.async.shared::cta
// SM90A-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx
// CHECK-DAG: div.rn.f32
// CHECK: ret;
