// tilec --remarks=REGEX prints the remarks of the passes whose name
// matches: what each scheduling pass did, and why it declined. An invalid
// regex is an error.

// RUN: tilec %examples/attention_block_bf16.mlir --chip=sm_90a --emit=ptx -o %t --remarks='tile-wgmma-overlap|tile-async-wgmma' 2>&1 | FileCheck %s
// RUN: tilec %examples/attention_block_bf16.mlir --chip=sm_80 --emit=ptx -o %t80 --remarks='tile-tma-.*' 2>&1 | FileCheck %s --check-prefix=SM80 --allow-empty
// RUN: tilec %examples/attention_block_bf16.mlir --chip=sm_90a --emit=ptx -o %t2 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: not tilec %examples/attention_block_bf16.mlir --chip=sm_90a -o %t3 --remarks='(' 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: attention_block_bf16.mlir:{{[0-9]+}}:{{[0-9]+}}: remark: [Passed] Overlapped | Category:tile-wgmma-overlap
// CHECK: remark: [Missed] Synchronous | Category:tile-async-wgmma | Reason="wgmma waits stay at 0 pending: of the loop's 2 wgmma groups, one cannot stay in flight: the dot is not followed by a wait for it alone"
// SM80-NOT: remark
// QUIET-NOT: remark
// BAD: error: invalid --remarks regex '('
