// Head dim 256 where shared memory is small: on sm_89 (99 KB per block) Q
// and a ring of 64-key blocks (160 KB) do not fit, so the rule takes
// 32-key blocks (Q 32 KB + ring 64 KB); on sm_80 (163 KB) 64-key blocks.
// Both are accepted by ptxas. On sm_90a the warp-specialized kernel: 128
// queries over two consumer warpgroups and a producer (384 threads), 64-key
// blocks (Q 64 KB + two K/V stages of 64 KB), not persistent (a second Q
// buffer does not fit). With `warp_specialize = 0` the cp.async schedule
// keeps 64 queries on 4 warps (128 threads, Q + a 2-stage ring of 64-key
// blocks: 128 KB).

// RUN: tilec %s --chip=sm_89 --emit=ptx -o %t.89
// RUN: %ptxas -arch=sm_89 %t.89/attention_d256.ptx -o %t.89/a.cubin
// RUN: FileCheck %s --check-prefix=SM89 < %t.89/attention_d256.json
// RUN: tilec %s --chip=sm_80 --emit=ptx -o %t.80
// RUN: %ptxas -arch=sm_80 %t.80/attention_d256.ptx -o %t.80/a.cubin
// RUN: FileCheck %s --check-prefix=SM80 < %t.80/attention_d256.json
// RUN: tilec %s --chip=sm_90a --emit=ptx -o %t.90
// RUN: %ptxas -arch=sm_90a %t.90/attention_d256.ptx -o %t.90/a.cubin
// RUN: FileCheck %s --check-prefix=SM90 < %t.90/attention_d256.json
// RUN: FileCheck %s --check-prefix=SM90PTX < %t.90/attention_d256.ptx
// RUN: %ptxas -arch=sm_90a %t.90/attention_d256_cpasync.ptx -o %t.90/b.cubin
// RUN: FileCheck %s --check-prefix=SM90CP < %t.90/attention_d256_cpasync.json

// SM89: "smem_bytes": 98304,
// SM80: "smem_bytes": 163840,
// SM90: "block": [
// SM90-NEXT: 384,
// SM90: "persistent": false,
// SM90: "smem_bytes": 198144,
// SM90PTX: setmaxnreg.inc.sync.aligned.u32 {{[[:space:]]*}}232;
// SM90PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// SM90PTX: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// SM90CP: "block": [
// SM90CP-NEXT: 128,
// SM90CP: "smem_bytes": 131072,
tile.kernel @attention_d256(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>, %O: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32, %lse_batch: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 256] strides [%q_batch, %q_head, 256, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 256] strides [%kv_batch, %kv_head, 256, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 256] strides [%kv_batch, %kv_head, 256, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 256] strides [%q_batch, %q_head, 256, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) causal : !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}

tile.kernel @attention_d256_cpasync(%Q: !tile.ptr<bf16>, %K: !tile.ptr<bf16>, %V: !tile.ptr<bf16>, %O: !tile.ptr<bf16>, %LSE: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32, %q_head: i32, %kv_batch: i32, %kv_head: i32, %lse_batch: i32) {
  %q = tile.make_view %Q[%B, %H, %SQ, 256] strides [%q_batch, %q_head, 256, 1] : !tile.ptr<bf16>
  %k = tile.make_view %K[%B, %HK, %SK, 256] strides [%kv_batch, %kv_head, 256, 1] : !tile.ptr<bf16>
  %v = tile.make_view %V[%B, %HK, %SK, 256] strides [%kv_batch, %kv_head, 256, 1] : !tile.ptr<bf16>
  %o = tile.make_view %O[%B, %H, %SQ, 256] strides [%q_batch, %q_head, 256, 1] : !tile.ptr<bf16>
  %l = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
  tile.attention %q, %k, %v, %o lse(%l) causal config <warp_specialize = false> : !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?x256xbf16, strides = [?, ?, 256, 1]>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
  tile.return
}
