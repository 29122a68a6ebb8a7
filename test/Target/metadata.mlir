// <kernel>.json: everything a runtime needs besides the cubin.
// RUN: tilec %s --chip=sm_90a --emit=cubin -o %t
// RUN: FileCheck %s < %t/meta.json
// RUN: test -s %t/meta.cubin

// CHECK: "block": [
// CHECK-NEXT: 256,
// CHECK: "chip": "sm_90a",
// CHECK: "cubin_arch": "sm_90a",
// CHECK: "grid": [
// CHECK-NEXT: "ceildiv(n, 1024)",
// CHECK-NEXT: "b * 2"
// CHECK: "kernel": "meta",
// CHECK: "num_warps": 8,
// CHECK: "params": [
// CHECK: "dtype": "f16",
// CHECK-NEXT: "kind": "pointer",
// CHECK-NEXT: "name": "x"
// CHECK: "dtype": "i32",
// CHECK-NEXT: "kind": "scalar",
// CHECK-NEXT: "name": "n"
// CHECK: "ptx_version": "8.6",
// CHECK: "smem_bytes": 0,
// CHECK: "tilec_version": "{{[0-9]+\.[0-9]+\.[0-9]+}}"
tile.kernel @meta(%x: !tile.ptr<f16>, %n: i32, %b: i32) grid(ceildiv(%n, 1024), %b * 2) warps(8) {
  tile.return
}
