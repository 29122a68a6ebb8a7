// ptxas reports each kernel's registers, spills, stack and shared memory
// (ptxas -v): a tile-resources remark, the launch metadata's "ptxas" entry,
// and a warning naming the largest register tiles when it spills.

// RUN: tilec %s --chip=sm_80 --emit=cubin -o %t --remarks=tile-resources 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t/spill.json
// RUN: FileCheck %s --check-prefix=JSON-SMALL < %t/small.json
// RUN: tilec %s --chip=sm_80 --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=NO-PTXAS < %t.ptx/spill.json

// 128x256 f32 accumulator on four warps: 256 registers a thread for it alone.
// CHECK: ptxas-resources.mlir:[[@LINE+7]]:1: remark: [Analysis] Resources | Category:tile-resources | Remark="ptxas: 255 registers a thread, {{[1-9][0-9]*}} bytes spilled (stores)
// CHECK: ptxas-resources.mlir:[[@LINE+6]]:1: warning: ptxas spilled {{[1-9][0-9]*}} bytes (stores; {{[0-9]+}} bytes loads) of kernel 'spill' at 255 registers a thread; the largest tiles it holds in registers: 128x256xf32 (made by dot) at {{.*}}ptxas-resources.mlir:[[@LINE+17]]:10: 256 registers a thread; 128x256xf32 (carried by a loop) at {{.*}}ptxas-resources.mlir:[[@LINE+14]]:10: 256 registers a thread
// JSON: "ptxas": {
// JSON-NEXT: "barriers": 1,
// JSON-NEXT: "registers": 255,
// JSON-NEXT: "spill_load_bytes": {{[1-9][0-9]*}},
// JSON-NEXT: "spill_store_bytes": {{[1-9][0-9]*}},
tile.kernel @spill(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %B: !tile.ptr<bf16> {tile.align = 16 : i64}, %C: !tile.ptr<f32> {tile.align = 16 : i64}, %K: i32 {tile.divisibility = 8 : i64})
    grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c32 = arith.constant 32 : i32
  %a = tile.make_view %A[128, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, 256] strides [256, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[128, 256] strides [256, 1] : !tile.ptr<f32>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %ta = tile.load %a[%c0, %k] : !tile.view<128x?xbf16, strides = [?, 1]> -> tensor<128x32xbf16>
    %tb = tile.load %b[%k, %c0] : !tile.view<?x256xbf16, strides = [256, 1]> -> tensor<32x256xbf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x32xbf16>, tensor<32x256xbf16> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  tile.store %acc, %c[%c0, %c0] : tensor<128x256xf32>, !tile.view<128x256xf32, strides = [256, 1]>
  tile.return
}

// A kernel that fits: a remark, no warning.
// CHECK: ptxas-resources.mlir:[[@LINE+6]]:1: remark: [Analysis] Resources | Category:tile-resources | Remark="ptxas: {{[0-9]+}} registers a thread, 0 bytes spilled (stores) and 0 (loads), 0 bytes stack frame, 0 bytes static shared memory"
// CHECK-NOT: warning
// JSON-SMALL: "ptxas": {
// JSON-SMALL: "spill_store_bytes": 0,
// JSON-SMALL: "stack_frame_bytes": 0,
// NO-PTXAS-NOT: "ptxas"
tile.kernel @small(%x: !tile.ptr<f32> {tile.align = 16 : i64}, %n: i32) grid(ceildiv(%n, 512)) warps(4) {
  %c512 = arith.constant 512 : i32
  %pid = tile.program_id x
  %o = arith.muli %pid, %c512 : i32
  %v = tile.make_view %x[%n] strides [1] : !tile.ptr<f32>
  %t = tile.load %v[%o] : !tile.view<?xf32, strides = [1]> -> tensor<512xf32>
  %two = arith.constant dense<2.0> : tensor<512xf32>
  %r = arith.mulf %t, %two : tensor<512xf32>
  tile.store %r, %v[%o] : tensor<512xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}
