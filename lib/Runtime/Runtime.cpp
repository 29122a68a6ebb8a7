//===- Runtime.cpp - Load and launch tilec kernels ------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tilec::Kernel and PreparedLaunch on the CUDA driver
// API (through the table of Driver.h): per-context module loading,
// tensor-map encoding with a cache, the persistent grid cap and
// cuLaunchKernelEx. Every driver call comes after KernelSpec::bind has
// accepted the arguments.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Runtime.h"
#include "Driver.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>

using namespace tilec;

namespace {
/// Hash of a tensor-map request, for the encoded-map cache.
struct RequestHash {
  size_t operator()(const TensorMapRequest &r) const {
    // FNV-1a over the fields that identify the encoding.
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(r.spec);
    mix(r.address);
    for (unsigned d = 0; d < r.rank; ++d)
      mix(r.sizes[d]);
    for (unsigned d = 0; d + 1 < r.rank; ++d)
      mix(r.strides[d]);
    return static_cast<size_t>(h);
  }
};

} // namespace

/// What a launch passes to cuLaunchKernelEx besides the configuration:
/// kept per thread by Kernel::launch (so that a launch allocates nothing
/// once the buffers have grown) and per PreparedLaunch.
struct PreparedLaunch::Impl {
  Kernel::State *state = nullptr;
  CUfunction function = nullptr;
  /// Programs the device holds at once (Kernel::ModuleInfo), the cap of a
  /// persistent kernel's grid.
  unsigned residentPrograms = 0;
  LaunchPlan plan;
  /// The grid launched: the plan's, capped for persistent kernels.
  std::array<int64_t, 3> grid{1, 1, 1};
  /// The grid given to prepare(), if any.
  std::optional<std::array<int64_t, 3>> givenGrid;
  std::vector<CUtensorMap> maps;
  std::vector<void *> params;
};

struct Kernel::State {
  KernelSpec spec;
  std::string cubin;

  /// Guards `modules` and `mapCache`.
  std::mutex mutex;
  /// One module per context that launched the kernel.
  std::vector<std::pair<CUcontext, ModuleInfo>> modules;
  /// Encoded tensor maps, by address, sizes and strides. Encoding does not
  /// depend on the context.
  std::unordered_map<TensorMapRequest, CUtensorMap, RequestHash> mapCache;
};

/// Kernels keep at most this many encoded tensor maps (the cache is cleared
/// when it is full).
static constexpr size_t kMapCacheLimit = 256;

/// The driver, or the Status saying why there is none, for `spec`.
static StatusOr<const detail::Driver *> getDriverFor(const KernelSpec &spec) {
  std::string error;
  if (const detail::Driver *d = detail::getDriver(error))
    return d;
  return Status::driverError(spec.name + ": " + error,
                             CUDA_ERROR_NOT_INITIALIZED);
}

/// "<kernel>: <call> failed: CUDA_ERROR_X (description)".
static Status driverError(const detail::Driver &d, const KernelSpec &spec,
                          const char *call, CUresult result,
                          const std::string &hint = "") {
  const char *name = nullptr, *text = nullptr;
  if (d.cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (d.cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string message = spec.name + ": " + call +
                        " failed: " + (name ? name : std::to_string(result));
  if (text)
    message += std::string(" (") + text + ")";
  return Status::driverError(message + hint, result);
}

/// The whole file at `path`, or why it cannot be read.
static StatusOr<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::error("cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream data;
  data << in.rdbuf();
  if (in.bad())
    return Status::error("cannot read '" + path + "'");
  return data.str();
}

StatusOr<Kernel> Kernel::load(const std::string &cubinPath,
                              const std::string &jsonPath) {
  std::string metaPath = jsonPath;
  if (metaPath.empty()) {
    size_t slash = cubinPath.find_last_of('/');
    size_t dot = cubinPath.find_last_of('.');
    metaPath =
        (dot == std::string::npos || (slash != std::string::npos && dot < slash)
             ? cubinPath
             : cubinPath.substr(0, dot)) +
        ".json";
  }
  StatusOr<std::string> cubin = readFile(cubinPath);
  if (!cubin.ok())
    return cubin.getStatus();
  StatusOr<std::string> json = readFile(metaPath);
  if (!json.ok())
    return json.getStatus();
  StatusOr<Kernel> kernel = fromMemory(std::move(*cubin), *json);
  if (!kernel.ok())
    return Status::error(metaPath + ": " + kernel.getStatus().message());
  return kernel;
}

StatusOr<Kernel> Kernel::fromMemory(std::string cubin, std::string_view json) {
  StatusOr<KernelSpec> spec = KernelSpec::parse(json);
  if (!spec.ok())
    return spec.getStatus();
  // An ELF cubin or a fatbin, as cuModuleLoadData takes them.
  static const char elfMagic[] = {0x7F, 'E', 'L', 'F'};
  static const unsigned char fatbinMagic[] = {0x50, 0xED, 0x55, 0xBA};
  if (cubin.size() < 4 || (std::memcmp(cubin.data(), elfMagic, 4) != 0 &&
                           std::memcmp(cubin.data(), fatbinMagic, 4) != 0))
    return Status::error(spec->name +
                         ": the code image is neither a cubin nor a fatbin");
  auto state = std::make_unique<State>();
  state->spec = std::move(*spec);
  state->cubin = std::move(cubin);
  return Kernel(std::move(state));
}

Kernel::Kernel(std::unique_ptr<State> state) : state(std::move(state)) {}
Kernel::Kernel(Kernel &&) noexcept = default;
Kernel &Kernel::operator=(Kernel &&) noexcept = default;

Kernel::~Kernel() {
  if (!state || state->modules.empty())
    return;
  std::string error;
  const detail::Driver *d = detail::getDriver(error);
  if (!d)
    return;
  // A module belongs to its context; unload it there if it still exists.
  for (auto &[context, info] : state->modules) {
    if (d->cuCtxPushCurrent(context) != CUDA_SUCCESS)
      continue;
    d->cuModuleUnload(info.module);
    CUcontext popped;
    d->cuCtxPopCurrent(&popped);
  }
}

const KernelSpec &Kernel::getSpec() const { return state->spec; }

Status Kernel::validate(ArgList args) const {
  LaunchPlan plan;
  return state->spec.bind(args, plan);
}

/// The launch attribute giving `spec`'s cluster dimensions.
static CUlaunchAttribute getClusterAttribute(const KernelSpec &spec) {
  CUlaunchAttribute attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = spec.cluster[0];
  attr.value.clusterDim.y = spec.cluster[1];
  attr.value.clusterDim.z = spec.cluster[2];
  return attr;
}

/// The launch configuration of `spec` on `grid` and `stream`; `attr` is
/// the cluster attribute it points to, if the kernel has clusters.
static CUlaunchConfig getLaunchConfig(const KernelSpec &spec,
                                      const std::array<int64_t, 3> &grid,
                                      CUstream stream,
                                      CUlaunchAttribute &attr) {
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof(config));
  config.gridDimX = static_cast<unsigned>(grid[0]);
  config.gridDimY = static_cast<unsigned>(grid[1]);
  config.gridDimZ = static_cast<unsigned>(grid[2]);
  config.blockDimX = spec.block[0];
  config.blockDimY = spec.block[1];
  config.blockDimZ = spec.block[2];
  config.sharedMemBytes = spec.smemBytes;
  config.hStream = stream;
  attr = getClusterAttribute(spec);
  config.attrs = spec.hasCluster() ? &attr : nullptr;
  config.numAttrs = spec.hasCluster() ? 1 : 0;
  return config;
}

/// Programs of the persistent kernel `info.function` resident at once:
/// blocks per SM times SMs, or whole clusters.
static Status queryResidentPrograms(const detail::Driver &d,
                                    const KernelSpec &spec,
                                    Kernel::ModuleInfo &info) {
  CUresult r;
  if (!spec.hasCluster()) {
    unsigned threads = spec.block[0] * spec.block[1] * spec.block[2];
    CUdevice device;
    int perSm = 0, sms = 0;
    if ((r = d.cuOccupancyMaxActiveBlocksPerMultiprocessor(
             &perSm, info.function, static_cast<int>(threads),
             spec.smemBytes)) != CUDA_SUCCESS)
      return driverError(d, spec, "cuOccupancyMaxActiveBlocksPerMultiprocessor",
                         r);
    if ((r = d.cuCtxGetDevice(&device)) != CUDA_SUCCESS)
      return driverError(d, spec, "cuCtxGetDevice", r);
    if ((r = d.cuDeviceGetAttribute(&sms,
                                    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                    device)) != CUDA_SUCCESS)
      return driverError(d, spec, "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)",
                         r);
    info.residentPrograms = static_cast<unsigned>(std::max(1, perSm) * sms);
    return Status::success();
  }
  CUlaunchAttribute attr;
  std::array<int64_t, 3> grid = {spec.cluster[0], spec.cluster[1],
                                 spec.cluster[2]};
  CUlaunchConfig config = getLaunchConfig(spec, grid, nullptr, attr);
  int clusters = 0;
  if ((r = d.cuOccupancyMaxActiveClusters(&clusters, info.function, &config)) !=
      CUDA_SUCCESS)
    return driverError(d, spec, "cuOccupancyMaxActiveClusters", r);
  unsigned clusterSize = spec.cluster[0] * spec.cluster[1] * spec.cluster[2];
  info.residentPrograms =
      static_cast<unsigned>(std::max(1, clusters)) * clusterSize;
  return Status::success();
}

/// Loads `spec`'s module from `cubin` into the current context and computes
/// what launches need from it.
static StatusOr<Kernel::ModuleInfo> loadInto(const detail::Driver &d,
                                             const KernelSpec &spec,
                                             const std::string &cubin) {
  Kernel::ModuleInfo info;
  CUresult r = d.cuModuleLoadData(&info.module, cubin.data());
  if (r != CUDA_SUCCESS)
    return driverError(d, spec, "cuModuleLoadData", r,
                       "; the cubin is for " + (spec.cubinArch.empty()
                                                    ? std::string("?")
                                                    : spec.cubinArch));
  auto fail = [&](Status s) {
    d.cuModuleUnload(info.module);
    return s;
  };
  if ((r = d.cuModuleGetFunction(&info.function, info.module,
                                 spec.name.c_str())) != CUDA_SUCCESS)
    return fail(driverError(d, spec, "cuModuleGetFunction", r));
  // Past 48 KiB, dynamic shared memory must be opted into per function.
  if (spec.smemBytes > 48 * 1024 &&
      (r = d.cuFuncSetAttribute(
           info.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
           static_cast<int>(spec.smemBytes))) != CUDA_SUCCESS)
    return fail(driverError(
        d, spec, "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r));
  unsigned clusterSize = spec.cluster[0] * spec.cluster[1] * spec.cluster[2];
  // Clusters of more than 8 blocks are "non-portable" and need an opt-in.
  if (clusterSize > 8 &&
      (r = d.cuFuncSetAttribute(
           info.function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
           1)) != CUDA_SUCCESS)
    return fail(driverError(
        d, spec, "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)", r));
  // A persistent kernel launches as many programs as are resident at once.
  if (spec.persistent)
    if (Status s = queryResidentPrograms(d, spec, info); !s.ok())
      return fail(s);
  return info;
}

StatusOr<Kernel::ModuleInfo> Kernel::getModuleInfo() {
  State &st = *state;
  StatusOr<const detail::Driver *> d = getDriverFor(st.spec);
  if (!d.ok())
    return d.getStatus();
  CUcontext context = nullptr;
  CUresult r = (*d)->cuCtxGetCurrent(&context);
  if (r != CUDA_SUCCESS)
    return driverError(**d, st.spec, "cuCtxGetCurrent", r);
  if (!context)
    return Status::driverError(
        st.spec.name + ": no CUDA context is current on this thread",
        CUDA_ERROR_INVALID_CONTEXT);
  std::lock_guard<std::mutex> lock(st.mutex);
  for (auto &[c, info] : st.modules)
    if (c == context)
      return info;
  StatusOr<ModuleInfo> info = loadInto(**d, st.spec, st.cubin);
  if (info.ok())
    st.modules.emplace_back(context, *info);
  return info;
}

Status Kernel::loadModule() {
  StatusOr<ModuleInfo> info = getModuleInfo();
  return info.ok() ? Status::success() : info.getStatus();
}

/// cuTensorMapEncodeTiled's element type for `dtype` (fp8 moves as bytes).
static CUtensorMapDataType getTmaDataType(DType dtype) {
  switch (dtype) {
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::F64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  case DType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case DType::I16:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  default:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  }
}

/// Encodes the tensor map `req` asks for.
static Status encodeTensorMap(const detail::Driver &d, const KernelSpec &spec,
                              const TensorMapRequest &req, CUtensorMap &map) {
  const TensorMapSpec &m = spec.tensorMaps[req.spec];
  cuuint64_t sizes[Arg::kMaxRank], strides[Arg::kMaxRank];
  cuuint32_t box[Arg::kMaxRank], elementStrides[Arg::kMaxRank];
  for (unsigned i = 0; i < req.rank; ++i) {
    sizes[i] = req.sizes[i];
    box[i] = m.box[i];
    elementStrides[i] = 1;
    if (i + 1 < req.rank)
      strides[i] = req.strides[i];
  }
  CUtensorMapSwizzle swizzle = m.swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                               : m.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                               : m.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                 : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUresult r = d.cuTensorMapEncodeTiled(
      &map, getTmaDataType(m.dtype), req.rank,
      reinterpret_cast<void *>(static_cast<uintptr_t>(req.address)), sizes,
      strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return driverError(d, spec, "cuTensorMapEncodeTiled", r,
                       "; tensor map of '" + spec.params[m.base].name + "'");
  return Status::success();
}

/// Completes `launch` after its plan was bound: the capped grid, the tensor
/// maps (from the kernel's cache, encoding the missing ones) and the
/// parameter array.
static Status completeLaunch(const detail::Driver &d, Kernel::State &st,
                             PreparedLaunch::Impl &launch) {
  const KernelSpec &spec = st.spec;
  const LaunchPlan &plan = launch.plan;
  launch.grid = plan.grid;
  if (plan.isEmpty())
    return Status::success();
  if (spec.persistent && launch.grid[0] > launch.residentPrograms) {
    // Keep whole clusters: the cap is a multiple of the cluster's x size.
    int64_t cap = launch.residentPrograms;
    launch.grid[0] =
        std::max<int64_t>(spec.cluster[0], cap - cap % spec.cluster[0]);
  }
  launch.maps.resize(plan.tensorMaps.size());
  if (!plan.tensorMaps.empty()) {
    std::lock_guard<std::mutex> lock(st.mutex);
    for (size_t i = 0; i < plan.tensorMaps.size(); ++i) {
      const TensorMapRequest &req = plan.tensorMaps[i];
      auto it = st.mapCache.find(req);
      if (it == st.mapCache.end()) {
        CUtensorMap map;
        if (Status s = encodeTensorMap(d, spec, req, map); !s.ok())
          return s;
        if (st.mapCache.size() >= kMapCacheLimit)
          st.mapCache.clear();
        it = st.mapCache.emplace(req, map).first;
      }
      launch.maps[i] = it->second;
    }
  }
  // cuLaunchKernelEx reads each parameter through a pointer, as many bytes
  // as the kernel declares: scalars sit in the low bytes of their slot.
  launch.params.resize(spec.getNumKernelParams());
  for (size_t p = 0; p < spec.params.size(); ++p)
    launch.params[spec.params[p].position] = &launch.plan.values[p];
  for (size_t i = 0; i < spec.tensorMaps.size(); ++i)
    launch.params[spec.tensorMaps[i].position] = &launch.maps[i];
  return Status::success();
}

/// cuLaunchKernelEx of a completed launch on `stream`.
static Status runLaunch(const detail::Driver &d, const KernelSpec &spec,
                        const PreparedLaunch::Impl &launch, CUstream stream) {
  if (launch.plan.isEmpty())
    return Status::success();
  CUlaunchAttribute attr;
  CUlaunchConfig config = getLaunchConfig(spec, launch.grid, stream, attr);
  CUresult r =
      d.cuLaunchKernelEx(&config, launch.function,
                         const_cast<void **>(launch.params.data()), nullptr);
  if (r != CUDA_SUCCESS)
    return driverError(d, spec, "cuLaunchKernelEx", r);
  return Status::success();
}

/// Completes `launch`, whose plan is bound, on the module `info` of the
/// current context.
static Status completeOn(Kernel::State &st,
                         const StatusOr<Kernel::ModuleInfo> &info,
                         PreparedLaunch::Impl &launch) {
  if (!info.ok())
    return info.getStatus();
  StatusOr<const detail::Driver *> d = getDriverFor(st.spec);
  if (!d.ok())
    return d.getStatus();
  launch.function = info->function;
  launch.residentPrograms = info->residentPrograms;
  return completeLaunch(**d, st, launch);
}

Status Kernel::launch(ArgList args, CUstream stream,
                      const std::array<int64_t, 3> *grid) {
  State &st = *state;
  thread_local PreparedLaunch::Impl scratch;
  if (Status s = st.spec.bind(args, scratch.plan, grid); !s.ok())
    return s;
  if (scratch.plan.isEmpty())
    return Status::success();
  if (Status s = completeOn(st, getModuleInfo(), scratch); !s.ok())
    return s;
  StatusOr<const detail::Driver *> d = getDriverFor(st.spec);
  if (!d.ok())
    return d.getStatus();
  return runLaunch(**d, st.spec, scratch, stream);
}

StatusOr<PreparedLaunch> Kernel::prepare(ArgList args,
                                         const std::array<int64_t, 3> *grid) {
  State &st = *state;
  auto impl = std::make_unique<PreparedLaunch::Impl>();
  impl->state = &st;
  if (grid)
    impl->givenGrid = *grid;
  if (Status s = st.spec.bind(args, impl->plan, grid); !s.ok())
    return s;
  if (Status s = completeOn(st, getModuleInfo(), *impl); !s.ok())
    return s;
  return PreparedLaunch(std::move(impl));
}

PreparedLaunch::PreparedLaunch(std::unique_ptr<Impl> impl)
    : impl(std::move(impl)) {}
PreparedLaunch::PreparedLaunch(PreparedLaunch &&) noexcept = default;
PreparedLaunch &PreparedLaunch::operator=(PreparedLaunch &&) noexcept = default;
PreparedLaunch::~PreparedLaunch() = default;

Status PreparedLaunch::update(ArgList args) {
  Kernel::State &st = *impl->state;
  // Bound and completed aside: on failure the launch keeps its arguments.
  Impl next;
  next.state = impl->state;
  next.function = impl->function;
  next.residentPrograms = impl->residentPrograms;
  next.givenGrid = impl->givenGrid;
  const std::array<int64_t, 3> *grid =
      next.givenGrid ? &*next.givenGrid : nullptr;
  if (Status s = st.spec.bind(args, next.plan, grid); !s.ok())
    return s;
  StatusOr<const detail::Driver *> d = getDriverFor(st.spec);
  if (!d.ok())
    return d.getStatus();
  if (Status s = completeLaunch(**d, st, next); !s.ok())
    return s;
  // Moving the vectors moves their buffers: the parameter array still
  // points at the values and maps it was built from.
  *impl = std::move(next);
  return Status::success();
}

Status PreparedLaunch::launch(CUstream stream) const {
  const KernelSpec &spec = impl->state->spec;
  StatusOr<const detail::Driver *> d = getDriverFor(spec);
  if (!d.ok())
    return d.getStatus();
  return runLaunch(**d, spec, *impl, stream);
}

const std::array<int64_t, 3> &PreparedLaunch::getGrid() const {
  return impl->grid;
}

const std::vector<uint64_t> &PreparedLaunch::getValues() const {
  return impl->plan.values;
}
