// The persistent warp-specialized attention (sm_90a, no causal mask) in
// PTX, accepted by ptxas: the program count bounds the tile loop, and the
// consumers wait for the previous tile's O store to have read Q's slot
// (bulk wait_group.read) before their barrier (bar.sync 1 over the 256
// consumer threads) and the slot's release.

// RUN: tilec %s --chip=sm_90a --emit=ptx -o %t
// RUN: FileCheck %s < %t/attention_persistent.ptx
// RUN: %ptxas -arch=sm_90a %t/attention_persistent.ptx -o %t/a.cubin
// RUN: FileCheck %s --check-prefix=JSON < %t/attention_persistent.json

// CHECK: .entry attention_persistent(
// CHECK: mov.u32 {{.*}}, %nctaid.x;
// CHECK: cp.async.bulk.wait_group.read 0;
// CHECK: bar.sync 1, 256;
// CHECK: mbarrier.arrive
// CHECK: mbarrier.try_wait.parity.shared.b64
// CHECK: wgmma.mma_async
// CHECK: cp.async.bulk.tensor.4d.global.shared::cta
// JSON: "grid": [
// JSON-NEXT: "ceildiv(SQ, 128) * H * B"
// JSON: "persistent": true,
// JSON: "smem_bytes": 197632,
tile.kernel @attention_persistent(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                  %O: !tile.ptr<bf16>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                                  %sq: i32, %sh: i32, %kb: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}
