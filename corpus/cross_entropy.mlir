// Cross-entropy loss forward over a large vocabulary (the LM head's loss):
// loss[i] = logsumexp(logits[i, :]) - logits[i, label[i]], bf16 logits
// (M x V), i32 labels, f32 losses. One program per row; the row is read
// in 4096-wide blocks with an online max and sum (math.exp, math.log), the
// label's logit read with tile.load_scalar. 8 warps.
tile.kernel @cross_entropy(%Logits: !tile.ptr<bf16> {tile.align = 16 : i64},
                           %Labels: !tile.ptr<i32> {tile.align = 16 : i64},
                           %Loss: !tile.ptr<f32> {tile.align = 16 : i64},
                           %M: i32, %V: i32,
                           %ld: i32 {tile.divisibility = 16 : i64})
    grid(%M) warps(8) {
  %c0 = arith.constant 0 : i32
  %c4096 = arith.constant 4096 : i32
  %row = tile.program_id x
  %logits = tile.make_view %Logits[%M, %V] strides [%ld, 1] : !tile.ptr<bf16>
  %labels = tile.make_view %Labels[%M] strides [1] : !tile.ptr<i32>
  %loss = tile.make_view %Loss[%M] strides [1] : !tile.ptr<f32>
  %m_init = arith.constant dense<0xFF800000> : tensor<1xf32>
  %s_init = arith.constant dense<0.0> : tensor<1xf32>
  %res:2 = scf.for %v = %c0 to %V step %c4096 iter_args(%m = %m_init, %s = %s_init)
      -> (tensor<1xf32>, tensor<1xf32>) : i32 {
    %t = tile.load %logits[%row, %v] padding(neg_inf) : !tile.view<?x?xbf16, strides = [?, 1]> -> tensor<1x4096xbf16>
    %tf = arith.extf %t : tensor<1x4096xbf16> to tensor<1x4096xf32>
    %bm = tile.reduce max %tf axis = 1 : tensor<1x4096xf32> -> tensor<1xf32>
    %m_new = arith.maximumf %m, %bm : tensor<1xf32>
    %m2 = tile.expand_dims %m_new axis = 1 : tensor<1xf32> -> tensor<1x1xf32>
    %mb = tile.broadcast %m2 : tensor<1x1xf32> -> tensor<1x4096xf32>
    %d = arith.subf %tf, %mb : tensor<1x4096xf32>
    %e = math.exp %d : tensor<1x4096xf32>
    %bs = tile.reduce sum %e axis = 1 : tensor<1x4096xf32> -> tensor<1xf32>
    %dm = arith.subf %m, %m_new : tensor<1xf32>
    %alpha = math.exp %dm : tensor<1xf32>
    %s_old = arith.mulf %s, %alpha : tensor<1xf32>
    %s_new = arith.addf %s_old, %bs : tensor<1xf32>
    scf.yield %m_new, %s_new : tensor<1xf32>, tensor<1xf32>
  }
  %log_s = math.log %res#1 : tensor<1xf32>
  %lse = arith.addf %res#0, %log_s : tensor<1xf32>
  %label = tile.load_scalar %labels[%row] : !tile.view<?xi32, strides = [1]> -> i32
  %target = tile.load_scalar %logits[%row, %label] : !tile.view<?x?xbf16, strides = [?, 1]> -> bf16
  %target_f = arith.extf %target : bf16 to f32
  %target_r = tile.splat %target_f : tensor<1xf32>
  %l = arith.subf %lse, %target_r : tensor<1xf32>
  tile.store %l, %loss[%row] : tensor<1xf32>, !tile.view<?xf32, strides = [1]>
  tile.return
}
