// The persistent pass-built attention kernel (head dim 64, no mask; O staged in
// Q's ring slot by tile-tma-pipeline), scheduled by the shipped passes from
// test/Target/Inputs/attention_bf16_d64.mlir, each chunk with one planted bug in
// that scheme that tile-verify-async must report; the first chunk is the kernel as
// shipped, which verifies.
// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-verify-async)))'

// The kernel as shipped.
#blocked = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#shared1 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#slice = #tile.slice<dim = 1, parent = #mma>
#slice1 = #tile.slice<dim = 0, parent = #mma>
#slice2 = #tile.slice<dim = 1, parent = #dot_op>
module attributes {gpu.container_module} {
  gpu.module @attention_bf16_d64 [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @attention_bf16_d64(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<bf16> {tile.align = 16 : i64}, %LSE: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32 {tile.divisibility = 8 : i64}, %q_head: i32 {tile.divisibility = 8 : i64}, %kv_batch: i32 {tile.divisibility = 8 : i64}, %kv_head: i32 {tile.divisibility = 8 : i64}, %lse_batch: i32) grid(ceildiv(%SQ, 128) * %H * %B) warps(8) persistent schedule<stages = 2, tma = true, async_wgmma = true, warp_specialize = true, producer_regs = 40, consumer_regs = 232, persistent = true, tma_store = true, pingpong = true, split_loops = true> {
      %c2_i32 = arith.constant 2 : i32
      %cst = arith.constant dense<0.693147182> : tensor<128xf32, #blocked>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
      %cst_1 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
      %cst_2 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
      %cst_3 = arith.constant dense<0xFF800000> : tensor<128x128xf32, #mma>
      %cst_4 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %cst_5 = arith.constant dense<0.180336878> : tensor<128xf32, #slice>
      %cst_6 = arith.constant dense<0.180336878> : tensor<128x128xf32, #mma>
      %cst_7 = arith.constant dense<1.000000e+00> : tensor<128xf32, #slice>
      %c0_i32 = arith.constant 0 : i32
      %c128_i32 = arith.constant 128 : i32
      %c1_i32 = arith.constant 1 : i32
      %c4_i32 = arith.constant 4 : i32
      %c3_i32 = arith.constant 3 : i32
      %0 = tile.warpgroup_id
      %1 = arith.addi %0, %c3_i32 : i32
      %2 = arith.subi %c4_i32, %0 : i32
      %3 = arith.cmpi eq, %0, %c1_i32 : i32
      %4 = arith.ceildivsi %SQ, %c128_i32 : i32
      %5 = arith.muli %4, %H : i32
      %6 = arith.muli %5, %B : i32
      %pid = tile.program_id x
      %7 = tile.num_programs x
      %8 = tile.make_view %Q[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
      %9 = tile.make_view %V[%B, %HK, %SK, 64] strides [%kv_batch, %kv_head, 64, 1] : !tile.ptr<bf16>
      %10 = tile.make_view %O[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
      %11 = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
      %12 = tile.make_view %K[%B, %HK, 64, %SK] strides [%kv_batch, %kv_head, 1, 64] : !tile.ptr<bf16>
      %13 = arith.divsi %SK, %c128_i32 : i32
      %14 = arith.muli %13, %c128_i32 : i32
      %15 = tile.make_tensor_map %10 : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %16 = tile.make_tensor_map %8 : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %17 = tile.local_alloc : !tile.smem<2x128x64xbf16, #shared>
      %18 = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
      %19 = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
      %20 = arith.cmpi slt, %pid, %6 : i32
      %21 = tile.make_tensor_map %12 : !tile.view<?x?x64x?xbf16, strides = [?, ?, 1, 64]> -> !tile.tensor_map<1x1x64x128xbf16, #shared1>
      %22 = tile.local_alloc : !tile.smem<2x64x128xbf16, #shared1>
      %23 = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
      %24 = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
      %25 = tile.make_tensor_map %9 : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %26 = tile.local_alloc : !tile.smem<2x128x64xbf16, #shared>
      %27 = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
      %28 = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
      tile.warp_specialize regs(232) {
        scf.if %3 {
          tile.named_barrier arrive %c3_i32, 256
        }
        %29 = tile.range 0 to 128 : tensor<128xi32, #slice1>
        %30 = tile.splat %SK : tensor<128x128xi32, #mma>
        %31 = arith.cmpi sgt, %SK, %c0_i32 : i32
        %32 = arith.ceildivsi %SK, %c128_i32 : i32
        %33 = arith.maxsi %32, %c0_i32 : i32
        %34:4 = scf.for %arg0 = %pid to %6 step %7 iter_args(%arg1 = %c0_i32, %arg2 = %c0_i32, %arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32, i32, i32)  : i32 {
          %35 = arith.remsi %arg0, %4 : i32
          %36 = arith.divsi %arg0, %4 : i32
          %37 = arith.remsi %36, %H : i32
          %38 = arith.divsi %36, %H : i32
          %39 = arith.muli %35, %c128_i32 : i32
          %40 = arith.cmpi ne, %arg0, %pid : i32
          scf.if %40 {
            tile.tma_store_wait 0
            tile.barrier
            %64 = arith.cmpi eq, %arg1, %c0_i32 : i32
            %65 = arith.subi %arg1, %c1_i32 : i32
            %66 = arith.select %64, %c1_i32, %65 : i32
            tile.mbarrier_arrive %19[%66] : !tile.mbarrier<2>
          }
          tile.mbarrier_wait %18[%arg1], %arg2 : !tile.mbarrier<2>
          %41 = tile.local_load %17[%arg1] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
          %42:3 = scf.if %31 -> (tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>) {
            tile.named_barrier %1, 256
            tile.mbarrier_wait %23[%arg3], %arg4 : !tile.mbarrier<2>
            %64 = tile.local_load %22[%arg3] : !tile.smem<2x64x128xbf16, #shared1> -> tensor<64x128xbf16, #shared1>
            %65 = tile.dot %41, %64, %cst_4 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
            tile.named_barrier arrive %2, 256
            %66 = tile.warpgroup_wait 0, %65 : tensor<128x128xf32, #mma>
            tile.mbarrier_arrive %24[%arg3] : !tile.mbarrier<2>
            %67 = arith.cmpi sle, %14, %c0_i32 : i32
            %68 = scf.if %67 -> (tensor<128x128xf32, #mma>) {
              %104 = tile.splat %c0_i32 : tensor<128xi32, #slice1>
              %105 = arith.addi %29, %104 : tensor<128xi32, #slice1>
              %106 = tile.expand_dims %105 axis = 0 : tensor<128xi32, #slice1> -> tensor<1x128xi32, #mma>
              %107 = tile.broadcast %106 : tensor<1x128xi32, #mma> -> tensor<128x128xi32, #mma>
              %108 = arith.cmpi slt, %107, %30 : tensor<128x128xi32, #mma>
              %109 = arith.select %108, %66, %cst_3 : tensor<128x128xi1, #mma>, tensor<128x128xf32, #mma>
              scf.yield %109 : tensor<128x128xf32, #mma>
            } else {
              scf.yield %66 : tensor<128x128xf32, #mma>
            }
            %69 = tile.reduce max %68 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
            %70 = arith.mulf %69, %cst_5 : tensor<128xf32, #slice>
            %71 = scf.if %67 -> (tensor<128xf32, #slice>) {
              %104 = arith.cmpf oeq, %70, %cst_1 : tensor<128xf32, #slice>
              %105 = arith.select %104, %cst_2, %70 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
              scf.yield %105 : tensor<128xf32, #slice>
            } else {
              scf.yield %70 : tensor<128xf32, #slice>
            }
            %72 = arith.subf %cst_1, %71 : tensor<128xf32, #slice>
            %73 = math.exp2 %72 fastmath<afn> : tensor<128xf32, #slice>
            %74 = arith.negf %71 : tensor<128xf32, #slice>
            %75 = tile.expand_dims %74 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
            %76 = tile.broadcast %75 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
            %77 = math.fma %68, %cst_6, %76 : tensor<128x128xf32, #mma>
            %78 = tile.convert_layout %77 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
            %79 = math.exp2 %78 fastmath<afn> : tensor<128x128xf32, #dot_op>
            %80 = tile.reduce sum %79 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
            %81 = arith.mulf %73, %cst_2 : tensor<128xf32, #slice>
            %82 = tile.convert_layout %80 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
            %83 = arith.addf %81, %82 : tensor<128xf32, #slice>
            %84 = tile.expand_dims %73 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
            %85 = tile.broadcast %84 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
            %86 = arith.addi %arg3, %c1_i32 : i32
            %87 = arith.cmpi eq, %86, %c2_i32 : i32
            %88 = arith.select %87, %c0_i32, %86 : i32
            %89 = arith.extui %87 : i1 to i32
            %90 = arith.xori %arg4, %89 : i32
            %91 = arith.truncf %79 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
            %92 = arith.mulf %85, %cst_0 : tensor<128x64xf32, #mma>
            %93 = arith.maxsi %14, %c128_i32 : i32
            %94 = arith.subi %93, %c128_i32 : i32
            %95 = arith.ceildivsi %94, %c128_i32 : i32
            %96 = arith.muli %95, %c128_i32 : i32
            %97 = arith.addi %96, %c128_i32 : i32
            %98 = arith.minsi %SK, %97 : i32
            %99:8 = scf.for %arg5 = %c128_i32 to %98 step %c128_i32 iter_args(%arg6 = %92, %arg7 = %70, %arg8 = %83, %arg9 = %88, %arg10 = %90, %arg11 = %arg3, %arg12 = %arg4, %arg13 = %91) -> (tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>)  : i32 {
              tile.named_barrier %1, 256
              tile.mbarrier_wait %23[%arg9], %arg10 : !tile.mbarrier<2>
              %104 = tile.local_load %22[%arg9] : !tile.smem<2x64x128xbf16, #shared1> -> tensor<64x128xbf16, #shared1>
              %105 = tile.dot %41, %104, %cst_4 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
              tile.mbarrier_wait %27[%arg11], %arg12 : !tile.mbarrier<2>
              %106 = tile.local_load %26[%arg11] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
              %107 = tile.dot %arg13, %106, %arg6 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #shared> -> tensor<128x64xf32, #mma>
              tile.named_barrier arrive %2, 256
              %108 = tile.warpgroup_wait 1, %105 : tensor<128x128xf32, #mma>
              tile.mbarrier_arrive %24[%arg9] : !tile.mbarrier<2>
              %109 = tile.reduce max %108 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
              %110 = arith.mulf %109, %cst_5 : tensor<128xf32, #slice>
              %111 = arith.maximumf %arg7, %110 : tensor<128xf32, #slice>
              %112 = arith.subf %arg7, %111 : tensor<128xf32, #slice>
              %113 = math.exp2 %112 fastmath<afn> : tensor<128xf32, #slice>
              %114 = arith.negf %111 : tensor<128xf32, #slice>
              %115 = tile.expand_dims %114 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %116 = tile.broadcast %115 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
              %117 = math.fma %108, %cst_6, %116 : tensor<128x128xf32, #mma>
              %118 = tile.convert_layout %117 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
              %119 = math.exp2 %118 fastmath<afn> : tensor<128x128xf32, #dot_op>
              %120 = tile.reduce sum %119 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
              %121 = arith.mulf %arg8, %113 : tensor<128xf32, #slice>
              %122 = tile.convert_layout %120 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
              %123 = arith.addf %121, %122 : tensor<128xf32, #slice>
              %124 = tile.expand_dims %113 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %125 = tile.broadcast %124 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
              %126 = arith.addi %arg9, %c1_i32 : i32
              %127 = arith.cmpi eq, %126, %c2_i32 : i32
              %128 = arith.select %127, %c0_i32, %126 : i32
              %129 = arith.extui %127 : i1 to i32
              %130 = arith.xori %arg10, %129 : i32
              %131 = tile.warpgroup_wait 0, %107 : tensor<128x64xf32, #mma>
              tile.mbarrier_arrive %28[%arg11] : !tile.mbarrier<2>
              %132 = arith.truncf %119 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
              %133 = arith.mulf %131, %125 : tensor<128x64xf32, #mma>
              scf.yield %133, %111, %123, %128, %130, %arg9, %arg10, %132 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>
            }
            %100:8 = scf.for %arg5 = %98 to %SK step %c128_i32 iter_args(%arg6 = %99#0, %arg7 = %99#1, %arg8 = %99#2, %arg9 = %99#3, %arg10 = %99#4, %arg11 = %99#5, %arg12 = %99#6, %arg13 = %99#7) -> (tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>)  : i32 {
              tile.named_barrier %1, 256
              tile.mbarrier_wait %23[%arg9], %arg10 : !tile.mbarrier<2>
              %104 = tile.local_load %22[%arg9] : !tile.smem<2x64x128xbf16, #shared1> -> tensor<64x128xbf16, #shared1>
              %105 = tile.dot %41, %104, %cst_4 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
              tile.mbarrier_wait %27[%arg11], %arg12 : !tile.mbarrier<2>
              %106 = tile.local_load %26[%arg11] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
              %107 = tile.dot %arg13, %106, %arg6 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #shared> -> tensor<128x64xf32, #mma>
              tile.named_barrier arrive %2, 256
              %108 = tile.warpgroup_wait 1, %105 : tensor<128x128xf32, #mma>
              tile.mbarrier_arrive %24[%arg9] : !tile.mbarrier<2>
              %109 = tile.splat %arg5 : tensor<128xi32, #slice1>
              %110 = arith.addi %29, %109 : tensor<128xi32, #slice1>
              %111 = tile.expand_dims %110 axis = 0 : tensor<128xi32, #slice1> -> tensor<1x128xi32, #mma>
              %112 = tile.broadcast %111 : tensor<1x128xi32, #mma> -> tensor<128x128xi32, #mma>
              %113 = arith.cmpi slt, %112, %30 : tensor<128x128xi32, #mma>
              %114 = arith.select %113, %108, %cst_3 : tensor<128x128xi1, #mma>, tensor<128x128xf32, #mma>
              %115 = tile.reduce max %114 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
              %116 = arith.mulf %115, %cst_5 : tensor<128xf32, #slice>
              %117 = arith.maximumf %arg7, %116 : tensor<128xf32, #slice>
              %118 = arith.cmpf oeq, %117, %cst_1 : tensor<128xf32, #slice>
              %119 = arith.select %118, %cst_2, %117 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
              %120 = arith.subf %arg7, %119 : tensor<128xf32, #slice>
              %121 = math.exp2 %120 fastmath<afn> : tensor<128xf32, #slice>
              %122 = arith.negf %119 : tensor<128xf32, #slice>
              %123 = tile.expand_dims %122 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %124 = tile.broadcast %123 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
              %125 = math.fma %114, %cst_6, %124 : tensor<128x128xf32, #mma>
              %126 = tile.convert_layout %125 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
              %127 = math.exp2 %126 fastmath<afn> : tensor<128x128xf32, #dot_op>
              %128 = tile.reduce sum %127 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
              %129 = arith.mulf %arg8, %121 : tensor<128xf32, #slice>
              %130 = tile.convert_layout %128 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
              %131 = arith.addf %129, %130 : tensor<128xf32, #slice>
              %132 = tile.expand_dims %121 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %133 = tile.broadcast %132 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
              %134 = arith.addi %arg9, %c1_i32 : i32
              %135 = arith.cmpi eq, %134, %c2_i32 : i32
              %136 = arith.select %135, %c0_i32, %134 : i32
              %137 = arith.extui %135 : i1 to i32
              %138 = arith.xori %arg10, %137 : i32
              %139 = tile.warpgroup_wait 0, %107 : tensor<128x64xf32, #mma>
              tile.mbarrier_arrive %28[%arg11] : !tile.mbarrier<2>
              %140 = arith.truncf %127 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
              %141 = arith.mulf %139, %133 : tensor<128x64xf32, #mma>
              scf.yield %141, %117, %131, %136, %138, %arg9, %arg10, %140 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>
            }
            tile.named_barrier %1, 256
            tile.mbarrier_wait %27[%100#5], %100#6 : !tile.mbarrier<2>
            %101 = tile.local_load %26[%100#5] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
            %102 = tile.dot %100#7, %101, %100#0 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #shared> -> tensor<128x64xf32, #mma>
            tile.named_barrier arrive %2, 256
            %103 = tile.warpgroup_wait 0, %102 : tensor<128x64xf32, #mma>
            tile.mbarrier_arrive %28[%100#5] : !tile.mbarrier<2>
            scf.yield %103, %100#1, %100#2 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
          } else {
            scf.yield %cst_0, %cst_1, %cst_2 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
          }
          tile.warpgroup_wait 0
          %43 = arith.cmpf oeq, %42#2, %cst_2 : tensor<128xf32, #slice>
          %44 = arith.select %43, %cst_7, %42#2 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
          %45 = arith.divf %cst_7, %44 : tensor<128xf32, #slice>
          %46 = tile.expand_dims %45 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
          %47 = tile.broadcast %46 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
          %48 = arith.mulf %42#0, %47 : tensor<128x64xf32, #mma>
          %49 = arith.truncf %48 : tensor<128x64xf32, #mma> to tensor<128x64xbf16, #mma>
          tile.barrier
          tile.local_store %49, %17[%arg1] : tensor<128x64xbf16, #mma>, !tile.smem<2x128x64xbf16, #shared>
          tile.fence_async_shared
          tile.barrier
          tile.tma_store %15[%38, %37, %39, %c0_i32], %17[%arg1] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>
          %50 = math.log2 %42#2 : tensor<128xf32, #slice>
          %51 = arith.addf %42#1, %50 : tensor<128xf32, #slice>
          %52 = tile.convert_layout %51 : tensor<128xf32, #slice> -> tensor<128xf32, #blocked>
          %53 = arith.mulf %52, %cst : tensor<128xf32, #blocked>
          tile.store %53, %11[%38, %37, %39] : tensor<128xf32, #blocked>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
          %54 = arith.addi %arg1, %c1_i32 : i32
          %55 = arith.cmpi eq, %54, %c2_i32 : i32
          %56 = arith.select %55, %c0_i32, %54 : i32
          %57 = arith.extui %55 : i1 to i32
          %58 = arith.xori %arg2, %57 : i32
          %59 = arith.addi %arg3, %33 : i32
          %60 = arith.remui %59, %c2_i32 : i32
          %61 = arith.divui %59, %c2_i32 : i32
          %62 = arith.andi %61, %c1_i32 : i32
          %63 = arith.xori %arg4, %62 : i32
          scf.yield %56, %58, %60, %63 : i32, i32, i32, i32
        } {tile.persistent_loop}
        tile.tma_store_wait 0
      } partition warps(4) regs(40) {
        scf.if %20 {
          tile.mbarrier_wait %19[%c0_i32], %c1_i32 : !tile.mbarrier<2>
          tile.mbarrier_expect_tx %18[%c0_i32], 16384 : !tile.mbarrier<2>
          %34 = arith.remsi %pid, %4 : i32
          %35 = arith.divsi %pid, %4 : i32
          %36 = arith.remsi %35, %H : i32
          %37 = arith.divsi %35, %H : i32
          %38 = arith.muli %34, %c128_i32 : i32
          tile.tma_load %16[%37, %36, %38, %c0_i32], %17[%c0_i32], %18[%c0_i32] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
        }
        %29 = arith.cmpi sgt, %SK, %c0_i32 : i32
        %30 = arith.cmpi sgt, %SK, %c0_i32 : i32
        %31 = arith.ceildivsi %SK, %c128_i32 : i32
        %32 = arith.maxsi %31, %c0_i32 : i32
        %33:4 = scf.for %arg0 = %pid to %6 step %7 iter_args(%arg1 = %c0_i32, %arg2 = %c0_i32, %arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32, i32, i32)  : i32 {
          %34 = arith.divsi %arg0, %4 : i32
          %35 = arith.remsi %34, %H : i32
          %36 = arith.divsi %34, %H : i32
          %37 = arith.divsi %H, %HK : i32
          %38 = arith.divsi %35, %37 : i32
          scf.if %29 {
            %56 = arith.xori %arg4, %c1_i32 : i32
            tile.mbarrier_wait %24[%arg3], %56 : !tile.mbarrier<2>
            tile.mbarrier_expect_tx %23[%arg3], 16384 : !tile.mbarrier<2>
            tile.tma_load %21[%36, %38, %c0_i32, %c0_i32], %22[%arg3], %23[%arg3] : !tile.tensor_map<1x1x64x128xbf16, #shared1>, !tile.smem<2x64x128xbf16, #shared1>, !tile.mbarrier<2>
            tile.mbarrier_wait %28[%arg3], %56 : !tile.mbarrier<2>
            tile.mbarrier_expect_tx %27[%arg3], 16384 : !tile.mbarrier<2>
            tile.tma_load %25[%36, %38, %c0_i32, %c0_i32], %26[%arg3], %27[%arg3] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
          }
          scf.if %30 {
            %56 = arith.addi %arg3, %c1_i32 : i32
            %57 = arith.cmpi eq, %56, %c2_i32 : i32
            %58 = arith.select %57, %c0_i32, %56 : i32
            %59 = arith.extui %57 : i1 to i32
            %60 = arith.xori %arg4, %59 : i32
            %61 = arith.addi %arg3, %c1_i32 : i32
            %62 = arith.cmpi eq, %61, %c2_i32 : i32
            %63 = arith.select %62, %c0_i32, %61 : i32
            %64 = arith.extui %62 : i1 to i32
            %65 = arith.xori %arg4, %64 : i32
            %66 = arith.cmpi sgt, %SK, %c128_i32 : i32
            scf.if %66 {
              %68 = arith.xori %65, %c1_i32 : i32
              tile.mbarrier_wait %24[%63], %68 : !tile.mbarrier<2>
              tile.mbarrier_expect_tx %23[%63], 16384 : !tile.mbarrier<2>
              tile.tma_load %21[%36, %38, %c0_i32, %c128_i32], %22[%63], %23[%63] : !tile.tensor_map<1x1x64x128xbf16, #shared1>, !tile.smem<2x64x128xbf16, #shared1>, !tile.mbarrier<2>
              tile.mbarrier_wait %28[%63], %68 : !tile.mbarrier<2>
              tile.mbarrier_expect_tx %27[%63], 16384 : !tile.mbarrier<2>
              tile.tma_load %25[%36, %38, %c128_i32, %c0_i32], %26[%63], %27[%63] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
            }
            %67:2 = scf.for %arg5 = %c128_i32 to %SK step %c128_i32 iter_args(%arg6 = %58, %arg7 = %60) -> (i32, i32)  : i32 {
              %68 = arith.addi %arg6, %c1_i32 : i32
              %69 = arith.cmpi eq, %68, %c2_i32 : i32
              %70 = arith.select %69, %c0_i32, %68 : i32
              %71 = arith.extui %69 : i1 to i32
              %72 = arith.xori %arg7, %71 : i32
              %73 = arith.addi %arg5, %c128_i32 : i32
              %74 = arith.addi %arg6, %c1_i32 : i32
              %75 = arith.cmpi eq, %74, %c2_i32 : i32
              %76 = arith.select %75, %c0_i32, %74 : i32
              %77 = arith.extui %75 : i1 to i32
              %78 = arith.xori %arg7, %77 : i32
              %79 = arith.cmpi slt, %73, %SK : i32
              scf.if %79 {
                %80 = arith.xori %78, %c1_i32 : i32
                tile.mbarrier_wait %24[%76], %80 : !tile.mbarrier<2>
                tile.mbarrier_expect_tx %23[%76], 16384 : !tile.mbarrier<2>
                tile.tma_load %21[%36, %38, %c0_i32, %73], %22[%76], %23[%76] : !tile.tensor_map<1x1x64x128xbf16, #shared1>, !tile.smem<2x64x128xbf16, #shared1>, !tile.mbarrier<2>
                tile.mbarrier_wait %28[%76], %80 : !tile.mbarrier<2>
                tile.mbarrier_expect_tx %27[%76], 16384 : !tile.mbarrier<2>
                tile.tma_load %25[%36, %38, %73, %c0_i32], %26[%76], %27[%76] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
              }
              scf.yield %70, %72 : i32, i32
            }
          }
          %39 = arith.addi %arg1, %c1_i32 : i32
          %40 = arith.cmpi eq, %39, %c2_i32 : i32
          %41 = arith.select %40, %c0_i32, %39 : i32
          %42 = arith.extui %40 : i1 to i32
          %43 = arith.xori %arg2, %42 : i32
          %44 = arith.addi %arg0, %7 : i32
          %45 = arith.addi %arg1, %c1_i32 : i32
          %46 = arith.cmpi eq, %45, %c2_i32 : i32
          %47 = arith.select %46, %c0_i32, %45 : i32
          %48 = arith.extui %46 : i1 to i32
          %49 = arith.xori %arg2, %48 : i32
          %50 = arith.cmpi slt, %44, %6 : i32
          scf.if %50 {
            %56 = arith.xori %49, %c1_i32 : i32
            tile.mbarrier_wait %19[%47], %56 : !tile.mbarrier<2>
            tile.mbarrier_expect_tx %18[%47], 16384 : !tile.mbarrier<2>
            %57 = arith.remsi %44, %4 : i32
            %58 = arith.divsi %44, %4 : i32
            %59 = arith.remsi %58, %H : i32
            %60 = arith.divsi %58, %H : i32
            %61 = arith.muli %57, %c128_i32 : i32
            tile.tma_load %16[%60, %59, %61, %c0_i32], %17[%47], %18[%47] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
          }
          %51 = arith.addi %arg3, %32 : i32
          %52 = arith.remui %51, %c2_i32 : i32
          %53 = arith.divui %51, %c2_i32 : i32
          %54 = arith.andi %53, %c1_i32 : i32
          %55 = arith.xori %arg4, %54 : i32
          scf.yield %41, %43, %52, %55 : i32, i32, i32, i32
        }
      }
      tile.return
    }
  }
}


// -----

// Planted bug: Q's stage (holding O) released before O's TMA store has read it (no tma_store_wait at the next tile's start).
#blocked = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#shared1 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#slice = #tile.slice<dim = 1, parent = #mma>
#slice1 = #tile.slice<dim = 0, parent = #mma>
#slice2 = #tile.slice<dim = 1, parent = #dot_op>
module attributes {gpu.container_module} {
  gpu.module @attention_bf16_d64 [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @attention_bf16_d64(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<bf16> {tile.align = 16 : i64}, %LSE: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32 {tile.divisibility = 8 : i64}, %q_head: i32 {tile.divisibility = 8 : i64}, %kv_batch: i32 {tile.divisibility = 8 : i64}, %kv_head: i32 {tile.divisibility = 8 : i64}, %lse_batch: i32) grid(ceildiv(%SQ, 128) * %H * %B) warps(8) persistent schedule<stages = 2, tma = true, async_wgmma = true, warp_specialize = true, producer_regs = 40, consumer_regs = 232, persistent = true, tma_store = true, pingpong = true, split_loops = true> {
      %c2_i32 = arith.constant 2 : i32
      %cst = arith.constant dense<0.693147182> : tensor<128xf32, #blocked>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
      %cst_1 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
      %cst_2 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
      %cst_3 = arith.constant dense<0xFF800000> : tensor<128x128xf32, #mma>
      %cst_4 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %cst_5 = arith.constant dense<0.180336878> : tensor<128xf32, #slice>
      %cst_6 = arith.constant dense<0.180336878> : tensor<128x128xf32, #mma>
      %cst_7 = arith.constant dense<1.000000e+00> : tensor<128xf32, #slice>
      %c0_i32 = arith.constant 0 : i32
      %c128_i32 = arith.constant 128 : i32
      %c1_i32 = arith.constant 1 : i32
      %c4_i32 = arith.constant 4 : i32
      %c3_i32 = arith.constant 3 : i32
      %0 = tile.warpgroup_id
      %1 = arith.addi %0, %c3_i32 : i32
      %2 = arith.subi %c4_i32, %0 : i32
      %3 = arith.cmpi eq, %0, %c1_i32 : i32
      %4 = arith.ceildivsi %SQ, %c128_i32 : i32
      %5 = arith.muli %4, %H : i32
      %6 = arith.muli %5, %B : i32
      %pid = tile.program_id x
      %7 = tile.num_programs x
      %8 = tile.make_view %Q[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
      %9 = tile.make_view %V[%B, %HK, %SK, 64] strides [%kv_batch, %kv_head, 64, 1] : !tile.ptr<bf16>
      %10 = tile.make_view %O[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
      %11 = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
      %12 = tile.make_view %K[%B, %HK, 64, %SK] strides [%kv_batch, %kv_head, 1, 64] : !tile.ptr<bf16>
      %13 = arith.divsi %SK, %c128_i32 : i32
      %14 = arith.muli %13, %c128_i32 : i32
      %15 = tile.make_tensor_map %10 : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %16 = tile.make_tensor_map %8 : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %17 = tile.local_alloc : !tile.smem<2x128x64xbf16, #shared>
      %18 = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
      %19 = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
      %20 = arith.cmpi slt, %pid, %6 : i32
      %21 = tile.make_tensor_map %12 : !tile.view<?x?x64x?xbf16, strides = [?, ?, 1, 64]> -> !tile.tensor_map<1x1x64x128xbf16, #shared1>
      %22 = tile.local_alloc : !tile.smem<2x64x128xbf16, #shared1>
      %23 = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
      %24 = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
      %25 = tile.make_tensor_map %9 : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %26 = tile.local_alloc : !tile.smem<2x128x64xbf16, #shared>
      %27 = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
      %28 = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
      tile.warp_specialize regs(232) {
        scf.if %3 {
          tile.named_barrier arrive %c3_i32, 256
        }
        %29 = tile.range 0 to 128 : tensor<128xi32, #slice1>
        %30 = tile.splat %SK : tensor<128x128xi32, #mma>
        %31 = arith.cmpi sgt, %SK, %c0_i32 : i32
        %32 = arith.ceildivsi %SK, %c128_i32 : i32
        %33 = arith.maxsi %32, %c0_i32 : i32
        %34:4 = scf.for %arg0 = %pid to %6 step %7 iter_args(%arg1 = %c0_i32, %arg2 = %c0_i32, %arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32, i32, i32)  : i32 {
          %35 = arith.remsi %arg0, %4 : i32
          %36 = arith.divsi %arg0, %4 : i32
          %37 = arith.remsi %36, %H : i32
          %38 = arith.divsi %36, %H : i32
          %39 = arith.muli %35, %c128_i32 : i32
          %40 = arith.cmpi ne, %arg0, %pid : i32
          scf.if %40 {
            tile.barrier
            %64 = arith.cmpi eq, %arg1, %c0_i32 : i32
            %65 = arith.subi %arg1, %c1_i32 : i32
            %66 = arith.select %64, %c1_i32, %65 : i32
            tile.mbarrier_arrive %19[%66] : !tile.mbarrier<2>
          }
          tile.mbarrier_wait %18[%arg1], %arg2 : !tile.mbarrier<2>
          %41 = tile.local_load %17[%arg1] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
          %42:3 = scf.if %31 -> (tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>) {
            tile.named_barrier %1, 256
            tile.mbarrier_wait %23[%arg3], %arg4 : !tile.mbarrier<2>
            %64 = tile.local_load %22[%arg3] : !tile.smem<2x64x128xbf16, #shared1> -> tensor<64x128xbf16, #shared1>
            %65 = tile.dot %41, %64, %cst_4 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
            tile.named_barrier arrive %2, 256
            %66 = tile.warpgroup_wait 0, %65 : tensor<128x128xf32, #mma>
            tile.mbarrier_arrive %24[%arg3] : !tile.mbarrier<2>
            %67 = arith.cmpi sle, %14, %c0_i32 : i32
            %68 = scf.if %67 -> (tensor<128x128xf32, #mma>) {
              %104 = tile.splat %c0_i32 : tensor<128xi32, #slice1>
              %105 = arith.addi %29, %104 : tensor<128xi32, #slice1>
              %106 = tile.expand_dims %105 axis = 0 : tensor<128xi32, #slice1> -> tensor<1x128xi32, #mma>
              %107 = tile.broadcast %106 : tensor<1x128xi32, #mma> -> tensor<128x128xi32, #mma>
              %108 = arith.cmpi slt, %107, %30 : tensor<128x128xi32, #mma>
              %109 = arith.select %108, %66, %cst_3 : tensor<128x128xi1, #mma>, tensor<128x128xf32, #mma>
              scf.yield %109 : tensor<128x128xf32, #mma>
            } else {
              scf.yield %66 : tensor<128x128xf32, #mma>
            }
            %69 = tile.reduce max %68 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
            %70 = arith.mulf %69, %cst_5 : tensor<128xf32, #slice>
            %71 = scf.if %67 -> (tensor<128xf32, #slice>) {
              %104 = arith.cmpf oeq, %70, %cst_1 : tensor<128xf32, #slice>
              %105 = arith.select %104, %cst_2, %70 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
              scf.yield %105 : tensor<128xf32, #slice>
            } else {
              scf.yield %70 : tensor<128xf32, #slice>
            }
            %72 = arith.subf %cst_1, %71 : tensor<128xf32, #slice>
            %73 = math.exp2 %72 fastmath<afn> : tensor<128xf32, #slice>
            %74 = arith.negf %71 : tensor<128xf32, #slice>
            %75 = tile.expand_dims %74 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
            %76 = tile.broadcast %75 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
            %77 = math.fma %68, %cst_6, %76 : tensor<128x128xf32, #mma>
            %78 = tile.convert_layout %77 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
            %79 = math.exp2 %78 fastmath<afn> : tensor<128x128xf32, #dot_op>
            %80 = tile.reduce sum %79 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
            %81 = arith.mulf %73, %cst_2 : tensor<128xf32, #slice>
            %82 = tile.convert_layout %80 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
            %83 = arith.addf %81, %82 : tensor<128xf32, #slice>
            %84 = tile.expand_dims %73 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
            %85 = tile.broadcast %84 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
            %86 = arith.addi %arg3, %c1_i32 : i32
            %87 = arith.cmpi eq, %86, %c2_i32 : i32
            %88 = arith.select %87, %c0_i32, %86 : i32
            %89 = arith.extui %87 : i1 to i32
            %90 = arith.xori %arg4, %89 : i32
            %91 = arith.truncf %79 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
            %92 = arith.mulf %85, %cst_0 : tensor<128x64xf32, #mma>
            %93 = arith.maxsi %14, %c128_i32 : i32
            %94 = arith.subi %93, %c128_i32 : i32
            %95 = arith.ceildivsi %94, %c128_i32 : i32
            %96 = arith.muli %95, %c128_i32 : i32
            %97 = arith.addi %96, %c128_i32 : i32
            %98 = arith.minsi %SK, %97 : i32
            %99:8 = scf.for %arg5 = %c128_i32 to %98 step %c128_i32 iter_args(%arg6 = %92, %arg7 = %70, %arg8 = %83, %arg9 = %88, %arg10 = %90, %arg11 = %arg3, %arg12 = %arg4, %arg13 = %91) -> (tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>)  : i32 {
              tile.named_barrier %1, 256
              tile.mbarrier_wait %23[%arg9], %arg10 : !tile.mbarrier<2>
              %104 = tile.local_load %22[%arg9] : !tile.smem<2x64x128xbf16, #shared1> -> tensor<64x128xbf16, #shared1>
              %105 = tile.dot %41, %104, %cst_4 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
              tile.mbarrier_wait %27[%arg11], %arg12 : !tile.mbarrier<2>
              %106 = tile.local_load %26[%arg11] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
              %107 = tile.dot %arg13, %106, %arg6 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #shared> -> tensor<128x64xf32, #mma>
              tile.named_barrier arrive %2, 256
              %108 = tile.warpgroup_wait 1, %105 : tensor<128x128xf32, #mma>
              tile.mbarrier_arrive %24[%arg9] : !tile.mbarrier<2>
              %109 = tile.reduce max %108 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
              %110 = arith.mulf %109, %cst_5 : tensor<128xf32, #slice>
              %111 = arith.maximumf %arg7, %110 : tensor<128xf32, #slice>
              %112 = arith.subf %arg7, %111 : tensor<128xf32, #slice>
              %113 = math.exp2 %112 fastmath<afn> : tensor<128xf32, #slice>
              %114 = arith.negf %111 : tensor<128xf32, #slice>
              %115 = tile.expand_dims %114 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %116 = tile.broadcast %115 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
              %117 = math.fma %108, %cst_6, %116 : tensor<128x128xf32, #mma>
              %118 = tile.convert_layout %117 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
              %119 = math.exp2 %118 fastmath<afn> : tensor<128x128xf32, #dot_op>
              %120 = tile.reduce sum %119 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
              %121 = arith.mulf %arg8, %113 : tensor<128xf32, #slice>
              %122 = tile.convert_layout %120 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
              %123 = arith.addf %121, %122 : tensor<128xf32, #slice>
              %124 = tile.expand_dims %113 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %125 = tile.broadcast %124 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
              %126 = arith.addi %arg9, %c1_i32 : i32
              %127 = arith.cmpi eq, %126, %c2_i32 : i32
              %128 = arith.select %127, %c0_i32, %126 : i32
              %129 = arith.extui %127 : i1 to i32
              %130 = arith.xori %arg10, %129 : i32
              %131 = tile.warpgroup_wait 0, %107 : tensor<128x64xf32, #mma>
              tile.mbarrier_arrive %28[%arg11] : !tile.mbarrier<2>
              %132 = arith.truncf %119 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
              %133 = arith.mulf %131, %125 : tensor<128x64xf32, #mma>
              scf.yield %133, %111, %123, %128, %130, %arg9, %arg10, %132 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>
            }
            %100:8 = scf.for %arg5 = %98 to %SK step %c128_i32 iter_args(%arg6 = %99#0, %arg7 = %99#1, %arg8 = %99#2, %arg9 = %99#3, %arg10 = %99#4, %arg11 = %99#5, %arg12 = %99#6, %arg13 = %99#7) -> (tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>)  : i32 {
              tile.named_barrier %1, 256
              tile.mbarrier_wait %23[%arg9], %arg10 : !tile.mbarrier<2>
              %104 = tile.local_load %22[%arg9] : !tile.smem<2x64x128xbf16, #shared1> -> tensor<64x128xbf16, #shared1>
              %105 = tile.dot %41, %104, %cst_4 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
              tile.mbarrier_wait %27[%arg11], %arg12 : !tile.mbarrier<2>
              %106 = tile.local_load %26[%arg11] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
              %107 = tile.dot %arg13, %106, %arg6 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #shared> -> tensor<128x64xf32, #mma>
              tile.named_barrier arrive %2, 256
              %108 = tile.warpgroup_wait 1, %105 : tensor<128x128xf32, #mma>
              tile.mbarrier_arrive %24[%arg9] : !tile.mbarrier<2>
              %109 = tile.splat %arg5 : tensor<128xi32, #slice1>
              %110 = arith.addi %29, %109 : tensor<128xi32, #slice1>
              %111 = tile.expand_dims %110 axis = 0 : tensor<128xi32, #slice1> -> tensor<1x128xi32, #mma>
              %112 = tile.broadcast %111 : tensor<1x128xi32, #mma> -> tensor<128x128xi32, #mma>
              %113 = arith.cmpi slt, %112, %30 : tensor<128x128xi32, #mma>
              %114 = arith.select %113, %108, %cst_3 : tensor<128x128xi1, #mma>, tensor<128x128xf32, #mma>
              %115 = tile.reduce max %114 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
              %116 = arith.mulf %115, %cst_5 : tensor<128xf32, #slice>
              %117 = arith.maximumf %arg7, %116 : tensor<128xf32, #slice>
              %118 = arith.cmpf oeq, %117, %cst_1 : tensor<128xf32, #slice>
              %119 = arith.select %118, %cst_2, %117 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
              %120 = arith.subf %arg7, %119 : tensor<128xf32, #slice>
              %121 = math.exp2 %120 fastmath<afn> : tensor<128xf32, #slice>
              %122 = arith.negf %119 : tensor<128xf32, #slice>
              %123 = tile.expand_dims %122 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %124 = tile.broadcast %123 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
              %125 = math.fma %114, %cst_6, %124 : tensor<128x128xf32, #mma>
              %126 = tile.convert_layout %125 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
              %127 = math.exp2 %126 fastmath<afn> : tensor<128x128xf32, #dot_op>
              %128 = tile.reduce sum %127 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
              %129 = arith.mulf %arg8, %121 : tensor<128xf32, #slice>
              %130 = tile.convert_layout %128 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
              %131 = arith.addf %129, %130 : tensor<128xf32, #slice>
              %132 = tile.expand_dims %121 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %133 = tile.broadcast %132 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
              %134 = arith.addi %arg9, %c1_i32 : i32
              %135 = arith.cmpi eq, %134, %c2_i32 : i32
              %136 = arith.select %135, %c0_i32, %134 : i32
              %137 = arith.extui %135 : i1 to i32
              %138 = arith.xori %arg10, %137 : i32
              %139 = tile.warpgroup_wait 0, %107 : tensor<128x64xf32, #mma>
              tile.mbarrier_arrive %28[%arg11] : !tile.mbarrier<2>
              %140 = arith.truncf %127 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
              %141 = arith.mulf %139, %133 : tensor<128x64xf32, #mma>
              scf.yield %141, %117, %131, %136, %138, %arg9, %arg10, %140 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>
            }
            tile.named_barrier %1, 256
            tile.mbarrier_wait %27[%100#5], %100#6 : !tile.mbarrier<2>
            %101 = tile.local_load %26[%100#5] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
            %102 = tile.dot %100#7, %101, %100#0 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #shared> -> tensor<128x64xf32, #mma>
            tile.named_barrier arrive %2, 256
            %103 = tile.warpgroup_wait 0, %102 : tensor<128x64xf32, #mma>
            tile.mbarrier_arrive %28[%100#5] : !tile.mbarrier<2>
            scf.yield %103, %100#1, %100#2 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
          } else {
            scf.yield %cst_0, %cst_1, %cst_2 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
          }
          tile.warpgroup_wait 0
          %43 = arith.cmpf oeq, %42#2, %cst_2 : tensor<128xf32, #slice>
          %44 = arith.select %43, %cst_7, %42#2 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
          %45 = arith.divf %cst_7, %44 : tensor<128xf32, #slice>
          %46 = tile.expand_dims %45 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
          %47 = tile.broadcast %46 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
          %48 = arith.mulf %42#0, %47 : tensor<128x64xf32, #mma>
          %49 = arith.truncf %48 : tensor<128x64xf32, #mma> to tensor<128x64xbf16, #mma>
          tile.barrier
          tile.local_store %49, %17[%arg1] : tensor<128x64xbf16, #mma>, !tile.smem<2x128x64xbf16, #shared>
          tile.fence_async_shared
          tile.barrier
          tile.tma_store %15[%38, %37, %39, %c0_i32], %17[%arg1] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>
          %50 = math.log2 %42#2 : tensor<128xf32, #slice>
          %51 = arith.addf %42#1, %50 : tensor<128xf32, #slice>
          %52 = tile.convert_layout %51 : tensor<128xf32, #slice> -> tensor<128xf32, #blocked>
          %53 = arith.mulf %52, %cst : tensor<128xf32, #blocked>
          tile.store %53, %11[%38, %37, %39] : tensor<128xf32, #blocked>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
          %54 = arith.addi %arg1, %c1_i32 : i32
          %55 = arith.cmpi eq, %54, %c2_i32 : i32
          %56 = arith.select %55, %c0_i32, %54 : i32
          %57 = arith.extui %55 : i1 to i32
          %58 = arith.xori %arg2, %57 : i32
          %59 = arith.addi %arg3, %33 : i32
          %60 = arith.remui %59, %c2_i32 : i32
          %61 = arith.divui %59, %c2_i32 : i32
          %62 = arith.andi %61, %c1_i32 : i32
          %63 = arith.xori %arg4, %62 : i32
          scf.yield %56, %58, %60, %63 : i32, i32, i32, i32
        } {tile.persistent_loop}
        tile.tma_store_wait 0
      } partition warps(4) regs(40) {
        scf.if %20 {
          tile.mbarrier_wait %19[%c0_i32], %c1_i32 : !tile.mbarrier<2>
          tile.mbarrier_expect_tx %18[%c0_i32], 16384 : !tile.mbarrier<2>
          %34 = arith.remsi %pid, %4 : i32
          %35 = arith.divsi %pid, %4 : i32
          %36 = arith.remsi %35, %H : i32
          %37 = arith.divsi %35, %H : i32
          %38 = arith.muli %34, %c128_i32 : i32
          tile.tma_load %16[%37, %36, %38, %c0_i32], %17[%c0_i32], %18[%c0_i32] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
        }
        %29 = arith.cmpi sgt, %SK, %c0_i32 : i32
        %30 = arith.cmpi sgt, %SK, %c0_i32 : i32
        %31 = arith.ceildivsi %SK, %c128_i32 : i32
        %32 = arith.maxsi %31, %c0_i32 : i32
        %33:4 = scf.for %arg0 = %pid to %6 step %7 iter_args(%arg1 = %c0_i32, %arg2 = %c0_i32, %arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32, i32, i32)  : i32 {
          %34 = arith.divsi %arg0, %4 : i32
          %35 = arith.remsi %34, %H : i32
          %36 = arith.divsi %34, %H : i32
          %37 = arith.divsi %H, %HK : i32
          %38 = arith.divsi %35, %37 : i32
          scf.if %29 {
            %56 = arith.xori %arg4, %c1_i32 : i32
            tile.mbarrier_wait %24[%arg3], %56 : !tile.mbarrier<2>
            tile.mbarrier_expect_tx %23[%arg3], 16384 : !tile.mbarrier<2>
            tile.tma_load %21[%36, %38, %c0_i32, %c0_i32], %22[%arg3], %23[%arg3] : !tile.tensor_map<1x1x64x128xbf16, #shared1>, !tile.smem<2x64x128xbf16, #shared1>, !tile.mbarrier<2>
            tile.mbarrier_wait %28[%arg3], %56 : !tile.mbarrier<2>
            tile.mbarrier_expect_tx %27[%arg3], 16384 : !tile.mbarrier<2>
            tile.tma_load %25[%36, %38, %c0_i32, %c0_i32], %26[%arg3], %27[%arg3] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
          }
          scf.if %30 {
            %56 = arith.addi %arg3, %c1_i32 : i32
            %57 = arith.cmpi eq, %56, %c2_i32 : i32
            %58 = arith.select %57, %c0_i32, %56 : i32
            %59 = arith.extui %57 : i1 to i32
            %60 = arith.xori %arg4, %59 : i32
            %61 = arith.addi %arg3, %c1_i32 : i32
            %62 = arith.cmpi eq, %61, %c2_i32 : i32
            %63 = arith.select %62, %c0_i32, %61 : i32
            %64 = arith.extui %62 : i1 to i32
            %65 = arith.xori %arg4, %64 : i32
            %66 = arith.cmpi sgt, %SK, %c128_i32 : i32
            scf.if %66 {
              %68 = arith.xori %65, %c1_i32 : i32
              tile.mbarrier_wait %24[%63], %68 : !tile.mbarrier<2>
              tile.mbarrier_expect_tx %23[%63], 16384 : !tile.mbarrier<2>
              tile.tma_load %21[%36, %38, %c0_i32, %c128_i32], %22[%63], %23[%63] : !tile.tensor_map<1x1x64x128xbf16, #shared1>, !tile.smem<2x64x128xbf16, #shared1>, !tile.mbarrier<2>
              tile.mbarrier_wait %28[%63], %68 : !tile.mbarrier<2>
              tile.mbarrier_expect_tx %27[%63], 16384 : !tile.mbarrier<2>
              tile.tma_load %25[%36, %38, %c128_i32, %c0_i32], %26[%63], %27[%63] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
            }
            %67:2 = scf.for %arg5 = %c128_i32 to %SK step %c128_i32 iter_args(%arg6 = %58, %arg7 = %60) -> (i32, i32)  : i32 {
              %68 = arith.addi %arg6, %c1_i32 : i32
              %69 = arith.cmpi eq, %68, %c2_i32 : i32
              %70 = arith.select %69, %c0_i32, %68 : i32
              %71 = arith.extui %69 : i1 to i32
              %72 = arith.xori %arg7, %71 : i32
              %73 = arith.addi %arg5, %c128_i32 : i32
              %74 = arith.addi %arg6, %c1_i32 : i32
              %75 = arith.cmpi eq, %74, %c2_i32 : i32
              %76 = arith.select %75, %c0_i32, %74 : i32
              %77 = arith.extui %75 : i1 to i32
              %78 = arith.xori %arg7, %77 : i32
              %79 = arith.cmpi slt, %73, %SK : i32
              scf.if %79 {
                %80 = arith.xori %78, %c1_i32 : i32
                tile.mbarrier_wait %24[%76], %80 : !tile.mbarrier<2>
                tile.mbarrier_expect_tx %23[%76], 16384 : !tile.mbarrier<2>
                tile.tma_load %21[%36, %38, %c0_i32, %73], %22[%76], %23[%76] : !tile.tensor_map<1x1x64x128xbf16, #shared1>, !tile.smem<2x64x128xbf16, #shared1>, !tile.mbarrier<2>
                tile.mbarrier_wait %28[%76], %80 : !tile.mbarrier<2>
                tile.mbarrier_expect_tx %27[%76], 16384 : !tile.mbarrier<2>
                tile.tma_load %25[%36, %38, %73, %c0_i32], %26[%76], %27[%76] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
              }
              scf.yield %70, %72 : i32, i32
            }
          }
          %39 = arith.addi %arg1, %c1_i32 : i32
          %40 = arith.cmpi eq, %39, %c2_i32 : i32
          %41 = arith.select %40, %c0_i32, %39 : i32
          %42 = arith.extui %40 : i1 to i32
          %43 = arith.xori %arg2, %42 : i32
          %44 = arith.addi %arg0, %7 : i32
          %45 = arith.addi %arg1, %c1_i32 : i32
          %46 = arith.cmpi eq, %45, %c2_i32 : i32
          %47 = arith.select %46, %c0_i32, %45 : i32
          %48 = arith.extui %46 : i1 to i32
          %49 = arith.xori %arg2, %48 : i32
          %50 = arith.cmpi slt, %44, %6 : i32
          scf.if %50 {
            %56 = arith.xori %49, %c1_i32 : i32
            tile.mbarrier_wait %19[%47], %56 : !tile.mbarrier<2>
            tile.mbarrier_expect_tx %18[%47], 16384 : !tile.mbarrier<2>
            %57 = arith.remsi %44, %4 : i32
            %58 = arith.divsi %44, %4 : i32
            %59 = arith.remsi %58, %H : i32
            %60 = arith.divsi %58, %H : i32
            %61 = arith.muli %57, %c128_i32 : i32
            // expected-error @+2 {{while the tile.tma_store at}}
            // expected-note @+1 {{on the path}}
            tile.tma_load %16[%60, %59, %61, %c0_i32], %17[%47], %18[%47] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
          }
          %51 = arith.addi %arg3, %32 : i32
          %52 = arith.remui %51, %c2_i32 : i32
          %53 = arith.divui %51, %c2_i32 : i32
          %54 = arith.andi %53, %c1_i32 : i32
          %55 = arith.xori %arg4, %54 : i32
          scf.yield %41, %43, %52, %55 : i32, i32, i32, i32
        }
      }
      tile.return
    }
  }
}


// -----

// Planted bug: O written into Q's stage before every consumer warp has retired its reads of Q (no barrier before the write).
#blocked = #tile.blocked<sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [8], order = [0]>
#mma = #tile.mma<warpsPerCTA = [8, 1]>
#shared = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 64>
#shared1 = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1], segment = 64>
#dot_op = #tile.dot_operand<opIdx = 0, parent = #mma, kWidth = 2>
#slice = #tile.slice<dim = 1, parent = #mma>
#slice1 = #tile.slice<dim = 0, parent = #mma>
#slice2 = #tile.slice<dim = 1, parent = #dot_op>
module attributes {gpu.container_module} {
  gpu.module @attention_bf16_d64 [#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx86">] {
    tile.kernel @attention_bf16_d64(%Q: !tile.ptr<bf16> {tile.align = 16 : i64}, %K: !tile.ptr<bf16> {tile.align = 16 : i64}, %V: !tile.ptr<bf16> {tile.align = 16 : i64}, %O: !tile.ptr<bf16> {tile.align = 16 : i64}, %LSE: !tile.ptr<f32>, %B: i32, %H: i32, %HK: i32, %SQ: i32, %SK: i32, %q_batch: i32 {tile.divisibility = 8 : i64}, %q_head: i32 {tile.divisibility = 8 : i64}, %kv_batch: i32 {tile.divisibility = 8 : i64}, %kv_head: i32 {tile.divisibility = 8 : i64}, %lse_batch: i32) grid(ceildiv(%SQ, 128) * %H * %B) warps(8) persistent schedule<stages = 2, tma = true, async_wgmma = true, warp_specialize = true, producer_regs = 40, consumer_regs = 232, persistent = true, tma_store = true, pingpong = true, split_loops = true> {
      %c2_i32 = arith.constant 2 : i32
      %cst = arith.constant dense<0.693147182> : tensor<128xf32, #blocked>
      %cst_0 = arith.constant dense<0.000000e+00> : tensor<128x64xf32, #mma>
      %cst_1 = arith.constant dense<0xFF800000> : tensor<128xf32, #slice>
      %cst_2 = arith.constant dense<0.000000e+00> : tensor<128xf32, #slice>
      %cst_3 = arith.constant dense<0xFF800000> : tensor<128x128xf32, #mma>
      %cst_4 = arith.constant dense<0.000000e+00> : tensor<128x128xf32, #mma>
      %cst_5 = arith.constant dense<0.180336878> : tensor<128xf32, #slice>
      %cst_6 = arith.constant dense<0.180336878> : tensor<128x128xf32, #mma>
      %cst_7 = arith.constant dense<1.000000e+00> : tensor<128xf32, #slice>
      %c0_i32 = arith.constant 0 : i32
      %c128_i32 = arith.constant 128 : i32
      %c1_i32 = arith.constant 1 : i32
      %c4_i32 = arith.constant 4 : i32
      %c3_i32 = arith.constant 3 : i32
      %0 = tile.warpgroup_id
      %1 = arith.addi %0, %c3_i32 : i32
      %2 = arith.subi %c4_i32, %0 : i32
      %3 = arith.cmpi eq, %0, %c1_i32 : i32
      %4 = arith.ceildivsi %SQ, %c128_i32 : i32
      %5 = arith.muli %4, %H : i32
      %6 = arith.muli %5, %B : i32
      %pid = tile.program_id x
      %7 = tile.num_programs x
      %8 = tile.make_view %Q[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
      %9 = tile.make_view %V[%B, %HK, %SK, 64] strides [%kv_batch, %kv_head, 64, 1] : !tile.ptr<bf16>
      %10 = tile.make_view %O[%B, %H, %SQ, 64] strides [%q_batch, %q_head, 64, 1] : !tile.ptr<bf16>
      %11 = tile.make_view %LSE[%B, %H, %SQ] strides [%lse_batch, %SQ, 1] : !tile.ptr<f32>
      %12 = tile.make_view %K[%B, %HK, 64, %SK] strides [%kv_batch, %kv_head, 1, 64] : !tile.ptr<bf16>
      %13 = arith.divsi %SK, %c128_i32 : i32
      %14 = arith.muli %13, %c128_i32 : i32
      %15 = tile.make_tensor_map %10 : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %16 = tile.make_tensor_map %8 : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %17 = tile.local_alloc : !tile.smem<2x128x64xbf16, #shared>
      %18 = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
      %19 = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
      %20 = arith.cmpi slt, %pid, %6 : i32
      %21 = tile.make_tensor_map %12 : !tile.view<?x?x64x?xbf16, strides = [?, ?, 1, 64]> -> !tile.tensor_map<1x1x64x128xbf16, #shared1>
      %22 = tile.local_alloc : !tile.smem<2x64x128xbf16, #shared1>
      %23 = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
      %24 = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
      %25 = tile.make_tensor_map %9 : !tile.view<?x?x?x64xbf16, strides = [?, ?, 64, 1]> -> !tile.tensor_map<1x1x128x64xbf16, #shared>
      %26 = tile.local_alloc : !tile.smem<2x128x64xbf16, #shared>
      %27 = tile.mbarrier_alloc count 1 : !tile.mbarrier<2>
      %28 = tile.mbarrier_alloc count 8 : !tile.mbarrier<2>
      tile.warp_specialize regs(232) {
        scf.if %3 {
          tile.named_barrier arrive %c3_i32, 256
        }
        %29 = tile.range 0 to 128 : tensor<128xi32, #slice1>
        %30 = tile.splat %SK : tensor<128x128xi32, #mma>
        %31 = arith.cmpi sgt, %SK, %c0_i32 : i32
        %32 = arith.ceildivsi %SK, %c128_i32 : i32
        %33 = arith.maxsi %32, %c0_i32 : i32
        %34:4 = scf.for %arg0 = %pid to %6 step %7 iter_args(%arg1 = %c0_i32, %arg2 = %c0_i32, %arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32, i32, i32)  : i32 {
          %35 = arith.remsi %arg0, %4 : i32
          %36 = arith.divsi %arg0, %4 : i32
          %37 = arith.remsi %36, %H : i32
          %38 = arith.divsi %36, %H : i32
          %39 = arith.muli %35, %c128_i32 : i32
          %40 = arith.cmpi ne, %arg0, %pid : i32
          scf.if %40 {
            tile.tma_store_wait 0
            tile.barrier
            %64 = arith.cmpi eq, %arg1, %c0_i32 : i32
            %65 = arith.subi %arg1, %c1_i32 : i32
            %66 = arith.select %64, %c1_i32, %65 : i32
            tile.mbarrier_arrive %19[%66] : !tile.mbarrier<2>
          }
          tile.mbarrier_wait %18[%arg1], %arg2 : !tile.mbarrier<2>
          %41 = tile.local_load %17[%arg1] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
          %42:3 = scf.if %31 -> (tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>) {
            tile.named_barrier %1, 256
            tile.mbarrier_wait %23[%arg3], %arg4 : !tile.mbarrier<2>
            %64 = tile.local_load %22[%arg3] : !tile.smem<2x64x128xbf16, #shared1> -> tensor<64x128xbf16, #shared1>
            %65 = tile.dot %41, %64, %cst_4 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
            tile.named_barrier arrive %2, 256
            %66 = tile.warpgroup_wait 0, %65 : tensor<128x128xf32, #mma>
            tile.mbarrier_arrive %24[%arg3] : !tile.mbarrier<2>
            %67 = arith.cmpi sle, %14, %c0_i32 : i32
            %68 = scf.if %67 -> (tensor<128x128xf32, #mma>) {
              %104 = tile.splat %c0_i32 : tensor<128xi32, #slice1>
              %105 = arith.addi %29, %104 : tensor<128xi32, #slice1>
              %106 = tile.expand_dims %105 axis = 0 : tensor<128xi32, #slice1> -> tensor<1x128xi32, #mma>
              %107 = tile.broadcast %106 : tensor<1x128xi32, #mma> -> tensor<128x128xi32, #mma>
              %108 = arith.cmpi slt, %107, %30 : tensor<128x128xi32, #mma>
              %109 = arith.select %108, %66, %cst_3 : tensor<128x128xi1, #mma>, tensor<128x128xf32, #mma>
              scf.yield %109 : tensor<128x128xf32, #mma>
            } else {
              scf.yield %66 : tensor<128x128xf32, #mma>
            }
            %69 = tile.reduce max %68 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
            %70 = arith.mulf %69, %cst_5 : tensor<128xf32, #slice>
            %71 = scf.if %67 -> (tensor<128xf32, #slice>) {
              %104 = arith.cmpf oeq, %70, %cst_1 : tensor<128xf32, #slice>
              %105 = arith.select %104, %cst_2, %70 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
              scf.yield %105 : tensor<128xf32, #slice>
            } else {
              scf.yield %70 : tensor<128xf32, #slice>
            }
            %72 = arith.subf %cst_1, %71 : tensor<128xf32, #slice>
            %73 = math.exp2 %72 fastmath<afn> : tensor<128xf32, #slice>
            %74 = arith.negf %71 : tensor<128xf32, #slice>
            %75 = tile.expand_dims %74 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
            %76 = tile.broadcast %75 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
            %77 = math.fma %68, %cst_6, %76 : tensor<128x128xf32, #mma>
            %78 = tile.convert_layout %77 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
            %79 = math.exp2 %78 fastmath<afn> : tensor<128x128xf32, #dot_op>
            %80 = tile.reduce sum %79 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
            %81 = arith.mulf %73, %cst_2 : tensor<128xf32, #slice>
            %82 = tile.convert_layout %80 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
            %83 = arith.addf %81, %82 : tensor<128xf32, #slice>
            %84 = tile.expand_dims %73 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
            %85 = tile.broadcast %84 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
            %86 = arith.addi %arg3, %c1_i32 : i32
            %87 = arith.cmpi eq, %86, %c2_i32 : i32
            %88 = arith.select %87, %c0_i32, %86 : i32
            %89 = arith.extui %87 : i1 to i32
            %90 = arith.xori %arg4, %89 : i32
            %91 = arith.truncf %79 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
            %92 = arith.mulf %85, %cst_0 : tensor<128x64xf32, #mma>
            %93 = arith.maxsi %14, %c128_i32 : i32
            %94 = arith.subi %93, %c128_i32 : i32
            %95 = arith.ceildivsi %94, %c128_i32 : i32
            %96 = arith.muli %95, %c128_i32 : i32
            %97 = arith.addi %96, %c128_i32 : i32
            %98 = arith.minsi %SK, %97 : i32
            %99:8 = scf.for %arg5 = %c128_i32 to %98 step %c128_i32 iter_args(%arg6 = %92, %arg7 = %70, %arg8 = %83, %arg9 = %88, %arg10 = %90, %arg11 = %arg3, %arg12 = %arg4, %arg13 = %91) -> (tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>)  : i32 {
              tile.named_barrier %1, 256
              tile.mbarrier_wait %23[%arg9], %arg10 : !tile.mbarrier<2>
              %104 = tile.local_load %22[%arg9] : !tile.smem<2x64x128xbf16, #shared1> -> tensor<64x128xbf16, #shared1>
              %105 = tile.dot %41, %104, %cst_4 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
              tile.mbarrier_wait %27[%arg11], %arg12 : !tile.mbarrier<2>
              %106 = tile.local_load %26[%arg11] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
              %107 = tile.dot %arg13, %106, %arg6 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #shared> -> tensor<128x64xf32, #mma>
              tile.named_barrier arrive %2, 256
              %108 = tile.warpgroup_wait 1, %105 : tensor<128x128xf32, #mma>
              tile.mbarrier_arrive %24[%arg9] : !tile.mbarrier<2>
              %109 = tile.reduce max %108 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
              %110 = arith.mulf %109, %cst_5 : tensor<128xf32, #slice>
              %111 = arith.maximumf %arg7, %110 : tensor<128xf32, #slice>
              %112 = arith.subf %arg7, %111 : tensor<128xf32, #slice>
              %113 = math.exp2 %112 fastmath<afn> : tensor<128xf32, #slice>
              %114 = arith.negf %111 : tensor<128xf32, #slice>
              %115 = tile.expand_dims %114 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %116 = tile.broadcast %115 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
              %117 = math.fma %108, %cst_6, %116 : tensor<128x128xf32, #mma>
              %118 = tile.convert_layout %117 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
              %119 = math.exp2 %118 fastmath<afn> : tensor<128x128xf32, #dot_op>
              %120 = tile.reduce sum %119 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
              %121 = arith.mulf %arg8, %113 : tensor<128xf32, #slice>
              %122 = tile.convert_layout %120 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
              %123 = arith.addf %121, %122 : tensor<128xf32, #slice>
              %124 = tile.expand_dims %113 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %125 = tile.broadcast %124 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
              %126 = arith.addi %arg9, %c1_i32 : i32
              %127 = arith.cmpi eq, %126, %c2_i32 : i32
              %128 = arith.select %127, %c0_i32, %126 : i32
              %129 = arith.extui %127 : i1 to i32
              %130 = arith.xori %arg10, %129 : i32
              %131 = tile.warpgroup_wait 0, %107 : tensor<128x64xf32, #mma>
              tile.mbarrier_arrive %28[%arg11] : !tile.mbarrier<2>
              %132 = arith.truncf %119 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
              %133 = arith.mulf %131, %125 : tensor<128x64xf32, #mma>
              scf.yield %133, %111, %123, %128, %130, %arg9, %arg10, %132 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>
            }
            %100:8 = scf.for %arg5 = %98 to %SK step %c128_i32 iter_args(%arg6 = %99#0, %arg7 = %99#1, %arg8 = %99#2, %arg9 = %99#3, %arg10 = %99#4, %arg11 = %99#5, %arg12 = %99#6, %arg13 = %99#7) -> (tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>)  : i32 {
              tile.named_barrier %1, 256
              tile.mbarrier_wait %23[%arg9], %arg10 : !tile.mbarrier<2>
              %104 = tile.local_load %22[%arg9] : !tile.smem<2x64x128xbf16, #shared1> -> tensor<64x128xbf16, #shared1>
              %105 = tile.dot %41, %104, %cst_4 : tensor<128x64xbf16, #shared>, tensor<64x128xbf16, #shared1> -> tensor<128x128xf32, #mma>
              tile.mbarrier_wait %27[%arg11], %arg12 : !tile.mbarrier<2>
              %106 = tile.local_load %26[%arg11] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
              %107 = tile.dot %arg13, %106, %arg6 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #shared> -> tensor<128x64xf32, #mma>
              tile.named_barrier arrive %2, 256
              %108 = tile.warpgroup_wait 1, %105 : tensor<128x128xf32, #mma>
              tile.mbarrier_arrive %24[%arg9] : !tile.mbarrier<2>
              %109 = tile.splat %arg5 : tensor<128xi32, #slice1>
              %110 = arith.addi %29, %109 : tensor<128xi32, #slice1>
              %111 = tile.expand_dims %110 axis = 0 : tensor<128xi32, #slice1> -> tensor<1x128xi32, #mma>
              %112 = tile.broadcast %111 : tensor<1x128xi32, #mma> -> tensor<128x128xi32, #mma>
              %113 = arith.cmpi slt, %112, %30 : tensor<128x128xi32, #mma>
              %114 = arith.select %113, %108, %cst_3 : tensor<128x128xi1, #mma>, tensor<128x128xf32, #mma>
              %115 = tile.reduce max %114 axis = 1 : tensor<128x128xf32, #mma> -> tensor<128xf32, #slice>
              %116 = arith.mulf %115, %cst_5 : tensor<128xf32, #slice>
              %117 = arith.maximumf %arg7, %116 : tensor<128xf32, #slice>
              %118 = arith.cmpf oeq, %117, %cst_1 : tensor<128xf32, #slice>
              %119 = arith.select %118, %cst_2, %117 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
              %120 = arith.subf %arg7, %119 : tensor<128xf32, #slice>
              %121 = math.exp2 %120 fastmath<afn> : tensor<128xf32, #slice>
              %122 = arith.negf %119 : tensor<128xf32, #slice>
              %123 = tile.expand_dims %122 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %124 = tile.broadcast %123 : tensor<128x1xf32, #mma> -> tensor<128x128xf32, #mma>
              %125 = math.fma %114, %cst_6, %124 : tensor<128x128xf32, #mma>
              %126 = tile.convert_layout %125 : tensor<128x128xf32, #mma> -> tensor<128x128xf32, #dot_op>
              %127 = math.exp2 %126 fastmath<afn> : tensor<128x128xf32, #dot_op>
              %128 = tile.reduce sum %127 axis = 1 : tensor<128x128xf32, #dot_op> -> tensor<128xf32, #slice2>
              %129 = arith.mulf %arg8, %121 : tensor<128xf32, #slice>
              %130 = tile.convert_layout %128 : tensor<128xf32, #slice2> -> tensor<128xf32, #slice>
              %131 = arith.addf %129, %130 : tensor<128xf32, #slice>
              %132 = tile.expand_dims %121 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
              %133 = tile.broadcast %132 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
              %134 = arith.addi %arg9, %c1_i32 : i32
              %135 = arith.cmpi eq, %134, %c2_i32 : i32
              %136 = arith.select %135, %c0_i32, %134 : i32
              %137 = arith.extui %135 : i1 to i32
              %138 = arith.xori %arg10, %137 : i32
              %139 = tile.warpgroup_wait 0, %107 : tensor<128x64xf32, #mma>
              tile.mbarrier_arrive %28[%arg11] : !tile.mbarrier<2>
              %140 = arith.truncf %127 : tensor<128x128xf32, #dot_op> to tensor<128x128xbf16, #dot_op>
              %141 = arith.mulf %139, %133 : tensor<128x64xf32, #mma>
              scf.yield %141, %117, %131, %136, %138, %arg9, %arg10, %140 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>, i32, i32, i32, i32, tensor<128x128xbf16, #dot_op>
            }
            tile.named_barrier %1, 256
            tile.mbarrier_wait %27[%100#5], %100#6 : !tile.mbarrier<2>
            %101 = tile.local_load %26[%100#5] : !tile.smem<2x128x64xbf16, #shared> -> tensor<128x64xbf16, #shared>
            %102 = tile.dot %100#7, %101, %100#0 : tensor<128x128xbf16, #dot_op>, tensor<128x64xbf16, #shared> -> tensor<128x64xf32, #mma>
            tile.named_barrier arrive %2, 256
            %103 = tile.warpgroup_wait 0, %102 : tensor<128x64xf32, #mma>
            tile.mbarrier_arrive %28[%100#5] : !tile.mbarrier<2>
            scf.yield %103, %100#1, %100#2 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
          } else {
            scf.yield %cst_0, %cst_1, %cst_2 : tensor<128x64xf32, #mma>, tensor<128xf32, #slice>, tensor<128xf32, #slice>
          }
          tile.warpgroup_wait 0
          %43 = arith.cmpf oeq, %42#2, %cst_2 : tensor<128xf32, #slice>
          %44 = arith.select %43, %cst_7, %42#2 : tensor<128xi1, #slice>, tensor<128xf32, #slice>
          %45 = arith.divf %cst_7, %44 : tensor<128xf32, #slice>
          %46 = tile.expand_dims %45 axis = 1 : tensor<128xf32, #slice> -> tensor<128x1xf32, #mma>
          %47 = tile.broadcast %46 : tensor<128x1xf32, #mma> -> tensor<128x64xf32, #mma>
          %48 = arith.mulf %42#0, %47 : tensor<128x64xf32, #mma>
          %49 = arith.truncf %48 : tensor<128x64xf32, #mma> to tensor<128x64xbf16, #mma>
          // expected-error @+2 {{may still read it}}
          // expected-note @+1 {{on the path}}
          tile.local_store %49, %17[%arg1] : tensor<128x64xbf16, #mma>, !tile.smem<2x128x64xbf16, #shared>
          tile.fence_async_shared
          tile.barrier
          tile.tma_store %15[%38, %37, %39, %c0_i32], %17[%arg1] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>
          %50 = math.log2 %42#2 : tensor<128xf32, #slice>
          %51 = arith.addf %42#1, %50 : tensor<128xf32, #slice>
          %52 = tile.convert_layout %51 : tensor<128xf32, #slice> -> tensor<128xf32, #blocked>
          %53 = arith.mulf %52, %cst : tensor<128xf32, #blocked>
          tile.store %53, %11[%38, %37, %39] : tensor<128xf32, #blocked>, !tile.view<?x?x?xf32, strides = [?, ?, 1]>
          %54 = arith.addi %arg1, %c1_i32 : i32
          %55 = arith.cmpi eq, %54, %c2_i32 : i32
          %56 = arith.select %55, %c0_i32, %54 : i32
          %57 = arith.extui %55 : i1 to i32
          %58 = arith.xori %arg2, %57 : i32
          %59 = arith.addi %arg3, %33 : i32
          %60 = arith.remui %59, %c2_i32 : i32
          %61 = arith.divui %59, %c2_i32 : i32
          %62 = arith.andi %61, %c1_i32 : i32
          %63 = arith.xori %arg4, %62 : i32
          scf.yield %56, %58, %60, %63 : i32, i32, i32, i32
        } {tile.persistent_loop}
        tile.tma_store_wait 0
      } partition warps(4) regs(40) {
        scf.if %20 {
          tile.mbarrier_wait %19[%c0_i32], %c1_i32 : !tile.mbarrier<2>
          tile.mbarrier_expect_tx %18[%c0_i32], 16384 : !tile.mbarrier<2>
          %34 = arith.remsi %pid, %4 : i32
          %35 = arith.divsi %pid, %4 : i32
          %36 = arith.remsi %35, %H : i32
          %37 = arith.divsi %35, %H : i32
          %38 = arith.muli %34, %c128_i32 : i32
          tile.tma_load %16[%37, %36, %38, %c0_i32], %17[%c0_i32], %18[%c0_i32] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
        }
        %29 = arith.cmpi sgt, %SK, %c0_i32 : i32
        %30 = arith.cmpi sgt, %SK, %c0_i32 : i32
        %31 = arith.ceildivsi %SK, %c128_i32 : i32
        %32 = arith.maxsi %31, %c0_i32 : i32
        %33:4 = scf.for %arg0 = %pid to %6 step %7 iter_args(%arg1 = %c0_i32, %arg2 = %c0_i32, %arg3 = %c0_i32, %arg4 = %c0_i32) -> (i32, i32, i32, i32)  : i32 {
          %34 = arith.divsi %arg0, %4 : i32
          %35 = arith.remsi %34, %H : i32
          %36 = arith.divsi %34, %H : i32
          %37 = arith.divsi %H, %HK : i32
          %38 = arith.divsi %35, %37 : i32
          scf.if %29 {
            %56 = arith.xori %arg4, %c1_i32 : i32
            tile.mbarrier_wait %24[%arg3], %56 : !tile.mbarrier<2>
            tile.mbarrier_expect_tx %23[%arg3], 16384 : !tile.mbarrier<2>
            tile.tma_load %21[%36, %38, %c0_i32, %c0_i32], %22[%arg3], %23[%arg3] : !tile.tensor_map<1x1x64x128xbf16, #shared1>, !tile.smem<2x64x128xbf16, #shared1>, !tile.mbarrier<2>
            tile.mbarrier_wait %28[%arg3], %56 : !tile.mbarrier<2>
            tile.mbarrier_expect_tx %27[%arg3], 16384 : !tile.mbarrier<2>
            tile.tma_load %25[%36, %38, %c0_i32, %c0_i32], %26[%arg3], %27[%arg3] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
          }
          scf.if %30 {
            %56 = arith.addi %arg3, %c1_i32 : i32
            %57 = arith.cmpi eq, %56, %c2_i32 : i32
            %58 = arith.select %57, %c0_i32, %56 : i32
            %59 = arith.extui %57 : i1 to i32
            %60 = arith.xori %arg4, %59 : i32
            %61 = arith.addi %arg3, %c1_i32 : i32
            %62 = arith.cmpi eq, %61, %c2_i32 : i32
            %63 = arith.select %62, %c0_i32, %61 : i32
            %64 = arith.extui %62 : i1 to i32
            %65 = arith.xori %arg4, %64 : i32
            %66 = arith.cmpi sgt, %SK, %c128_i32 : i32
            scf.if %66 {
              %68 = arith.xori %65, %c1_i32 : i32
              tile.mbarrier_wait %24[%63], %68 : !tile.mbarrier<2>
              tile.mbarrier_expect_tx %23[%63], 16384 : !tile.mbarrier<2>
              tile.tma_load %21[%36, %38, %c0_i32, %c128_i32], %22[%63], %23[%63] : !tile.tensor_map<1x1x64x128xbf16, #shared1>, !tile.smem<2x64x128xbf16, #shared1>, !tile.mbarrier<2>
              tile.mbarrier_wait %28[%63], %68 : !tile.mbarrier<2>
              tile.mbarrier_expect_tx %27[%63], 16384 : !tile.mbarrier<2>
              tile.tma_load %25[%36, %38, %c128_i32, %c0_i32], %26[%63], %27[%63] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
            }
            %67:2 = scf.for %arg5 = %c128_i32 to %SK step %c128_i32 iter_args(%arg6 = %58, %arg7 = %60) -> (i32, i32)  : i32 {
              %68 = arith.addi %arg6, %c1_i32 : i32
              %69 = arith.cmpi eq, %68, %c2_i32 : i32
              %70 = arith.select %69, %c0_i32, %68 : i32
              %71 = arith.extui %69 : i1 to i32
              %72 = arith.xori %arg7, %71 : i32
              %73 = arith.addi %arg5, %c128_i32 : i32
              %74 = arith.addi %arg6, %c1_i32 : i32
              %75 = arith.cmpi eq, %74, %c2_i32 : i32
              %76 = arith.select %75, %c0_i32, %74 : i32
              %77 = arith.extui %75 : i1 to i32
              %78 = arith.xori %arg7, %77 : i32
              %79 = arith.cmpi slt, %73, %SK : i32
              scf.if %79 {
                %80 = arith.xori %78, %c1_i32 : i32
                tile.mbarrier_wait %24[%76], %80 : !tile.mbarrier<2>
                tile.mbarrier_expect_tx %23[%76], 16384 : !tile.mbarrier<2>
                tile.tma_load %21[%36, %38, %c0_i32, %73], %22[%76], %23[%76] : !tile.tensor_map<1x1x64x128xbf16, #shared1>, !tile.smem<2x64x128xbf16, #shared1>, !tile.mbarrier<2>
                tile.mbarrier_wait %28[%76], %80 : !tile.mbarrier<2>
                tile.mbarrier_expect_tx %27[%76], 16384 : !tile.mbarrier<2>
                tile.tma_load %25[%36, %38, %73, %c0_i32], %26[%76], %27[%76] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
              }
              scf.yield %70, %72 : i32, i32
            }
          }
          %39 = arith.addi %arg1, %c1_i32 : i32
          %40 = arith.cmpi eq, %39, %c2_i32 : i32
          %41 = arith.select %40, %c0_i32, %39 : i32
          %42 = arith.extui %40 : i1 to i32
          %43 = arith.xori %arg2, %42 : i32
          %44 = arith.addi %arg0, %7 : i32
          %45 = arith.addi %arg1, %c1_i32 : i32
          %46 = arith.cmpi eq, %45, %c2_i32 : i32
          %47 = arith.select %46, %c0_i32, %45 : i32
          %48 = arith.extui %46 : i1 to i32
          %49 = arith.xori %arg2, %48 : i32
          %50 = arith.cmpi slt, %44, %6 : i32
          scf.if %50 {
            %56 = arith.xori %49, %c1_i32 : i32
            tile.mbarrier_wait %19[%47], %56 : !tile.mbarrier<2>
            tile.mbarrier_expect_tx %18[%47], 16384 : !tile.mbarrier<2>
            %57 = arith.remsi %44, %4 : i32
            %58 = arith.divsi %44, %4 : i32
            %59 = arith.remsi %58, %H : i32
            %60 = arith.divsi %58, %H : i32
            %61 = arith.muli %57, %c128_i32 : i32
            tile.tma_load %16[%60, %59, %61, %c0_i32], %17[%47], %18[%47] : !tile.tensor_map<1x1x128x64xbf16, #shared>, !tile.smem<2x128x64xbf16, #shared>, !tile.mbarrier<2>
          }
          %51 = arith.addi %arg3, %32 : i32
          %52 = arith.remui %51, %c2_i32 : i32
          %53 = arith.divui %51, %c2_i32 : i32
          %54 = arith.andi %53, %c1_i32 : i32
          %55 = arith.xori %arg4, %54 : i32
          scf.yield %41, %43, %52, %55 : i32, i32, i32, i32
        }
      }
      tile.return
    }
  }
}

