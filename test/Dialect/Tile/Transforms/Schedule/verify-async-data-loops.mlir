// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-verify-async{max-steps=2000})))' --remarks-filter=tile-verify-async --remark-format=emitRemark -o /dev/null

// Loops bounded by loaded data (a block list's count of key blocks, read
// with tile.load_scalar): the model's memory gives element 2 the count 131.
// A path that runs past an eighth of max-steps as written runs again with
// such loops shortened (131 iterations run 19), from that path on.

// A hand-off over the loaded count, each side looping over it: the sides
// agree when shortened, and every path verifies.
gpu.module @data_count [#nvvm.target<chip = "sm_90a">] {
  // expected-remark @+1 {{asynchronous protocol verified on 34 of 34 paths}}
  tile.kernel @k(%counts: !tile.ptr<i32>, %e: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %o = tile.make_view %counts[%e] strides [1] : !tile.ptr<i32>
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 4 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      %n = tile.load_scalar %o[%c2] : !tile.view<?xi32, strides = [1]> -> i32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        tile.mbarrier_wait %full[%c0], %ph : !tile.mbarrier<1>
        tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    } partition warps(4) regs(40) {
      %n = tile.load_scalar %o[%c2] : !tile.view<?xi32, strides = [1]> -> i32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        %free = arith.xori %ph, %c1 : i32
        tile.mbarrier_wait %empty[%c0], %free : !tile.mbarrier<1>
        tile.mbarrier_arrive %full[%c0] : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    }
    tile.return
  }
}

// -----

// A correct kernel whose consumer does not loop over the count (a fixed
// loop, guarded): shortening the producer's loop alone would leave the
// consumer waiting, so the paths where that happens are not checked rather
// than reported (with the default max-steps they run as written and verify).

gpu.module @data_count_guarded [#nvvm.target<chip = "sm_90a">] {
  // expected-remark @+1 {{[Missed] NotChecked | Category:tile-verify-async | Reason="a loop bounded by loaded data ran shortened (at most 31 iterations) before line}}
  tile.kernel @k(%counts: !tile.ptr<i32>, %e: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c1024 = arith.constant 1024 : i32
    %o = tile.make_view %counts[%e] strides [1] : !tile.ptr<i32>
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 4 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      %n = tile.load_scalar %o[%c2] : !tile.view<?xi32, strides = [1]> -> i32
      %r = scf.for %i = %c0 to %c1024 step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        %in = arith.cmpi slt, %i, %n : i32
        %p2 = scf.if %in -> (i32) {
          tile.mbarrier_wait %full[%c0], %ph : !tile.mbarrier<1>
          tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
          %next = arith.xori %ph, %c1 : i32
          scf.yield %next : i32
        } else {
          scf.yield %ph : i32
        }
        scf.yield %p2 : i32
      }
    } partition warps(4) regs(40) {
      %n = tile.load_scalar %o[%c2] : !tile.view<?xi32, strides = [1]> -> i32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        %free = arith.xori %ph, %c1 : i32
        tile.mbarrier_wait %empty[%c0], %free : !tile.mbarrier<1>
        tile.mbarrier_arrive %full[%c0] : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    }
    tile.return
  }
}

// -----

// A planted bug inside shortened loops, before either ends: the consumer
// does not release the slot of iteration 3, and the producer waits for it.
// Found on the shortened path.

gpu.module @data_count_bug [#nvvm.target<chip = "sm_90a">] {
  tile.kernel @k(%counts: !tile.ptr<i32>, %e: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %o = tile.make_view %counts[%e] strides [1] : !tile.ptr<i32>
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 4 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      %n = tile.load_scalar %o[%c2] : !tile.view<?xi32, strides = [1]> -> i32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        tile.mbarrier_wait %full[%c0], %ph : !tile.mbarrier<1>
        %skip = arith.cmpi eq, %i, %c3 : i32
        scf.if %skip {
        } else {
          tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
        }
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    } partition warps(4) regs(40) {
      %n = tile.load_scalar %o[%c2] : !tile.view<?xi32, strides = [1]> -> i32
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        %free = arith.xori %ph, %c1 : i32
        // expected-error @+2 {{deadlock: waits for phase 3 of %2[0] (parity 1), which never completes: 0 of 4 arrivals}}
        // expected-note @+1 {{in the producer partition of program (0, 0, 0), iteration 4 of the loop at line}}
        tile.mbarrier_wait %empty[%c0], %free : !tile.mbarrier<1>
        tile.mbarrier_arrive %full[%c0] : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    }
    tile.return
  }
}
