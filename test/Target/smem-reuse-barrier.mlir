// Shared memory reused between live ranges is separated by a barrier: the
// attention block program (examples/attention_block_bf16.mlir) on sm_80
// converts Q to its operand layout through a scratch area just before the
// key loop, whose cp.async ring the planner places over the same bytes. The
// ring's prologue copies must wait until every warp has read its Q
// fragments (compute-sanitizer racecheck reported the race and the results
// were wrong under it; bench/results/2026-12-01_sanitizers_3fdc006_h200).

// RUN: tilec %examples/attention_block_bf16.mlir --chip=sm_80 --emit=ptx -o %t
// RUN: FileCheck %s < %t/attention_block_bf16.ptx
// RUN: %ptxas -arch=sm_80 %t/attention_block_bf16.ptx -o %t/a.cubin

// CHECK-LABEL: .entry attention_block_bf16(
// The conversion: stores, a barrier, loads.
// CHECK:      st.shared
// CHECK:      bar.sync 0;
// CHECK:      ld.shared.b32
// Then a barrier before the ring's first copy.
// CHECK-NOT:  cp.async
// CHECK:      bar.sync 0;
// CHECK-NOT:  ld.shared
// CHECK:      cp.async.cg.shared.global
