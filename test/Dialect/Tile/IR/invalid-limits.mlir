// RUN: tilec-opt %s -split-input-file -verify-diagnostics

// Limits of tile programs, each a diagnostic instead of a crash, a hang or a
// runaway compile (issue 16's fuzzing classes C1, C3, H1, H2).

// A zero-size tile (C1: the slice verifier divided by its size).
tile.kernel @empty_slice() grid(1) warps(4) {
  %a = arith.constant dense<0.0> : tensor<64x64xbf16>
  // expected-error @below {{tile 'tensor<64x0xbf16>' must have static, positive dimensions}}
  %s = tile.extract_slice %a offsets [0, 0] : tensor<64x64xbf16> -> tensor<64x0xbf16>
  tile.return
}

// -----

// The slice verifier alone (an op outside a kernel) also refuses it.
func.func @empty_slice_outside(%a: tensor<64x64xbf16>) {
  // expected-error @below {{expected a non-empty slice, got size 0 in dimension 1}}
  %s = tile.extract_slice %a offsets [0, 0] : tensor<64x64xbf16> -> tensor<64x0xbf16>
  return
}

// -----

// Kernel names are C identifiers (C3: LLVM aborted on ' ', '-', '%' and
// non-ASCII names; '.' gave PTX that ptxas rejects).
// expected-error @below {{kernel name 'a b' is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)}}
tile.kernel @"a b"() {
  tile.return
}

// -----

// expected-error @below {{kernel name 'a.b' is not a C identifier}}
tile.kernel @"a.b"() {
  tile.return
}

// -----

// expected-error @below {{kernel name '9x' is not a C identifier}}
tile.kernel @"9x"() {
  tile.return
}

// -----

// expected-error @below {{kernel name 'naïve' is not a C identifier}}
tile.kernel @"naïve"() {
  tile.return
}

// -----

// Tiles are capped at what a thread block's registers hold (H2: a
// 4096x4096xf32 tile ran for minutes and gigabytes).
tile.kernel @huge(%A: !tile.ptr<f32> {tile.align = 16 : i64}) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %a = tile.make_view %A[4096, 4096] strides [4096, 1] : !tile.ptr<f32>
  // expected-error @below {{tile 'tensor<512x256xf32>' has more than 65536 elements, more than the 65536 32-bit registers of an SM hold}}
  %t = tile.load %a[%c0, %c0] : !tile.view<4096x4096xf32, strides = [4096, 1]> -> tensor<512x256xf32>
  tile.store %t, %a[%c0, %c0] : tensor<512x256xf32>, !tile.view<4096x4096xf32, strides = [4096, 1]>
  tile.return
}

// -----

// The largest tile allowed verifies.
tile.kernel @largest(%A: !tile.ptr<f32> {tile.align = 16 : i64}) grid(1) warps(32) {
  %c0 = arith.constant 0 : i32
  %a = tile.make_view %A[4096, 4096] strides [4096, 1] : !tile.ptr<f32>
  %t = tile.load %a[%c0, %c0] : !tile.view<4096x4096xf32, strides = [4096, 1]> -> tensor<256x256xf32>
  tile.store %t, %a[%c0, %c0] : tensor<256x256xf32>, !tile.view<4096x4096xf32, strides = [4096, 1]>
  tile.return
}

// -----

// Region nesting is capped (H2: thousands of nested loops).
tile.kernel @deep(%n: i32) grid(1) warps(4) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  scf.for %i0 = %c0 to %n step %c1 : i32 {
    scf.for %i1 = %c0 to %n step %c1 : i32 {
      scf.for %i2 = %c0 to %n step %c1 : i32 {
        scf.for %i3 = %c0 to %n step %c1 : i32 {
          scf.for %i4 = %c0 to %n step %c1 : i32 {
            scf.for %i5 = %c0 to %n step %c1 : i32 {
              scf.for %i6 = %c0 to %n step %c1 : i32 {
                scf.for %i7 = %c0 to %n step %c1 : i32 {
                  scf.for %i8 = %c0 to %n step %c1 : i32 {
                    scf.for %i9 = %c0 to %n step %c1 : i32 {
                      scf.for %i10 = %c0 to %n step %c1 : i32 {
                        scf.for %i11 = %c0 to %n step %c1 : i32 {
                          scf.for %i12 = %c0 to %n step %c1 : i32 {
                            scf.for %i13 = %c0 to %n step %c1 : i32 {
                              scf.for %i14 = %c0 to %n step %c1 : i32 {
                                scf.for %i15 = %c0 to %n step %c1 : i32 {
                                  scf.for %i16 = %c0 to %n step %c1 : i32 {
                                    scf.for %i17 = %c0 to %n step %c1 : i32 {
                                      scf.for %i18 = %c0 to %n step %c1 : i32 {
                                        scf.for %i19 = %c0 to %n step %c1 : i32 {
                                          scf.for %i20 = %c0 to %n step %c1 : i32 {
                                            scf.for %i21 = %c0 to %n step %c1 : i32 {
                                              scf.for %i22 = %c0 to %n step %c1 : i32 {
                                                scf.for %i23 = %c0 to %n step %c1 : i32 {
                                                  scf.for %i24 = %c0 to %n step %c1 : i32 {
                                                    scf.for %i25 = %c0 to %n step %c1 : i32 {
                                                      scf.for %i26 = %c0 to %n step %c1 : i32 {
                                                        scf.for %i27 = %c0 to %n step %c1 : i32 {
                                                          scf.for %i28 = %c0 to %n step %c1 : i32 {
                                                            scf.for %i29 = %c0 to %n step %c1 : i32 {
                                                              scf.for %i30 = %c0 to %n step %c1 : i32 {
                                                                scf.for %i31 = %c0 to %n step %c1 : i32 {
                                                                  // expected-error @below {{is nested 33 regions deep in its kernel; at most 32 are supported}}
                                                                  scf.for %i32 = %c0 to %n step %c1 : i32 {
                                                                  }
                                                                }
                                                              }
                                                            }
                                                          }
                                                        }
                                                      }
                                                    }
                                                  }
                                                }
                                              }
                                            }
                                          }
                                        }
                                      }
                                    }
                                  }
                                }
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  tile.return
}

// -----

// Named-op configurations are bounded (H1: stages = 2^63 - 1 overflowed the
// shared-memory check and grew for gigabytes).
tile.kernel @gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %M: i32, %N: i32, %K: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  // expected-error @below {{stages = 9223372036854775807 is larger than 32}}
  tile.gemm %a, %b, %c config <stages = 9223372036854775807>
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}

// -----

tile.kernel @gemm(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<bf16>, %M: i32, %N: i32, %K: i32) {
  %a = tile.make_view %A[%M, %K] strides [%K, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%N, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%N, 1] : !tile.ptr<bf16>
  // expected-error @below {{block_m = 4611686018427387904 is larger than 1024}}
  tile.gemm %a, %b, %c config <block_m = 4611686018427387904>
      : !tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>,
        !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
