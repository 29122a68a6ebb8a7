// tile.attention with a score_mod and a mask_mod
// (examples/attention_softcap_window.mlir: causal, a logit softcap in the
// score_mod, a sliding window in the mask_mod) in PTX for sm_80 and sm_90a,
// accepted by ptxas. The regions' ops run on every score of a block as the
// tile ops the expansion made of them: fastmath<afn>'s divide
// (div.full.f32) and tanh (tanh.approx.f32) in the key loop beside the
// tensor-core products (mma.sync on sm_80; on sm_90a wgmma in the
// warp-specialized kernel the scheduling passes build, TMA loads and a TMA
// store). The kernel takes the regions' parameters (cap, window) like any
// other.

// RUN: tilec %examples/attention_softcap_window.mlir --chip=sm_80 --emit=ptx -o %t.80
// RUN: FileCheck %s < %t.80/attention_softcap_window.ptx
// RUN: %ptxas -arch=sm_80 %t.80/attention_softcap_window.ptx -o %t.80/a.cubin
// RUN: FileCheck %s --check-prefix=JSON < %t.80/attention_softcap_window.json
// RUN: tilec %examples/attention_softcap_window.mlir --chip=sm_90a --emit=ptx -o %t.90
// RUN: FileCheck %s --check-prefix=SM90A < %t.90/attention_softcap_window.ptx
// RUN: %ptxas -arch=sm_90a %t.90/attention_softcap_window.ptx -o %t.90/a.cubin
// Tables in the regions (Inputs/attention_mods_tables.mlir: ALiBi slopes
// per head, document ids per token) on both paths.
// RUN: tilec %S/Inputs/attention_mods_tables.mlir --chip=sm_80 --emit=ptx -o %t.t80
// RUN: FileCheck %s --check-prefix=TABLES < %t.t80/attention_doc_alibi.ptx
// RUN: %ptxas -arch=sm_80 %t.t80/attention_doc_alibi.ptx -o %t.t80/a.cubin
// RUN: tilec %S/Inputs/attention_mods_tables.mlir --chip=sm_90a --emit=ptx -o %t.t90
// RUN: FileCheck %s --check-prefix=TABLES < %t.t90/attention_doc_alibi.ptx
// RUN: %ptxas -arch=sm_90a %t.t90/attention_doc_alibi.ptx -o %t.t90/a.cubin
// A block list (Inputs/attention_mods_tables.mlir's attention_doc_list):
// the key loop runs over the listed blocks, each block's first key read
// from the list before its copies (TMA on sm_90a, cp.async on sm_80).
// RUN: FileCheck %s --check-prefix=LIST90 < %t.t90/attention_doc_list.ptx
// RUN: %ptxas -arch=sm_90a %t.t90/attention_doc_list.ptx -o %t.t90/b.cubin
// RUN: FileCheck %s --check-prefix=LIST80 < %t.t80/attention_doc_list.ptx
// RUN: %ptxas -arch=sm_80 %t.t80/attention_doc_list.ptx -o %t.t80/b.cubin
// tile-verify-async checks the block-list kernel on every path: its key
// loops run over loaded counts (the model's memory holds counts of up to
// 257 blocks; such loops run 16 to 31 iterations in the model).
// RUN: tilec %S/Inputs/attention_mods_tables.mlir --chip=sm_90a --emit=ptx -o %t.v90 --remarks=tile-verify-async 2>&1 | FileCheck %s --check-prefix=VERIFY
// VERIFY: attention_mods_tables.mlir:31:1: remark: [Passed] Verified | Category:tile-verify-async | Remark="asynchronous protocol verified on [[N:[0-9]+]] of [[N]] paths
// VERIFY-NEXT: tile.kernel @attention_doc_list(

// CHECK: .entry attention_softcap_window(
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK: div.full.f32
// CHECK: tanh.approx.f32
// CHECK: ex2.approx.ftz.f32
// CHECK: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-NOT: div.rn.f32

// JSON: "name": "cap"
// JSON: "name": "window"

// The consumer warpgroups (232 registers), the producer warp (40: TMA
// loads), then the consumers' TMA store of O.
// SM90A: .entry attention_softcap_window(
// SM90A: setmaxnreg.inc.sync.aligned.u32 232
// SM90A: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// SM90A: div.full.f32
// SM90A: tanh.approx.f32
// SM90A: ex2.approx.ftz.f32
// SM90A: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// SM90A: setmaxnreg.dec.sync.aligned.u32 40
// SM90A: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// SM90A: cp.async.bulk.tensor.4d.global.shared::cta.tile.bulk_group
// SM90A-NOT: div.rn.f32

// The slope: one read of the table (ld.global.nc), then the bias as
// slope * float(key - query) per score.
// TABLES: .entry attention_doc_alibi(
// TABLES: ld.global.nc.b32
// TABLES: cvt.rn.f32.s32

// LIST90: .entry attention_doc_list(
// LIST90-DAG: ld.global{{.*}}.b32
// LIST90-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// LIST90-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// LIST80: .entry attention_doc_list(
// LIST80-DAG: ld.global{{.*}}.b32
// LIST80-DAG: cp.async.cg.shared.global
// LIST80-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
