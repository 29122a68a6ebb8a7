// RUN: tilec-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-verify-async)))' --remarks-filter=tile-verify-async --remark-format=emitRemark -o /dev/null
// RUN: not tilec-opt %s -split-input-file --pass-pipeline='builtin.module(gpu.module(tile.kernel(tile-verify-async{strict=true})))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT

// The rules of tile-verify-async on small hand-written protocols (the
// planted bugs in real kernels are in verify-async-mutants.mlir).

// A producer that signals one barrier per step and waits for its own
// signal, and a consumer that follows with the phase parity: nothing holds
// the producer back, so it can complete two phases before the consumer's
// wait, and parity then names two phases (the consumer misses one or
// blocks for good).
gpu.module @parity_aliasing [#nvvm.target<chip = "sm_90a">] {
  tile.kernel @k(%n: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %bar = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        // expected-error @+2 {{parity 0 names two phases of %0[0] here: phase 1 can complete before this wait executes, and the wait then blocks until phase 3}}
        // expected-note @+1 {{on the path n = 129; 1x1x1 programs, in warp 3 (warpgroup 0) of program (0, 0, 0), iteration 0 of the loop at line}}
        tile.mbarrier_wait %bar[%c0], %ph : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    } partition warps(4) regs(40) {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        tile.mbarrier_arrive %bar[%c0] : !tile.mbarrier<1>
        tile.mbarrier_wait %bar[%c0], %ph : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    }
    tile.return
  }
}

// -----

// The same hand-off with a release barrier: the consumer frees each phase
// before the producer signals the next. Every path verifies.
gpu.module @handoff [#nvvm.target<chip = "sm_90a">] {
  // expected-remark @+1 {{asynchronous protocol verified on 34 of 34 paths}}
  tile.kernel @k(%n: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 4 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        tile.mbarrier_wait %full[%c0], %ph : !tile.mbarrier<1>
        tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    } partition warps(4) regs(40) {
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

// Control flow the model does not run (scf.while) around a barrier: not
// checked, said so (an error with strict=true).
// STRICT: error: tile-verify-async cannot check this kernel: the scf.while at line {{[0-9]+}} holds synchronization
gpu.module @not_checked [#nvvm.target<chip = "sm_80">] {
  // expected-remark @+1 {{the scf.while at line}}
  tile.kernel @k(%n: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r = scf.while (%i = %c0) : (i32) -> i32 {
      %go = arith.cmpi slt, %i, %n : i32
      scf.condition(%go) %i : i32
    } do {
    ^bb0(%j: i32):
      tile.barrier
      %k = arith.addi %j, %c1 : i32
      scf.yield %k : i32
    }
    tile.return
  }
}

// -----

// Regression (fuzzer): a cp.async group committed with no copies in it is
// empty, so nothing is in flight at exit. The exit check read the last copy
// of the agent, which did not exist, and crashed.
gpu.module @empty_group [#nvvm.target<chip = "sm_80">] {
  // expected-remark @+1 {{asynchronous protocol verified on}}
  tile.kernel @k() warps(4) {
    tile.async_commit
    tile.return
  }
}

// -----

// A copy whose group is never waited for is in flight at exit (wait 2
// leaves both the copy's group and the empty one after it pending).
#sh = #tile.shared<vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0], segment = 0>
gpu.module @copy_in_flight [#nvvm.target<chip = "sm_80">] {
  tile.kernel @k(%A: !tile.ptr<bf16> {tile.align = 16 : i64}, %n: i32 {tile.divisibility = 8 : i64}) warps(4) {
    %c0 = arith.constant 0 : i32
    %v = tile.make_view %A[%n, %n] strides [%n, 1] : !tile.ptr<bf16>
    %buf = tile.local_alloc : !tile.smem<1x64x64xbf16, #sh>
    // expected-error @+2 {{the kernel ends with cp.async copies in flight}}
    // expected-note @+1 {{on the path}}
    tile.async_copy %v[%c0, %c0], %buf[%c0] : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.smem<1x64x64xbf16, #sh>
    tile.async_commit
    tile.async_commit
    tile.async_wait 2
    tile.return
  }
}

// -----

// Trip counts read from memory (tile.load_scalar: a grouped GEMM's
// offsets). The model's memory is an increasing sequence of group ends,
// groups of 0, 1, 130, 16, 0, 257, 65 and 3 rows over and over; here both
// sides hand off once per row of each of up to 16 groups. Every path
// verifies.
gpu.module @data_trip_counts [#nvvm.target<chip = "sm_90a">] {
  // expected-remark @+1 {{asynchronous protocol verified on 34 of 34 paths}}
  tile.kernel @k(%offs: !tile.ptr<i32>, %e: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %o = tile.make_view %offs[%e] strides [1] : !tile.ptr<i32>
    %groups = arith.minsi %e, %c16 : i32
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 4 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      %r:2 = scf.for %g = %c0 to %groups step %c1 iter_args(%start = %c0, %ph0 = %c0) -> (i32, i32) : i32 {
        %end = tile.load_scalar %o[%g] : !tile.view<?xi32, strides = [1]> -> i32
        %n = arith.subi %end, %start : i32
        %q = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %ph0) -> (i32) : i32 {
          tile.mbarrier_wait %full[%c0], %ph : !tile.mbarrier<1>
          tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
          %next = arith.xori %ph, %c1 : i32
          scf.yield %next : i32
        }
        scf.yield %end, %q : i32, i32
      }
    } partition warps(4) regs(40) {
      %r:2 = scf.for %g = %c0 to %groups step %c1 iter_args(%start = %c0, %ph0 = %c0) -> (i32, i32) : i32 {
        %end = tile.load_scalar %o[%g] : !tile.view<?xi32, strides = [1]> -> i32
        %n = arith.subi %end, %start : i32
        %q = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %ph0) -> (i32) : i32 {
          %free = arith.xori %ph, %c1 : i32
          tile.mbarrier_wait %empty[%c0], %free : !tile.mbarrier<1>
          tile.mbarrier_arrive %full[%c0] : !tile.mbarrier<1>
          %next = arith.xori %ph, %c1 : i32
          scf.yield %next : i32
        }
        scf.yield %end, %q : i32, i32
      }
    }
    tile.return
  }
}

// -----

// A loop that starts at a position read from a 2-D view (a packed batch's
// document starts, as corpus/attention_document_skip.mlir reads them): the
// model's memory is indexed by the element's row-major position in the
// view, so program 0 reads element 0 (start 0: every row) and program 1
// element n (a start past the end: no row). Every path verifies.
gpu.module @data_2d_start [#nvvm.target<chip = "sm_90a">] {
  // expected-remark @+1 {{asynchronous protocol verified on 34 of 34 paths}}
  tile.kernel @k(%starts: !tile.ptr<i32>, %n: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %s = tile.make_view %starts[2, %n] strides [%n, 1] : !tile.ptr<i32>
    %pid = tile.program_id x
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 4 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      %lo = tile.load_scalar %s[%pid, %c0] : !tile.view<2x?xi32, strides = [?, 1]> -> i32
      %r = scf.for %i = %lo to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        tile.mbarrier_wait %full[%c0], %ph : !tile.mbarrier<1>
        tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    } partition warps(4) regs(40) {
      %lo = tile.load_scalar %s[%pid, %c0] : !tile.view<2x?xi32, strides = [?, 1]> -> i32
      %r = scf.for %i = %lo to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
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

// The same with a planted bug: the consumer starts at 0 whatever the loaded
// start, so where the start is past the end (program 1) it waits for a
// hand-off the producer never makes.
gpu.module @data_2d_start_ignored [#nvvm.target<chip = "sm_90a">] {
  tile.kernel @k(%starts: !tile.ptr<i32>, %n: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %s = tile.make_view %starts[2, %n] strides [%n, 1] : !tile.ptr<i32>
    %pid = tile.program_id x
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 4 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
        // expected-error @+2 {{deadlock: waits for phase 0 of %1[0] (parity 0), which never completes}}
        // expected-note @+1 {{program (1, 0, 0), iteration 0 of the loop at line}}
        tile.mbarrier_wait %full[%c0], %ph : !tile.mbarrier<1>
        tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
        %next = arith.xori %ph, %c1 : i32
        scf.yield %next : i32
      }
    } partition warps(4) regs(40) {
      %lo = tile.load_scalar %s[%pid, %c0] : !tile.view<2x?xi32, strides = [?, 1]> -> i32
      %r = scf.for %i = %lo to %n step %c1 iter_args(%ph = %c0) -> (i32) : i32 {
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

// The same with a planted bug: the producer skips groups of one row, so the
// consumer waits for a phase that never completes (group 1 of the model's
// memory has one row).
gpu.module @data_one_row_group [#nvvm.target<chip = "sm_90a">] {
  tile.kernel @k(%offs: !tile.ptr<i32>, %e: i32) warps(4) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %o = tile.make_view %offs[%e] strides [1] : !tile.ptr<i32>
    %groups = arith.minsi %e, %c16 : i32
    %full = tile.mbarrier_alloc count 1 : !tile.mbarrier<1>
    %empty = tile.mbarrier_alloc count 4 : !tile.mbarrier<1>
    tile.warp_specialize regs(232) {
      %r:2 = scf.for %g = %c0 to %groups step %c1 iter_args(%start = %c0, %ph0 = %c0) -> (i32, i32) : i32 {
        %end = tile.load_scalar %o[%g] : !tile.view<?xi32, strides = [1]> -> i32
        %n = arith.subi %end, %start : i32
        %q = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %ph0) -> (i32) : i32 {
          // expected-error @+2 {{deadlock: waits for phase 942 of %2[0] (parity 0), which never completes: 0 of 1 arrivals, 0 of 0 expected transaction bytes}}
          // expected-note @+1 {{on the path e = 129; 1x1x1 programs, in warp 0 (warpgroup 0) of program (0, 0, 0), iteration 15 of the loop at line}}
          tile.mbarrier_wait %full[%c0], %ph : !tile.mbarrier<1>
          tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
          %next = arith.xori %ph, %c1 : i32
          scf.yield %next : i32
        }
        scf.yield %end, %q : i32, i32
      }
    } partition warps(4) regs(40) {
      %r:2 = scf.for %g = %c0 to %groups step %c1 iter_args(%start = %c0, %ph0 = %c0) -> (i32, i32) : i32 {
        %end = tile.load_scalar %o[%g] : !tile.view<?xi32, strides = [1]> -> i32
        %size = arith.subi %end, %start : i32
        %one = arith.cmpi eq, %size, %c1 : i32
        %n = arith.select %one, %c0, %size : i32
        %q = scf.for %i = %c0 to %n step %c1 iter_args(%ph = %ph0) -> (i32) : i32 {
          %free = arith.xori %ph, %c1 : i32
          tile.mbarrier_wait %empty[%c0], %free : !tile.mbarrier<1>
          tile.mbarrier_arrive %full[%c0] : !tile.mbarrier<1>
          %next = arith.xori %ph, %c1 : i32
          scf.yield %next : i32
        }
        scf.yield %end, %q : i32, i32
      }
    }
    tile.return
  }
}
