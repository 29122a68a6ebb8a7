// tile.attention with `by_passes = 1` on sm_90a: the scheduling passes build
// the warp-specialized kernel from the block program (TMA rings, async
// wgmma with the softmax beside P·V, ping-pong turns, setmaxnreg, the TMA
// store of O) and ptxas accepts it: head dim 128 persistent (tile-persistent),
// head dim 128 causal in pairs (the program's own tile loop), and head dim
// 256, where O leaves through Q's buffer (Q, a 2-stage K/V ring and a
// separate O buffer would need 256 KB).

// RUN: tilec %s --chip=sm_90a --emit=ptx -o %t
// RUN: FileCheck %s < %t/attention_by_passes_d128.ptx
// RUN: FileCheck %s < %t/attention_by_passes_pairs.ptx
// RUN: FileCheck %s < %t/attention_by_passes_d256.ptx
// RUN: %ptxas -arch=sm_90a %t/attention_by_passes_d128.ptx -o %t/a.cubin
// RUN: %ptxas -arch=sm_90a %t/attention_by_passes_pairs.ptx -o %t/b.cubin
// RUN: %ptxas -arch=sm_90a %t/attention_by_passes_d256.ptx -o %t/c.cubin
// RUN: FileCheck %s --check-prefix=D128 < %t/attention_by_passes_d128.json
// RUN: FileCheck %s --check-prefix=PAIRS < %t/attention_by_passes_pairs.json
// RUN: FileCheck %s --check-prefix=D256 < %t/attention_by_passes_d256.json

// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32 232;
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 40;
// CHECK-DAG: bar.sync {{%r[0-9]+}}, 256;
// CHECK-DAG: wgmma.mma_async
// CHECK-DAG: bar.arrive {{%r[0-9]+}}, 256;
// CHECK-DAG: wgmma.wait_group.sync.aligned 1;
// CHECK-DAG: cp.async.bulk.tensor.4d.global.shared::cta
// CHECK-DAG: cp.async.bulk.tensor.4d.shared::cluster.global
// D128: "persistent": true,
// PAIRS: "grid": [
// PAIRS-NEXT: "ceildiv(SQ, 128) * H * B"
// PAIRS: "persistent": true,
// D256: "persistent": false,
// D256: "smem_bytes": 197632,
tile.kernel @attention_by_passes_d128(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                      %O: !tile.ptr<bf16>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                                      %sq: i32, %sh: i32, %kb: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o config <by_passes = true>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

tile.kernel @attention_by_passes_pairs(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                       %O: !tile.ptr<bf16>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                                       %sq: i32, %sh: i32, %kb: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 128] strides [%kb, %kh, 128, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 128] strides [%sq, %sh, 128, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o causal config <by_passes = true, persistent = true>
      : !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>,
        !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>, !tile.view<?x?x?x128xbf16, strides = [?, ?, 128, 1]>
  tile.return
}

tile.kernel @attention_by_passes_d256(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>,
                                      %O: !tile.ptr<bf16>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32,
                                      %sq: i32, %sh: i32, %kb: i32, %kh: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 256] strides [%sq, %sh, 256, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 256] strides [%kb, %kh, 256, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 256] strides [%kb, %kh, 256, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 256] strides [%sq, %sh, 256, 1] : !tile.ptr<bf16>
  tile.attention %q, %k, %v, %o causal config <by_passes = true>
      : !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>,
        !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>
  tile.return
}
