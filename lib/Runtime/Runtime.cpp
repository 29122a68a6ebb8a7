//===- Runtime.cpp - Load and launch tilec kernels ------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements tilec::Kernel on the CUDA driver API: per-context
// module loading, tensor-map encoding with a cache, the persistent grid cap
// and cuLaunchKernelEx. Every driver call comes after KernelSpec::bind has
// accepted the arguments.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/Runtime.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
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

/// Per-thread buffers of launch(), reused so that a launch allocates nothing
/// once they have grown.
struct LaunchScratch {
  LaunchPlan plan;
  std::vector<CUtensorMap> maps;
  std::vector<void *> params;
};
} // namespace

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
/// when it is full, as python/tilec/runtime.py does).
static constexpr size_t kMapCacheLimit = 256;

/// "<kernel>: <call> failed: CUDA_ERROR_X (description)".
static Status driverError(const KernelSpec &spec, const char *call,
                          CUresult result, const std::string &hint = "") {
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  std::string message = spec.name + ": " + call +
                        " failed: " + (name ? name : std::to_string(result));
  if (text)
    message += std::string(" (") + text + ")";
  return Status::error(message + hint);
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
  if (!state)
    return;
  // A module belongs to its context; unload it there if it still exists.
  for (auto &[context, info] : state->modules) {
    if (cuCtxPushCurrent(context) != CUDA_SUCCESS)
      continue;
    cuModuleUnload(info.module);
    CUcontext popped;
    cuCtxPopCurrent(&popped);
  }
}

const KernelSpec &Kernel::getSpec() const { return state->spec; }

Status Kernel::validate(ArgList args) const {
  LaunchPlan plan;
  return state->spec.bind(args, plan);
}

/// Loads `spec`'s module from `cubin` into the current context and computes
/// what launches need from it.
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

static StatusOr<Kernel::ModuleInfo> loadInto(const KernelSpec &spec,
                                             const std::string &cubin) {
  Kernel::ModuleInfo info;
  CUresult r = cuModuleLoadData(&info.module, cubin.data());
  if (r != CUDA_SUCCESS)
    return driverError(spec, "cuModuleLoadData", r,
                       "; the cubin is for " + (spec.cubinArch.empty()
                                                    ? std::string("?")
                                                    : spec.cubinArch));
  auto fail = [&](const char *call, CUresult r) {
    cuModuleUnload(info.module);
    return driverError(spec, call, r);
  };
  if ((r = cuModuleGetFunction(&info.function, info.module,
                               spec.name.c_str())) != CUDA_SUCCESS)
    return fail("cuModuleGetFunction", r);
  // Past 48 KiB, dynamic shared memory must be opted into per function.
  if (spec.smemBytes > 48 * 1024 &&
      (r = cuFuncSetAttribute(
           info.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
           static_cast<int>(spec.smemBytes))) != CUDA_SUCCESS)
    return fail("cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", r);
  unsigned clusterSize = spec.cluster[0] * spec.cluster[1] * spec.cluster[2];
  // Clusters of more than 8 blocks are "non-portable" and need an opt-in.
  if (clusterSize > 8 &&
      (r = cuFuncSetAttribute(
           info.function, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED,
           1)) != CUDA_SUCCESS)
    return fail("cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)", r);
  if (!spec.persistent)
    return info;
  // A persistent kernel launches as many programs as are resident at once.
  unsigned threads = spec.block[0] * spec.block[1] * spec.block[2];
  if (!spec.hasCluster()) {
    CUdevice device;
    int perSm = 0, sms = 0;
    if ((r = cuOccupancyMaxActiveBlocksPerMultiprocessor(
             &perSm, info.function, static_cast<int>(threads),
             spec.smemBytes)) != CUDA_SUCCESS)
      return fail("cuOccupancyMaxActiveBlocksPerMultiprocessor", r);
    if ((r = cuCtxGetDevice(&device)) != CUDA_SUCCESS)
      return fail("cuCtxGetDevice", r);
    if ((r = cuDeviceGetAttribute(&sms,
                                  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                                  device)) != CUDA_SUCCESS)
      return fail("cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)", r);
    info.residentPrograms = static_cast<unsigned>(std::max(1, perSm) * sms);
    return info;
  }
  CUlaunchAttribute attr = getClusterAttribute(spec);
  CUlaunchConfig config;
  std::memset(&config, 0, sizeof(config));
  config.gridDimX = spec.cluster[0];
  config.gridDimY = spec.cluster[1];
  config.gridDimZ = spec.cluster[2];
  config.blockDimX = spec.block[0];
  config.blockDimY = spec.block[1];
  config.blockDimZ = spec.block[2];
  config.sharedMemBytes = spec.smemBytes;
  config.attrs = &attr;
  config.numAttrs = 1;
  int clusters = 0;
  if ((r = cuOccupancyMaxActiveClusters(&clusters, info.function, &config)) !=
      CUDA_SUCCESS)
    return fail("cuOccupancyMaxActiveClusters", r);
  info.residentPrograms =
      static_cast<unsigned>(std::max(1, clusters)) * clusterSize;
  return info;
}

StatusOr<Kernel::ModuleInfo> Kernel::getModuleInfo() {
  State &st = *state;
  CUcontext context = nullptr;
  CUresult r = cuCtxGetCurrent(&context);
  if (r != CUDA_SUCCESS)
    return driverError(st.spec, "cuCtxGetCurrent", r);
  if (!context)
    return Status::error(st.spec.name +
                         ": no CUDA context is current on this thread");
  std::lock_guard<std::mutex> lock(st.mutex);
  for (auto &[c, info] : st.modules)
    if (c == context)
      return info;
  StatusOr<ModuleInfo> info = loadInto(st.spec, st.cubin);
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
static Status encodeTensorMap(const KernelSpec &spec,
                              const TensorMapRequest &req, CUtensorMap &map) {
  const TensorMapSpec &m = spec.tensorMaps[req.spec];
  cuuint64_t sizes[Arg::kMaxRank], strides[Arg::kMaxRank];
  cuuint32_t box[Arg::kMaxRank], elementStrides[Arg::kMaxRank];
  for (unsigned d = 0; d < req.rank; ++d) {
    sizes[d] = req.sizes[d];
    box[d] = m.box[d];
    elementStrides[d] = 1;
    if (d + 1 < req.rank)
      strides[d] = req.strides[d];
  }
  CUtensorMapSwizzle swizzle = m.swizzle == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                               : m.swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                               : m.swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                 : CU_TENSOR_MAP_SWIZZLE_NONE;
  CUresult r = cuTensorMapEncodeTiled(
      &map, getTmaDataType(m.dtype), req.rank,
      reinterpret_cast<void *>(static_cast<uintptr_t>(req.address)), sizes,
      strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
      CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    return driverError(spec, "cuTensorMapEncodeTiled", r,
                       "; tensor map of '" + spec.params[m.base].name + "'");
  return Status::success();
}

Status Kernel::launch(ArgList args, CUstream stream) {
  State &st = *state;
  const KernelSpec &spec = st.spec;
  thread_local LaunchScratch scratch;
  LaunchPlan &plan = scratch.plan;
  if (Status s = spec.bind(args, plan); !s.ok())
    return s;
  if (plan.isEmpty())
    return Status::success();

  StatusOr<ModuleInfo> info = getModuleInfo();
  if (!info.ok())
    return info.getStatus();
  std::array<int64_t, 3> grid = plan.grid;
  if (spec.persistent && grid[0] > info->residentPrograms) {
    // Keep whole clusters: the cap is a multiple of the cluster's x size.
    int64_t cap = info->residentPrograms;
    grid[0] = std::max<int64_t>(spec.cluster[0], cap - cap % spec.cluster[0]);
  }

  scratch.maps.resize(plan.tensorMaps.size());
  {
    std::lock_guard<std::mutex> lock(st.mutex);
    for (size_t i = 0; i < plan.tensorMaps.size(); ++i) {
      const TensorMapRequest &req = plan.tensorMaps[i];
      auto it = st.mapCache.find(req);
      if (it == st.mapCache.end()) {
        CUtensorMap map;
        if (Status s = encodeTensorMap(spec, req, map); !s.ok())
          return s;
        if (st.mapCache.size() >= kMapCacheLimit)
          st.mapCache.clear();
        it = st.mapCache.emplace(req, map).first;
      }
      scratch.maps[i] = it->second;
    }
  }

  // cuLaunchKernelEx reads each parameter through a pointer, as many bytes
  // as the kernel declares: scalars sit in the low bytes of their slot.
  scratch.params.resize(spec.getNumKernelParams());
  for (size_t p = 0; p < spec.params.size(); ++p)
    scratch.params[spec.params[p].position] = &plan.values[p];
  for (size_t i = 0; i < spec.tensorMaps.size(); ++i)
    scratch.params[spec.tensorMaps[i].position] = &scratch.maps[i];

  CUlaunchAttribute attr = getClusterAttribute(spec);
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
  config.attrs = spec.hasCluster() ? &attr : nullptr;
  config.numAttrs = spec.hasCluster() ? 1 : 0;
  CUresult r =
      cuLaunchKernelEx(&config, info->function, scratch.params.data(), nullptr);
  if (r != CUDA_SUCCESS)
    return driverError(spec, "cuLaunchKernelEx", r);
  return Status::success();
}
