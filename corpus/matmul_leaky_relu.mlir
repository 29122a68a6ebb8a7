// Triton tutorial 03 (matrix multiplication): C = leaky_relu(A * B) in
// fp16 with an f32 accumulator, A (M x K) and B (K x N) row-major. The
// tutorial's first CUDA configuration: 128 x 256 x 64 tiles, 8 warps,
// GROUP_SIZE_M = 8 (grouped rasterization, so that neighbouring programs
// share tiles of B in L2). leaky_relu(x) = x if x >= 0 else 0.01 x.
tile.kernel @matmul_leaky_relu(%A: !tile.ptr<f16> {tile.align = 16 : i64},
                               %B: !tile.ptr<f16> {tile.align = 16 : i64},
                               %C: !tile.ptr<f16> {tile.align = 16 : i64},
                               %M: i32, %N: i32, %K: i32,
                               %lda: i32 {tile.divisibility = 16 : i64},
                               %ldb: i32 {tile.divisibility = 16 : i64},
                               %ldc: i32 {tile.divisibility = 16 : i64})
    grid(ceildiv(%M, 128) * ceildiv(%N, 256)) warps(8) {
  %c0 = arith.constant 0 : i32
  %c8 = arith.constant 8 : i32
  %c64 = arith.constant 64 : i32
  %c128 = arith.constant 128 : i32
  %c256 = arith.constant 256 : i32
  %pid = tile.program_id x
  %num_pid_m = arith.ceildivsi %M, %c128 : i32
  %num_pid_n = arith.ceildivsi %N, %c256 : i32
  %num_pid_in_group = arith.muli %num_pid_n, %c8 : i32
  %group_id = arith.divsi %pid, %num_pid_in_group : i32
  %first_pid_m = arith.muli %group_id, %c8 : i32
  %left = arith.subi %num_pid_m, %first_pid_m : i32
  %group_size_m = arith.minsi %left, %c8 : i32
  %in_group = arith.remsi %pid, %num_pid_in_group : i32
  %pid_m_off = arith.remsi %in_group, %group_size_m : i32
  %pid_m = arith.addi %first_pid_m, %pid_m_off : i32
  %pid_n = arith.divsi %in_group, %group_size_m : i32
  %m0 = arith.muli %pid_m, %c128 : i32
  %n0 = arith.muli %pid_n, %c256 : i32
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<f16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<f16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<f16>
  %zero = arith.constant dense<0.0> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%acc = %zero) -> (tensor<128x256xf32>) : i32 {
    %ta = tile.load %a[%m0, %k] : !tile.view<?x?xf16, strides = [?, 1]> -> tensor<128x64xf16>
    %tb = tile.load %b[%k, %n0] : !tile.view<?x?xf16, strides = [?, 1]> -> tensor<64x256xf16>
    %d = tile.dot %ta, %tb, %acc : tensor<128x64xf16>, tensor<64x256xf16> -> tensor<128x256xf32>
    scf.yield %d : tensor<128x256xf32>
  }
  %slope = arith.constant dense<0.01> : tensor<128x256xf32>
  %pos = arith.cmpf oge, %acc, %zero : tensor<128x256xf32>
  %leak = arith.mulf %acc, %slope : tensor<128x256xf32>
  %act = arith.select %pos, %acc, %leak : tensor<128x256xi1>, tensor<128x256xf32>
  %out = arith.truncf %act : tensor<128x256xf32> to tensor<128x256xf16>
  tile.store %out, %c[%m0, %n0] : tensor<128x256xf16>, !tile.view<?x?xf16, strides = [?, 1]>
  tile.return
}
