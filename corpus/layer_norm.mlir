// Triton tutorial 05 (layer normalization, forward): one program per row
// of an M x N fp16 matrix; three loops over the row in 1024-wide blocks
// (the mean, the variance, then y = (x - mean) * rstd * w + b), with the
// row's mean and 1 / std stored for the backward pass (f32). The tutorial
// sizes BLOCK_SIZE to the row; here (and in the Triton twin) it is 1024
// and 4 warps (the tutorial's BLOCK_SIZE // 256), so that long rows loop.
tile.kernel @layer_norm(%X: !tile.ptr<f16> {tile.align = 16 : i64},
                        %Y: !tile.ptr<f16> {tile.align = 16 : i64},
                        %W: !tile.ptr<f16> {tile.align = 16 : i64},
                        %Bias: !tile.ptr<f16> {tile.align = 16 : i64},
                        %Mean: !tile.ptr<f32> {tile.align = 16 : i64},
                        %Rstd: !tile.ptr<f32> {tile.align = 16 : i64},
                        %stride: i32 {tile.divisibility = 16 : i64},
                        %M: i32, %N: i32, %eps: f32)
    grid(%M) warps(4) {
  %c0 = arith.constant 0 : i32
  %c1024 = arith.constant 1024 : i32
  %row = tile.program_id x
  %x = tile.make_view %X[%M, %N] strides [%stride, 1] : !tile.ptr<f16>
  %y = tile.make_view %Y[%M, %N] strides [%stride, 1] : !tile.ptr<f16>
  %w = tile.make_view %W[%N] strides [1] : !tile.ptr<f16>
  %bias = tile.make_view %Bias[%N] strides [1] : !tile.ptr<f16>
  %mean_v = tile.make_view %Mean[%M] strides [1] : !tile.ptr<f32>
  %rstd_v = tile.make_view %Rstd[%M] strides [1] : !tile.ptr<f32>
  %nf = arith.sitofp %N : i32 to f32
  %n_r = tile.splat %nf : tensor<1xf32>
  %zeros = arith.constant dense<0.0> : tensor<1x1024xf32>
  %cols = tile.range 0 to 1024 : tensor<1024xi32>
  %cols2 = tile.expand_dims %cols axis = 0 : tensor<1024xi32> -> tensor<1x1024xi32>
  %n_b = tile.splat %N : tensor<1x1024xi32>
  // mean
  %sum = scf.for %off = %c0 to %N step %c1024 iter_args(%acc = %zeros) -> (tensor<1x1024xf32>) : i32 {
    %a = tile.load %x[%row, %off] : !tile.view<?x?xf16, strides = [?, 1]> -> tensor<1x1024xf16>
    %af = arith.extf %a : tensor<1x1024xf16> to tensor<1x1024xf32>
    %next = arith.addf %acc, %af : tensor<1x1024xf32>
    scf.yield %next : tensor<1x1024xf32>
  }
  %total = tile.reduce sum %sum axis = 1 : tensor<1x1024xf32> -> tensor<1xf32>
  %mean = arith.divf %total, %n_r : tensor<1xf32>
  %mean2 = tile.expand_dims %mean axis = 1 : tensor<1xf32> -> tensor<1x1xf32>
  %mean_b = tile.broadcast %mean2 : tensor<1x1xf32> -> tensor<1x1024xf32>
  // variance
  %sq = scf.for %off = %c0 to %N step %c1024 iter_args(%acc = %zeros) -> (tensor<1x1024xf32>) : i32 {
    %a = tile.load %x[%row, %off] : !tile.view<?x?xf16, strides = [?, 1]> -> tensor<1x1024xf16>
    %af = arith.extf %a : tensor<1x1024xf16> to tensor<1x1024xf32>
    %offs = tile.splat %off : tensor<1x1024xi32>
    %idx = arith.addi %cols2, %offs : tensor<1x1024xi32>
    %inside = arith.cmpi slt, %idx, %n_b : tensor<1x1024xi32>
    %d = arith.subf %af, %mean_b : tensor<1x1024xf32>
    %dm = arith.select %inside, %d, %zeros : tensor<1x1024xi1>, tensor<1x1024xf32>
    %d2 = arith.mulf %dm, %dm : tensor<1x1024xf32>
    %next = arith.addf %acc, %d2 : tensor<1x1024xf32>
    scf.yield %next : tensor<1x1024xf32>
  }
  %sqsum = tile.reduce sum %sq axis = 1 : tensor<1x1024xf32> -> tensor<1xf32>
  %var = arith.divf %sqsum, %n_r : tensor<1xf32>
  %eps_r = tile.splat %eps : tensor<1xf32>
  %var_eps = arith.addf %var, %eps_r : tensor<1xf32>
  %std = math.sqrt %var_eps : tensor<1xf32>
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %rstd = arith.divf %one, %std : tensor<1xf32>
  tile.store %mean, %mean_v[%row] : tensor<1xf32>, !tile.view<?xf32, strides = [1]>
  tile.store %rstd, %rstd_v[%row] : tensor<1xf32>, !tile.view<?xf32, strides = [1]>
  %rstd2 = tile.expand_dims %rstd axis = 1 : tensor<1xf32> -> tensor<1x1xf32>
  %rstd_b = tile.broadcast %rstd2 : tensor<1x1xf32> -> tensor<1x1024xf32>
  // normalize and apply the affine transform
  scf.for %off = %c0 to %N step %c1024 : i32 {
    %tw = tile.load %w[%off] : !tile.view<?xf16, strides = [1]> -> tensor<1024xf16>
    %tb = tile.load %bias[%off] : !tile.view<?xf16, strides = [1]> -> tensor<1024xf16>
    %a = tile.load %x[%row, %off] : !tile.view<?x?xf16, strides = [?, 1]> -> tensor<1x1024xf16>
    %af = arith.extf %a : tensor<1x1024xf16> to tensor<1x1024xf32>
    %tw32 = arith.extf %tw : tensor<1024xf16> to tensor<1024xf32>
    %tb32 = arith.extf %tb : tensor<1024xf16> to tensor<1024xf32>
    %wf = tile.expand_dims %tw32 axis = 0 : tensor<1024xf32> -> tensor<1x1024xf32>
    %bf = tile.expand_dims %tb32 axis = 0 : tensor<1024xf32> -> tensor<1x1024xf32>
    %d = arith.subf %af, %mean_b : tensor<1x1024xf32>
    %xhat = arith.mulf %d, %rstd_b : tensor<1x1024xf32>
    %scaled = arith.mulf %xhat, %wf : tensor<1x1024xf32>
    %yv = arith.addf %scaled, %bf : tensor<1x1024xf32>
    %yh = arith.truncf %yv : tensor<1x1024xf32> to tensor<1x1024xf16>
    tile.store %yh, %y[%row, %off] : tensor<1x1024xf16>, !tile.view<?x?xf16, strides = [?, 1]>
  }
  tile.return
}
