//===- RuntimeCAPI.cpp - C ABI of the tilec runtime -----------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements include/tilec-c/Runtime.h (libtilec-runtime.so) on
// tilec::Kernel and tilec::PreparedLaunch: C arguments become tilec::Arg
// views, failures become a status and the calling thread's last error.
//
//===----------------------------------------------------------------------===//

#include "Driver.h"
#include "tilec-c/Runtime.h"
#include "tilec/Runtime/Runtime.h"

#include <cstring>
#include <vector>

using namespace tilec;

struct TilecRtKernel {
  Kernel kernel;
};

struct TilecRtLaunch {
  PreparedLaunch launch;
  /// The arguments the launch was last bound with, to skip binding again
  /// when a caller passes the same ones.
  std::vector<TilecRtArg> last;
};

/// The calling thread's last failure, and its CUresult.
static thread_local std::string lastError;
static thread_local int lastDriverResult;

/// Records `s`'s failure; the status of the call.
static TilecRtStatus fail(const Status &s) {
  lastError = s.message();
  lastDriverResult = s.getDriverResult();
  return s.isDriverError() ? TilecRtDriverError : TilecRtInvalidArguments;
}

static TilecRtStatus invalidCall(const char *what) {
  lastError = what;
  lastDriverResult = 0;
  return TilecRtInvalidCall;
}

/// Views of C arguments as tilec::Arg, in a per-thread buffer; fails on a
/// kind or dtype the ABI does not define.
static StatusOr<ArgList> toArgs(const TilecRtArg *args, size_t numArgs) {
  thread_local std::vector<Arg> buffer;
  buffer.clear();
  if (numArgs && !args)
    return Status::error("NULL arguments");
  for (size_t i = 0; i < numArgs; ++i) {
    const TilecRtArg &a = args[i];
    if (a.dtype > TilecRtDTypeF8E5M2)
      return Status::error("argument " + std::to_string(i) +
                           " has unknown dtype " + std::to_string(a.dtype));
    DType dtype = static_cast<DType>(a.dtype);
    Arg arg = Arg::ptr(uint64_t(0));
    switch (a.kind) {
    case TilecRtArgPointer:
      arg = a.rank ? Arg::tensor(a.address, dtype, a.shape, a.strides, a.rank)
                   : Arg::ptr(a.address, dtype);
      break;
    case TilecRtArgInt:
      arg = Arg(a.intValue);
      break;
    case TilecRtArgFloat:
      arg = Arg(a.floatValue);
      break;
    default:
      return Status::error("argument " + std::to_string(i) +
                           " has unknown kind " + std::to_string(a.kind));
    }
    buffer.push_back(a.name ? arg.named(a.name) : arg);
  }
  return ArgList(buffer);
}

/// The grid `grid` points to, if any, in `storage`.
static const std::array<int64_t, 3> *toGrid(const int64_t *grid,
                                            std::array<int64_t, 3> &storage) {
  if (!grid)
    return nullptr;
  storage = {grid[0], grid[1], grid[2]};
  return &storage;
}

extern "C" {

unsigned tilecRtGetAPIVersion(void) { return TILEC_RT_API_VERSION; }

const char *tilecRtGetLastError(void) { return lastError.c_str(); }

int tilecRtGetLastDriverResult(void) { return lastDriverResult; }

TilecRtStatus tilecRtKernelCreate(const void *image, size_t imageBytes,
                                  const char *metadata, size_t metadataBytes,
                                  TilecRtKernel **kernel) {
  if (!kernel)
    return invalidCall("tilecRtKernelCreate: NULL kernel");
  *kernel = nullptr;
  if ((imageBytes && !image) || (metadataBytes && !metadata))
    return invalidCall("tilecRtKernelCreate: NULL image or metadata");
  StatusOr<Kernel> k = Kernel::fromMemory(
      std::string(static_cast<const char *>(image), imageBytes),
      std::string_view(metadata ? metadata : "", metadataBytes));
  if (!k.ok())
    return fail(k.getStatus());
  *kernel = new TilecRtKernel{std::move(*k)};
  return TilecRtSuccess;
}

void tilecRtKernelDestroy(TilecRtKernel *kernel) { delete kernel; }

const char *tilecRtKernelGetName(const TilecRtKernel *kernel) {
  return kernel ? kernel->kernel.getName().c_str() : "";
}

TilecRtStatus tilecRtKernelValidate(const TilecRtKernel *kernel,
                                    const TilecRtArg *args, size_t numArgs) {
  if (!kernel)
    return invalidCall("tilecRtKernelValidate: NULL kernel");
  StatusOr<ArgList> list = toArgs(args, numArgs);
  if (!list.ok())
    return fail(list.getStatus());
  Status s = kernel->kernel.validate(*list);
  return s.ok() ? TilecRtSuccess : fail(s);
}

TilecRtStatus tilecRtKernelBind(const TilecRtKernel *kernel,
                                const TilecRtArg *args, size_t numArgs,
                                const int64_t *grid, TilecRtBinding *binding) {
  if (!kernel || !binding || binding->structSize != sizeof(TilecRtBinding))
    return invalidCall("tilecRtKernelBind: NULL kernel or binding, or a "
                       "binding of another TILEC_RT_API_VERSION");
  StatusOr<ArgList> list = toArgs(args, numArgs);
  if (!list.ok())
    return fail(list.getStatus());
  const KernelSpec &spec = kernel->kernel.getSpec();
  thread_local LaunchPlan plan;
  thread_local std::vector<uint32_t> positions;
  thread_local std::vector<TilecRtTensorMap> maps;
  std::array<int64_t, 3> storage;
  if (Status s = spec.bind(*list, plan, toGrid(grid, storage)); !s.ok())
    return fail(s);
  positions.clear();
  for (const ParamSpec &p : spec.params)
    positions.push_back(p.position);
  maps.assign(plan.tensorMaps.size(), TilecRtTensorMap());
  for (size_t i = 0; i < plan.tensorMaps.size(); ++i) {
    const TensorMapRequest &req = plan.tensorMaps[i];
    const TensorMapSpec &m = spec.tensorMaps[req.spec];
    TilecRtTensorMap &out = maps[i];
    out.address = req.address;
    out.rank = req.rank;
    out.dtype = static_cast<uint32_t>(m.dtype);
    out.swizzle = m.swizzle;
    out.position = m.position;
    for (unsigned d = 0; d < req.rank; ++d) {
      out.sizes[d] = req.sizes[d];
      out.box[d] = m.box[d];
      if (d + 1 < req.rank)
        out.byteStrides[d] = req.strides[d];
    }
  }
  std::memcpy(binding->grid, plan.grid.data(), sizeof(binding->grid));
  binding->numValues = plan.values.size();
  binding->values = plan.values.data();
  binding->positions = positions.data();
  binding->numTensorMaps = maps.size();
  binding->tensorMaps = maps.data();
  return TilecRtSuccess;
}

TilecRtStatus tilecRtKernelLoad(TilecRtKernel *kernel) {
  if (!kernel)
    return invalidCall("tilecRtKernelLoad: NULL kernel");
  Status s = kernel->kernel.loadModule();
  return s.ok() ? TilecRtSuccess : fail(s);
}

TilecRtStatus tilecRtKernelLaunch(TilecRtKernel *kernel, const TilecRtArg *args,
                                  size_t numArgs, const int64_t *grid,
                                  void *stream) {
  if (!kernel)
    return invalidCall("tilecRtKernelLaunch: NULL kernel");
  StatusOr<ArgList> list = toArgs(args, numArgs);
  if (!list.ok())
    return fail(list.getStatus());
  std::array<int64_t, 3> storage;
  Status s = kernel->kernel.launch(*list, static_cast<CUstream>(stream),
                                   toGrid(grid, storage));
  return s.ok() ? TilecRtSuccess : fail(s);
}

TilecRtStatus tilecRtLaunchCreate(TilecRtKernel *kernel, const TilecRtArg *args,
                                  size_t numArgs, const int64_t *grid,
                                  TilecRtLaunch **launch) {
  if (!kernel || !launch)
    return invalidCall("tilecRtLaunchCreate: NULL kernel or launch");
  *launch = nullptr;
  StatusOr<ArgList> list = toArgs(args, numArgs);
  if (!list.ok())
    return fail(list.getStatus());
  std::array<int64_t, 3> storage;
  StatusOr<PreparedLaunch> prepared =
      kernel->kernel.prepare(*list, toGrid(grid, storage));
  if (!prepared.ok())
    return fail(prepared.getStatus());
  *launch = new TilecRtLaunch{std::move(*prepared),
                              std::vector<TilecRtArg>(args, args + numArgs)};
  return TilecRtSuccess;
}

TilecRtStatus tilecRtLaunchUpdate(TilecRtLaunch *launch, const TilecRtArg *args,
                                  size_t numArgs) {
  if (!launch || (numArgs && !args))
    return invalidCall("tilecRtLaunchUpdate: NULL launch or arguments");
  // Bind again only what changed since the last call.
  if (numArgs == launch->last.size() &&
      (numArgs == 0 || std::memcmp(args, launch->last.data(),
                                   numArgs * sizeof(TilecRtArg)) == 0))
    return TilecRtSuccess;
  StatusOr<ArgList> list = toArgs(args, numArgs);
  if (!list.ok())
    return fail(list.getStatus());
  if (Status s = launch->launch.update(*list); !s.ok())
    return fail(s);
  launch->last.assign(args, args + numArgs);
  return TilecRtSuccess;
}

TilecRtStatus tilecRtLaunchRun(TilecRtLaunch *launch, const TilecRtArg *args,
                               size_t numArgs, void *stream) {
  if (!launch)
    return invalidCall("tilecRtLaunchRun: NULL launch");
  if (args)
    if (TilecRtStatus s = tilecRtLaunchUpdate(launch, args, numArgs);
        s != TilecRtSuccess)
      return s;
  Status s = launch->launch.launch(static_cast<CUstream>(stream));
  return s.ok() ? TilecRtSuccess : fail(s);
}

void tilecRtLaunchGetGrid(const TilecRtLaunch *launch, int64_t grid[3]) {
  if (!launch || !grid)
    return;
  std::memcpy(grid, launch->launch.getGrid().data(), 3 * sizeof(int64_t));
}

void tilecRtLaunchDestroy(TilecRtLaunch *launch) { delete launch; }

TilecRtStatus tilecRtEvaluateGrid(const char *const *exprs, size_t numExprs,
                                  const char *const *names,
                                  const int64_t *values, size_t numValues,
                                  int64_t grid[3]) {
  if (!grid || (numExprs && !exprs) || (numValues && (!names || !values)))
    return invalidCall("tilecRtEvaluateGrid: NULL arguments");
  if (numExprs < 1 || numExprs > 3)
    return fail(Status::error("a grid rule has 1 to 3 expressions, got " +
                              std::to_string(numExprs)));
  std::vector<ParamSpec> params(numValues);
  for (size_t i = 0; i < numValues; ++i) {
    params[i].name = names[i] ? names[i] : "";
    params[i].dtype = DType::I64;
  }
  int64_t result[3] = {1, 1, 1};
  for (size_t d = 0; d < numExprs; ++d) {
    StatusOr<GridExpr> e = GridExpr::parse(exprs[d] ? exprs[d] : "", params);
    if (!e.ok())
      return fail(e.getStatus());
    StatusOr<int64_t> v = e->evaluate(values);
    if (!v.ok())
      return fail(v.getStatus());
    result[d] = *v;
  }
  std::memcpy(grid, result, sizeof(result));
  return TilecRtSuccess;
}

TilecRtStatus tilecRtSetDriver(const TilecRtDriver *driver) {
  if (!driver) {
    detail::setDriver(nullptr);
    return TilecRtSuccess;
  }
  if (driver->structSize != sizeof(TilecRtDriver))
    return invalidCall("tilecRtSetDriver: a driver table of another "
                       "TILEC_RT_API_VERSION");
  detail::Driver d;
  // The table's functions have the driver's ABI with plain C types.
#define TILEC_SET(member, f)                                                   \
  if (!driver->member)                                                         \
    return invalidCall("tilecRtSetDriver: no " #member);                       \
  d.f = reinterpret_cast<decltype(d.f)>(driver->member);
  TILEC_SET(getErrorName, cuGetErrorName)
  TILEC_SET(getErrorString, cuGetErrorString)
  TILEC_SET(ctxGetCurrent, cuCtxGetCurrent)
  TILEC_SET(ctxPushCurrent, cuCtxPushCurrent)
  TILEC_SET(ctxPopCurrent, cuCtxPopCurrent)
  TILEC_SET(ctxGetDevice, cuCtxGetDevice)
  TILEC_SET(deviceGetAttribute, cuDeviceGetAttribute)
  TILEC_SET(moduleLoadData, cuModuleLoadData)
  TILEC_SET(moduleUnload, cuModuleUnload)
  TILEC_SET(moduleGetFunction, cuModuleGetFunction)
  TILEC_SET(funcSetAttribute, cuFuncSetAttribute)
  TILEC_SET(occupancyMaxActiveBlocksPerMultiprocessor,
            cuOccupancyMaxActiveBlocksPerMultiprocessor)
  TILEC_SET(occupancyMaxActiveClusters, cuOccupancyMaxActiveClusters)
  TILEC_SET(tensorMapEncodeTiled, cuTensorMapEncodeTiled)
  TILEC_SET(launchKernelEx, cuLaunchKernelEx)
#undef TILEC_SET
  detail::setDriver(&d);
  return TilecRtSuccess;
}

} // extern "C"
