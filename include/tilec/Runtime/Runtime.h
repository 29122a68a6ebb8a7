//===- Runtime.h - Load and launch tilec kernels ----------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares tilec::Kernel, the C++ runtime for kernels compiled by
// `tilec --emit=cubin`: it loads a cubin and its `<kernel>.json`, and
// launches the kernel through the CUDA driver API:
//
//   StatusOr<Kernel> k = Kernel::load("out/gemm_bf16.cubin");
//   if (!k.ok()) { report(k.getStatus().message()); ... }
//   Status s = k->launch({Arg::ptr(a, DType::BF16), Arg::ptr(b, DType::BF16),
//                         Arg::ptr(c, DType::BF16), M, N, K, lda, ldb, ldc},
//                        stream);
//
// A launch binds the arguments first (KernelSpec::bind: every check, the
// grid, the parameter bytes), so a refused launch makes no driver call. Then,
// in the context current on the calling thread, it loads the module once per
// context (and raises the dynamic shared memory limit past 48 KiB), encodes
// the tensor maps (cached by address, sizes and strides), caps the grid of
// persistent kernels at the programs the device holds at once, and launches
// with cuLaunchKernelEx, with the cluster dimensions when there are any.
//
// Kernel is thread-safe: its caches are guarded by a mutex, and launches
// from several threads (and contexts) may overlap. Kernel::prepare works a
// launch out once (PreparedLaunch) for callers that repeat it.
//
// The runtime does not link libcuda: it looks the driver up in the process,
// then in libcuda.so.1, at the first driver call (lib/Runtime/Driver.h), so
// everything before that works without a driver. The kernel JSON parser is
// its own. The C ABI over this class is include/tilec-c/Runtime.h.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_RUNTIME_H
#define TILEC_RUNTIME_RUNTIME_H

#include "tilec/Runtime/KernelSpec.h"

#include <cuda.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace tilec {

class PreparedLaunch;

/// A compiled kernel: its cubin and launch metadata, and the modules loaded
/// from it (one per CUDA context). Movable, not copyable; destroying it
/// unloads the modules.
class Kernel {
public:
  /// Reads `cubinPath` and its metadata `jsonPath` (default: `cubinPath`
  /// with the extension replaced by `.json`). Makes no driver call.
  static StatusOr<Kernel> load(const std::string &cubinPath,
                               const std::string &jsonPath = "");
  /// A kernel from a cubin image and the text of its `<kernel>.json`.
  static StatusOr<Kernel> fromMemory(std::string cubin, std::string_view json);

  Kernel(Kernel &&) noexcept;
  Kernel &operator=(Kernel &&) noexcept;
  ~Kernel();

  const KernelSpec &getSpec() const;
  const std::string &getName() const { return getSpec().name; }

  /// Every check launch() makes before its first driver call; needs no GPU.
  Status validate(ArgList args) const;

  /// Launches the kernel on `stream` in the current context. An empty grid
  /// (a problem size of zero) launches nothing and succeeds. `grid`, when
  /// given, replaces the kernel's grid rule (see KernelSpec::bind).
  Status launch(ArgList args, CUstream stream = nullptr,
                const std::array<int64_t, 3> *grid = nullptr);

  /// Works out a launch of `args` in the current context (loading the
  /// module there): every check, the grid with its persistent cap, the
  /// tensor maps and the parameter array. The kernel must outlive it.
  StatusOr<PreparedLaunch>
  prepare(ArgList args, const std::array<int64_t, 3> *grid = nullptr);

  /// Loads the module into the current context now, instead of at the first
  /// launch in that context.
  Status loadModule();

  /// Launch-time facts of the current context's module (loading it first).
  struct ModuleInfo {
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    /// Programs the device holds at once (occupancy times SMs); the grid cap
    /// of persistent kernels.
    unsigned residentPrograms = 0;
  };
  StatusOr<ModuleInfo> getModuleInfo();

  struct State;

private:
  explicit Kernel(std::unique_ptr<State> state);

  std::unique_ptr<State> state;
};

/// One launch of a kernel in one context, worked out by Kernel::prepare so
/// that launching it again costs only cuLaunchKernelEx. Movable; not
/// thread-safe (keep one per thread).
class PreparedLaunch {
public:
  PreparedLaunch(PreparedLaunch &&) noexcept;
  PreparedLaunch &operator=(PreparedLaunch &&) noexcept;
  ~PreparedLaunch();

  /// Binds other arguments (checked as Kernel::launch checks them; the
  /// grid is recomputed, unless one was given to prepare). On failure the
  /// launch keeps its previous arguments.
  Status update(ArgList args);
  /// Launches on `stream`; the context of prepare() must be current.
  Status launch(CUstream stream = nullptr) const;
  /// The grid launched (the persistent cap applied); an empty one launches
  /// nothing.
  const std::array<int64_t, 3> &getGrid() const;
  /// The parameter bytes: one 8-byte slot per KernelSpec::params entry.
  const std::vector<uint64_t> &getValues() const;

  struct Impl;

private:
  friend class Kernel;
  explicit PreparedLaunch(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl;
};

} // namespace tilec

#endif // TILEC_RUNTIME_RUNTIME_H
