//===- AotHeader.cpp - Ahead-of-time C launchers for tilec kernels --------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements buildAotHeader, the `--emit=header` stage: from a
// kernel's cubin and its launch metadata (parsed by the runtime's own
// KernelSpec, so the header and tilec::Kernel read the JSON alike) it writes
// a C header that embeds the cubin and defines a typed launch function. The
// header needs only <cuda.h> and libcuda, and is valid C99 and C++:
//
//   CUresult tilec_<kernel>_launch(CUstream stream, <typed parameters>);
//
// The function checks the kernel's requirements before any driver call, then
// loads the module into the current context (once), evaluates the baked grid
// rule, encodes the tensor maps with the baked specs and launches with
// cuLaunchKernelEx.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Runtime/KernelSpec.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::tilec;
namespace rt = ::tilec;

/// Whether `name` can be used as a C/C++ parameter name of the launch
/// function: an identifier, not a keyword, not a name the header uses (its
/// `tilec_` prefix, the driver API's `cuX`/`CU` names, <stdint.h> and
/// <string.h> names) and not reserved.
static bool isUsableCName(StringRef name) {
  static const llvm::StringSet<> used = {
      "memcpy",    "memset",  "NULL",      "int8_t",   "int16_t",
      "int32_t",   "int64_t", "uint16_t",  "uint32_t", "uint64_t",
      "uintptr_t", "INT64_C", "INT64_MIN", "INT32_MAX"};
  static const llvm::StringSet<> keywords = {
      "alignas",   "alignof",  "and",      "asm",       "auto",     "bool",
      "break",     "case",     "catch",    "char",      "class",    "const",
      "constexpr", "continue", "default",  "delete",    "do",       "double",
      "else",      "enum",     "explicit", "export",    "extern",   "false",
      "float",     "for",      "friend",   "goto",      "if",       "inline",
      "int",       "long",     "mutable",  "namespace", "new",      "noexcept",
      "not",       "nullptr",  "operator", "or",        "private",  "protected",
      "public",    "register", "restrict", "return",    "short",    "signed",
      "sizeof",    "static",   "struct",   "switch",    "template", "this",
      "throw",     "true",     "try",      "typedef",   "typename", "union",
      "unsigned",  "using",    "virtual",  "void",      "volatile", "while",
      "xor"};
  if (name.empty() || llvm::isDigit(name[0]) || name.starts_with("_") ||
      name.starts_with("tilec_") || name.starts_with("CU") ||
      (name.starts_with("cu") && name.size() > 2 && llvm::isUpper(name[2])) ||
      keywords.contains(name) || used.contains(name))
    return false;
  return llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// The C type of a scalar parameter of the launch function. f16 and bf16
/// values are passed as float and rounded in the header.
static StringRef getCScalarType(rt::DType dtype) {
  switch (dtype) {
  case rt::DType::I1:
    return "int";
  case rt::DType::I8:
    return "int8_t";
  case rt::DType::I16:
    return "int16_t";
  case rt::DType::I32:
    return "int32_t";
  case rt::DType::I64:
    return "int64_t";
  case rt::DType::F16:
  case rt::DType::BF16:
  case rt::DType::F32:
    return "float";
  default:
    return "double";
  }
}

/// The CUtensorMapDataType enumerator for `dtype` (fp8 moves as bytes).
static StringRef getTmaDataType(rt::DType dtype) {
  switch (dtype) {
  case rt::DType::BF16:
    return "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16";
  case rt::DType::F16:
    return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
  case rt::DType::F32:
    return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
  case rt::DType::F64:
    return "CU_TENSOR_MAP_DATA_TYPE_FLOAT64";
  case rt::DType::I32:
    return "CU_TENSOR_MAP_DATA_TYPE_INT32";
  case rt::DType::I64:
    return "CU_TENSOR_MAP_DATA_TYPE_INT64";
  case rt::DType::I16:
    return "CU_TENSOR_MAP_DATA_TYPE_UINT16";
  default:
    return "CU_TENSOR_MAP_DATA_TYPE_UINT8";
  }
}

/// Helpers every header shares, defined once per translation unit.
static constexpr const char *kCommonHelpers = R"(#ifndef TILEC_AOT_COMMON
#define TILEC_AOT_COMMON
/* Helpers shared by the headers of `tilec --emit=header`. Grid rules divide
 * like Python: floordiv rounds toward -inf, mod takes the divisor's sign. A
 * zero divisor (or INT64_MIN / -1) sets *bad. */
static inline int64_t tilec_aot_floordiv(int64_t a, int64_t b, int *bad) {
  int64_t q;
  if (b == 0 || (b == -1 && a == INT64_MIN)) {
    *bad = 1;
    return 0;
  }
  q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t tilec_aot_ceildiv(int64_t a, int64_t b, int *bad) {
  int64_t q = tilec_aot_floordiv(a, b, bad);
  return *bad ? 0 : q + (a % b != 0);
}
static inline int64_t tilec_aot_mod(int64_t a, int64_t b, int *bad) {
  int64_t r;
  if (b == 0 || b == -1) {
    *bad |= b == 0;
    return 0;
  }
  r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
/* IEEE half bits of f, rounded to nearest even. */
static inline uint16_t tilec_aot_f16_bits(float f) {
  uint32_t u, sign;
  memcpy(&u, &f, 4);
  sign = u & 0x80000000u;
  u ^= sign;
  if (u >= 0x47800000u) /* overflow to infinity; NaN stays NaN */
    return (uint16_t)((u > 0x7F800000u ? 0x7E00u : 0x7C00u) | (sign >> 16));
  if (u < 0x38800000u) { /* subnormal: the FPU rounds the magic sum */
    float t, magic;
    uint32_t magicBits = 0x3F000000u, tb;
    memcpy(&t, &u, 4);
    memcpy(&magic, &magicBits, 4);
    t += magic;
    memcpy(&tb, &t, 4);
    return (uint16_t)((tb - magicBits) | (sign >> 16));
  }
  u += 0xC8000FFFu + ((u >> 13) & 1u);
  return (uint16_t)((u >> 13) | (sign >> 16));
}
/* bfloat16 bits of f, rounded to nearest even. */
static inline uint16_t tilec_aot_bf16_bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return (uint16_t)((u >> 16) | 0x40u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}
#endif /* TILEC_AOT_COMMON */
)";

/// The helper of headers whose tensor maps have sizes or strides the kernel
/// computes (kept apart from kCommonHelpers, which other headers share
/// unchanged).
static constexpr const char *kViewHelper = R"(#ifndef TILEC_AOT_VIEW
#define TILEC_AOT_VIEW
/* A size or stride the kernel computes too, in 32-bit integers dividing
 * toward zero: the header computes the same value when every value is in
 * [0, 2^31), the range where the two agree. One outside sets *bad. */
static inline int64_t tilec_aot_view(int64_t v, int *bad) {
  if (v < 0 || v > INT32_MAX) {
    *bad = 1;
    return 0;
  }
  return v;
}
#endif /* TILEC_AOT_VIEW */
)";

namespace {
/// Writes the header of one kernel.
class HeaderWriter {
public:
  HeaderWriter(const rt::KernelSpec &spec, StringRef cubin,
               llvm::raw_ostream &os)
      : spec(spec), cubin(cubin), os(os), prefix("tilec_" + spec.name) {}

  /// Names parameters and checks the constant parts of tensor maps.
  LogicalResult prepare(Location loc);
  void write();

private:
  /// The C expression of a tensor-map size or stride, as int64_t.
  std::string hostValue(const rt::HostValue &v) const;
  /// The C expression of a grid dimension; divisions report to tilec_bad.
  /// With `view`, every value goes through tilec_aot_view (a tensor-map
  /// size or stride the kernel computes too).
  std::string gridExpr(const rt::GridExpr &e, bool view = false) const;
  /// The text of tensor-map size or stride `v` for the header's comment.
  std::string describe(const rt::HostValue &v) const;
  /// Computes the tensor-map sizes and strides that are expressions into
  /// tilec_view[], then writes the requirements the arguments must meet.
  void writeChecks();
  void writeComment();
  void writeCubin();
  void writeLoad();
  void writeUnload();
  void writeLaunch();
  void writeTensorMap(unsigned index);

  const rt::KernelSpec &spec;
  StringRef cubin;
  llvm::raw_ostream &os;
  std::string prefix;
  /// C names of the parameters.
  SmallVector<std::string> names;
  /// Index into tilec_view[] of each computed size or stride.
  DenseMap<const rt::HostValue *, unsigned> computed;
  /// Entries of tilec_view[].
  unsigned numComputed = 0;
};
} // namespace

LogicalResult HeaderWriter::prepare(Location loc) {
  // The kernel's name goes after "tilec_" in every identifier.
  if (!llvm::all_of(spec.name,
                    [](char c) { return llvm::isAlnum(c) || c == '_'; }))
    return emitError(loc) << "kernel name '" << spec.name
                          << "' cannot be part of a C identifier";
  for (auto [i, p] : llvm::enumerate(spec.params))
    names.push_back(isUsableCName(p.name) ? p.name
                                          : "tilec_arg" + std::to_string(i));
  // One tilec_view[] entry per expression (Q, K and V often share one).
  llvm::StringMap<unsigned> byText;
  for (const rt::TensorMapSpec &m : spec.tensorMaps)
    for (const auto *values : {&m.sizes, &m.strides})
      for (const rt::HostValue &v : *values)
        if (v.isComputed())
          computed[&v] =
              byText.try_emplace(v.expr.getText(), byText.size()).first->second;
  numComputed = byText.size();
  // Runtime checks cover parameter-valued and computed sizes and strides;
  // constants are checked here once.
  for (const rt::TensorMapSpec &m : spec.tensorMaps) {
    for (const rt::HostValue &v : m.sizes)
      if (v.param < 0 && !v.isComputed() &&
          (v.constant < 0 || v.constant > (int64_t(1) << 32)))
        return emitError(loc)
               << "tensor map of '" << spec.params[m.base].name
               << "': constant size " << v.constant << " is outside [0, 2^32]";
    for (auto [d, v] : llvm::enumerate(m.strides))
      if (d > 0 && v.param < 0 && !v.isComputed() &&
          (v.constant <= 0 || (v.constant * m.elemBytes) % 16 != 0 ||
           v.constant * m.elemBytes >= (int64_t(1) << 40)))
        return emitError(loc)
               << "tensor map of '" << spec.params[m.base].name
               << "': constant stride " << v.constant
               << " is not a positive multiple of 16 bytes below 2^40";
  }
  return success();
}

std::string HeaderWriter::hostValue(const rt::HostValue &v) const {
  if (v.isComputed())
    return "tilec_view[" + std::to_string(computed.lookup(&v)) + "]";
  if (v.param < 0)
    return llvm::formatv("INT64_C({0})", v.constant).str();
  return "(int64_t)" + names[v.param];
}

std::string HeaderWriter::gridExpr(const rt::GridExpr &e, bool view) const {
  using Kind = rt::GridExpr::Op::Kind;
  SmallVector<std::string> stack;
  auto checked = [&](std::string value) {
    return view ? "tilec_aot_view(" + value + ", &tilec_bad)" : value;
  };
  for (const rt::GridExpr::Op &op : e.getOps()) {
    switch (op.kind) {
    case Kind::Constant:
      stack.push_back(checked(llvm::formatv("INT64_C({0})", op.value).str()));
      continue;
    case Kind::Param:
      stack.push_back(checked("(int64_t)" + names[op.value]));
      continue;
    case Kind::Neg:
      stack.back() =
          view ? checked("-" + stack.back()) : "(-" + stack.back() + ")";
      continue;
    default:
      break;
    }
    std::string b = stack.pop_back_val();
    std::string &a = stack.back();
    // Inside tilec_aot_view(...), an operation needs no parentheses.
    auto binary = [&](StringRef sign) {
      return view ? a + sign.str() + b : "(" + a + sign.str() + b + ")";
    };
    switch (op.kind) {
    case Kind::Add:
      a = binary(" + ");
      break;
    case Kind::Sub:
      a = binary(" - ");
      break;
    case Kind::Mul:
      a = binary(" * ");
      break;
    case Kind::CeilDiv:
      a = "tilec_aot_ceildiv(" + a + ", " + b + ", &tilec_bad)";
      break;
    case Kind::FloorDiv:
      a = "tilec_aot_floordiv(" + a + ", " + b + ", &tilec_bad)";
      break;
    case Kind::Mod:
      a = "tilec_aot_mod(" + a + ", " + b + ", &tilec_bad)";
      break;
    default:
      llvm_unreachable("operand kinds are handled above");
    }
    a = checked(a);
  }
  StringRef top = stack.back();
  if (top.starts_with("(") && top.ends_with(")") &&
      !top.starts_with("(int64_t)"))
    return top.drop_front().drop_back().str();
  return top.str();
}

std::string HeaderWriter::describe(const rt::HostValue &v) const {
  if (v.isComputed())
    return v.expr.getText();
  return v.param < 0 ? std::to_string(v.constant) : names[v.param];
}

void HeaderWriter::writeComment() {
  os << "/* " << spec.name << ".h: ahead-of-time launcher of the tilec kernel "
     << spec.name << ".\n *\n * Generated by tilec " << getTilecVersion()
     << " from the kernel's cubin and launch metadata\n * (chip " << spec.chip
     << ", cubin " << spec.cubinArch << ", PTX ISA " << spec.ptxVersion
     << "); do not edit.\n * Needs only <cuda.h> and libcuda (-lcuda); valid "
        "C99 and C++.\n *\n *   CUresult "
     << prefix << "_launch(CUstream stream";
  for (auto [i, p] : llvm::enumerate(spec.params))
    os << ",\n *       "
       << (p.kind == rt::ParamSpec::Kind::Pointer ? StringRef("CUdeviceptr")
                                                  : getCScalarType(p.dtype))
       << " " << names[i];
  os << ");\n *\n"
     << " * launches the kernel on `stream` in the current context. The first "
        "call loads\n * the module into that context ("
     << prefix
     << "_load() does it ahead of time;\n * call it first when launching "
        "from several threads); later calls must come\n * from the same "
        "context (CUDA_ERROR_INVALID_CONTEXT otherwise). Arguments that\n"
        " * break a requirement below return CUDA_ERROR_INVALID_VALUE before "
        "any driver\n * call; a grid without programs returns CUDA_SUCCESS "
        "and launches nothing.\n *\n";
  os << " * Parameters:\n";
  for (auto [i, p] : llvm::enumerate(spec.params)) {
    os << " *   " << names[i] << ": ";
    if (p.kind == rt::ParamSpec::Kind::Pointer)
      os << "device pointer to " << rt::getDTypeName(p.dtype);
    else
      os << rt::getDTypeName(p.dtype) << " scalar";
    if (p.align)
      os << ", " << p.align << "-byte aligned";
    if (p.divisibility)
      os << ", a multiple of " << p.divisibility;
    if (p.kind == rt::ParamSpec::Kind::Scalar &&
        (p.dtype == rt::DType::F16 || p.dtype == rt::DType::BF16))
      os << " (passed as float, rounded to nearest even)";
    os << "\n";
  }
  for (const rt::TensorMapSpec &m : spec.tensorMaps) {
    os << " *   TMA descriptor of " << names[m.base]
       << ": 16-byte aligned; sizes (innermost first) [";
    llvm::interleaveComma(m.sizes, os,
                          [&](const rt::HostValue &v) { os << describe(v); });
    os << "] in [0, 2^32];\n *     strides [";
    llvm::interleaveComma(m.strides, os,
                          [&](const rt::HostValue &v) { os << describe(v); });
    os << "] elements of " << m.elemBytes
       << " bytes, each past the first a positive\n *     multiple of 16 "
          "bytes below 2^40\n";
    if (llvm::any_of(m.sizes,
                     [](const rt::HostValue &v) { return v.isComputed(); }) ||
        llvm::any_of(m.strides,
                     [](const rt::HostValue &v) { return v.isComputed(); }))
      os << " *     (expressions: every value they compute in [0, 2^31), as "
            "the kernel\n *     computes them in 32-bit integers; a computed "
            "size of 0 only\n *     when no program runs)\n";
  }
  os << " *\n * Grid: (";
  for (unsigned d = 0; d < 3; ++d)
    os << (d ? ", " : "")
       << (d < spec.grid.size() ? spec.grid[d].getText() : "1");
  os << ")";
  if (spec.persistent)
    os << ", x at most the programs resident at once (persistent)";
  os << ".\n * Block: " << spec.block[0] << " x " << spec.block[1] << " x "
     << spec.block[2] << " threads; cluster " << spec.cluster[0] << " x "
     << spec.cluster[1] << " x " << spec.cluster[2]
     << "; dynamic shared memory " << spec.smemBytes << " bytes.\n */\n";
}

void HeaderWriter::writeCubin() {
  os << "/* The cubin (" << spec.cubinArch << "), " << cubin.size()
     << " bytes. */\nTILEC_AOT_ALIGN64 static const unsigned char " << prefix
     << "_cubin[" << cubin.size() << "] = {";
  for (size_t i = 0; i < cubin.size(); ++i) {
    os << (i % 16 == 0 ? "\n  " : " ");
    os << llvm::formatv(
        "{0:x2},", static_cast<unsigned>(static_cast<unsigned char>(cubin[i])));
  }
  os << "\n};\n\n";
}

void HeaderWriter::writeLoad() {
  std::string state = prefix + "_state";
  os << "/* The module, loaded into `context` by the first launch. */\n"
     << "static struct {\n  CUcontext context;\n  CUmodule module;\n"
     << "  CUfunction function;\n  int64_t resident_programs;\n} " << state
     << ";\n\n";
  os << "/* Loads the module into the current context (the first launch does "
        "it). */\nstatic inline CUresult "
     << prefix << "_load(void) {\n"
     << "  CUcontext context = NULL;\n  CUmodule module = NULL;\n"
     << "  CUfunction function = NULL;\n"
     << "  CUresult err = cuCtxGetCurrent(&context);\n"
     << "  if (err != CUDA_SUCCESS)\n    return err;\n"
     << "  if (context == NULL)\n    return CUDA_ERROR_INVALID_CONTEXT;\n"
     << "  if (" << state << ".module != NULL)\n    return context == " << state
     << ".context ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;\n"
     << "  err = cuModuleLoadData(&module, " << prefix << "_cubin);\n"
     << "  if (err != CUDA_SUCCESS)\n    return err;\n"
     << "  err = cuModuleGetFunction(&function, module, \"" << spec.name
     << "\");\n";
  if (spec.smemBytes > 48 * 1024)
    os << "  /* Past 48 KiB, dynamic shared memory needs an opt-in. */\n"
       << "  if (err == CUDA_SUCCESS)\n    err = cuFuncSetAttribute(function, "
          "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,\n"
          "                             "
       << spec.smemBytes << ");\n";
  unsigned clusterSize = spec.cluster[0] * spec.cluster[1] * spec.cluster[2];
  if (clusterSize > 8)
    os << "  if (err == CUDA_SUCCESS)\n    err = cuFuncSetAttribute(function, "
          "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);\n";
  if (spec.persistent && !spec.hasCluster()) {
    os << "  /* Persistent: launch at most the programs resident at once. */\n"
       << "  {\n    int per_sm = 0, sms = 0;\n    CUdevice device;\n"
       << "    if (err == CUDA_SUCCESS)\n"
       << "      err = cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, "
          "function, "
       << spec.block[0] * spec.block[1] * spec.block[2] << ", "
       << spec.smemBytes << ");\n"
       << "    if (err == CUDA_SUCCESS)\n      err = cuCtxGetDevice(&device);\n"
       << "    if (err == CUDA_SUCCESS)\n      err = "
          "cuDeviceGetAttribute(&sms, "
          "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);\n"
       << "    " << state
       << ".resident_programs = (int64_t)(per_sm > 1 ? per_sm : 1) * sms;\n"
       << "  }\n";
  } else if (spec.persistent) {
    os << "  /* Persistent: launch at most the clusters resident at once. */\n"
       << "  {\n    int clusters = 0;\n    CUlaunchAttribute attr;\n"
       << "    CUlaunchConfig config;\n"
       << "    memset(&attr, 0, sizeof(attr));\n"
       << "    memset(&config, 0, sizeof(config));\n"
       << "    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;\n"
       << llvm::formatv("    attr.value.clusterDim.x = {0};\n"
                        "    attr.value.clusterDim.y = {1};\n"
                        "    attr.value.clusterDim.z = {2};\n"
                        "    config.gridDimX = {0};\n"
                        "    config.gridDimY = {1};\n"
                        "    config.gridDimZ = {2};\n"
                        "    config.blockDimX = {3};\n"
                        "    config.blockDimY = {4};\n"
                        "    config.blockDimZ = {5};\n"
                        "    config.sharedMemBytes = {6};\n",
                        spec.cluster[0], spec.cluster[1], spec.cluster[2],
                        spec.block[0], spec.block[1], spec.block[2],
                        spec.smemBytes)
       << "    config.attrs = &attr;\n    config.numAttrs = 1;\n"
       << "    if (err == CUDA_SUCCESS)\n"
       << "      err = cuOccupancyMaxActiveClusters(&clusters, function, "
          "&config);\n"
       << "    " << state
       << ".resident_programs = (int64_t)(clusters > 1 ? clusters : 1) * "
       << clusterSize << ";\n  }\n";
  }
  os << "  if (err != CUDA_SUCCESS) {\n    cuModuleUnload(module);\n"
     << "    return err;\n  }\n"
     << "  " << state << ".context = context;\n"
     << "  " << state << ".module = module;\n"
     << "  " << state << ".function = function;\n"
     << "  return CUDA_SUCCESS;\n}\n\n";
}

void HeaderWriter::writeUnload() {
  std::string state = prefix + "_state";
  os << "/* Unloads the module; the context it was loaded into must be "
        "current. */\nstatic inline CUresult "
     << prefix << "_unload(void) {\n"
     << "  CUresult err;\n"
     << "  if (" << state << ".module == NULL)\n    return CUDA_SUCCESS;\n"
     << "  err = cuModuleUnload(" << state << ".module);\n"
     << "  if (err == CUDA_SUCCESS)\n    memset(&" << state << ", 0, sizeof("
     << state << "));\n"
     << "  return err;\n}\n\n";
}

void HeaderWriter::writeTensorMap(unsigned index) {
  const rt::TensorMapSpec &m = spec.tensorMaps[index];
  unsigned rank = m.getRank();
  os << "  /* Tensor map of " << names[m.base] << ": box [";
  llvm::interleaveComma(m.box, os);
  os << "] (innermost first)";
  if (m.swizzle)
    os << ", " << m.swizzle << "-byte swizzle";
  os << ". */\n  {\n    cuuint64_t sizes[" << rank << "] = {";
  for (unsigned d = 0; d < rank; ++d) {
    std::string v = hostValue(m.sizes[d]);
    // An empty dimension never issues a copy; the map still needs extent 1.
    os << (d ? ", " : "") << "(cuuint64_t)(" << v << " > 0 ? " << v << " : 1)";
  }
  os << "};\n    cuuint64_t strides[" << std::max(1u, rank - 1) << "] = {";
  for (unsigned d = 1; d < rank; ++d)
    os << (d > 1 ? ", " : "") << "(cuuint64_t)" << hostValue(m.strides[d])
       << " * " << m.elemBytes;
  if (rank == 1)
    os << "0";
  os << "};\n    cuuint32_t box[" << rank << "] = {";
  llvm::interleaveComma(m.box, os);
  os << "};\n    cuuint32_t element_strides[" << rank << "] = {";
  for (unsigned d = 0; d < rank; ++d)
    os << (d ? ", 1" : "1");
  StringRef swizzle = m.swizzle == 128  ? "CU_TENSOR_MAP_SWIZZLE_128B"
                      : m.swizzle == 64 ? "CU_TENSOR_MAP_SWIZZLE_64B"
                      : m.swizzle == 32 ? "CU_TENSOR_MAP_SWIZZLE_32B"
                                        : "CU_TENSOR_MAP_SWIZZLE_NONE";
  os << "};\n    tilec_err = cuTensorMapEncodeTiled(\n        &tilec_maps["
     << index << "], " << getTmaDataType(m.dtype) << ", " << rank
     << ", (void *)(uintptr_t)" << names[m.base]
     << ", sizes, strides, box,\n        element_strides, "
        "CU_TENSOR_MAP_INTERLEAVE_NONE, "
     << swizzle
     << ",\n        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, "
        "CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n"
     << "    if (tilec_err != CUDA_SUCCESS)\n      return tilec_err;\n  }\n";
}

void HeaderWriter::writeChecks() {
  // Computed sizes and strides first: the checks below read them.
  llvm::SmallDenseSet<unsigned> written;
  for (const rt::TensorMapSpec &m : spec.tensorMaps)
    for (const auto *values : {&m.sizes, &m.strides})
      for (const rt::HostValue &v : *values)
        if (v.isComputed() && written.insert(computed.lookup(&v)).second)
          os << "  " << hostValue(v) << " = " << gridExpr(v.expr, /*view=*/true)
             << ";\n";
  if (!computed.empty())
    os << "  if (tilec_bad)\n    return CUDA_ERROR_INVALID_VALUE; /* TMA: "
          "computed sizes and strides in [0, 2^31) */\n";
  // Requirements, before any driver call: failing condition and rule, each
  // condition once (a TMA base is often also an aligned parameter).
  SmallVector<std::pair<std::string, std::string>> checks;
  llvm::StringSet<> seen;
  auto require = [&](std::string failing, std::string rule) {
    if (seen.insert(failing).second)
      checks.emplace_back(std::move(failing), std::move(rule));
  };
  for (auto [i, p] : llvm::enumerate(spec.params)) {
    if (p.align)
      require(llvm::formatv("{0} % {1} != 0", names[i], p.align),
              llvm::formatv("{0}: {1}-byte aligned", names[i], p.align));
    if (p.divisibility)
      require(
          llvm::formatv("{0} % {1} != 0", names[i], p.divisibility),
          llvm::formatv("{0}: a multiple of {1}", names[i], p.divisibility));
  }
  for (const rt::TensorMapSpec &m : spec.tensorMaps) {
    require(names[m.base] + " % 16 != 0", "TMA: 16-byte aligned base");
    // Upper bounds only for 64-bit parameters: narrower ones cannot exceed
    // them, and compilers warn about comparisons that are always false.
    auto isWide = [&](const rt::HostValue &v) {
      return spec.params[v.param].dtype == rt::DType::I64;
    };
    for (const rt::HostValue &v : m.sizes) {
      if (v.param < 0)
        continue; // constants: checked once; computed: in [0, 2^31)
      std::string failing = hostValue(v) + " < 0";
      if (isWide(v))
        failing += " || " + hostValue(v) + " > (INT64_C(1) << 32)";
      require(failing, "TMA: size in [0, 2^32]");
    }
    for (auto [d, v] : llvm::enumerate(m.strides)) {
      if (d == 0 || (v.param < 0 && !v.isComputed()))
        continue;
      // A computed stride is in [0, 2^31); 0 is refused when programs run.
      std::string failing =
          v.isComputed() ? llvm::formatv("({0} * {1}) % 16 != 0", hostValue(v),
                                         m.elemBytes)
                               .str()
                         : llvm::formatv("{0} <= 0 || ({0} * {1}) % 16 != 0",
                                         hostValue(v), m.elemBytes)
                               .str();
      if (!v.isComputed() && isWide(v))
        failing += llvm::formatv(" || {0} >= (INT64_C(1) << 40) / {1}",
                                 hostValue(v), m.elemBytes);
      require(failing, "TMA: stride a positive multiple of 16 bytes below "
                       "2^40");
    }
  }
  for (const auto &[failing, rule] : checks)
    os << "  if (" << failing << ")\n    return CUDA_ERROR_INVALID_VALUE; /* "
       << rule << " */\n";
}

void HeaderWriter::writeLaunch() {
  std::string state = prefix + "_state";
  unsigned numParams = spec.getNumKernelParams();
  os << "/* Launches " << spec.name
     << " on `tilec_stream` in the current context. */\n"
     << "static inline CUresult " << prefix << "_launch(CUstream tilec_stream";
  for (auto [i, p] : llvm::enumerate(spec.params))
    os << ", "
       << (p.kind == rt::ParamSpec::Kind::Pointer ? StringRef("CUdeviceptr")
                                                  : getCScalarType(p.dtype))
       << " " << names[i];
  // A kernel without grid(...) runs on the grid its caller gives.
  bool callerGrid = spec.grid.empty();
  if (callerGrid)
    os << ", int64_t tilec_grid_x, int64_t tilec_grid_y, int64_t tilec_grid_z";
  os << ") {\n  int tilec_bad = 0;\n  int64_t tilec_grid[3];\n";
  // Scalars travel in 8-byte slots (integers sign-extended): the kernel
  // reads as many low bytes as its parameter has, whatever the C type.
  if (!spec.params.empty())
    os << "  uint64_t tilec_slots[" << spec.params.size() << "];\n";
  if (!spec.tensorMaps.empty())
    // cuTensorMapEncodeTiled wants 64-byte aligned maps; C99 leaves
    // CUtensorMap unaligned.
    os << "  TILEC_AOT_ALIGN64 CUtensorMap tilec_maps["
       << spec.tensorMaps.size() << "];\n";
  os << "  void *tilec_params[" << std::max(1u, numParams) << "];\n";
  if (spec.hasCluster())
    os << "  CUlaunchAttribute tilec_attr;\n";
  if (numComputed)
    os << "  int64_t tilec_view[" << numComputed << "];\n";
  os << "  CUlaunchConfig tilec_config;\n  CUresult tilec_err;\n";

  writeChecks();

  static const char *const callerDims[] = {"tilec_grid_x", "tilec_grid_y",
                                            "tilec_grid_z"};
  if (callerGrid) {
    os << "  /* Grid: the caller's (the kernel has no grid rule) */\n";
  } else {
    os << "  /* Grid: (";
    for (unsigned d = 0; d < 3; ++d)
      os << (d ? ", " : "")
         << (d < spec.grid.size() ? spec.grid[d].getText() : "1");
    os << ") */\n";
  }
  for (unsigned d = 0; d < 3; ++d)
    os << "  tilec_grid[" << d << "] = "
       << (callerGrid                ? std::string(callerDims[d])
           : d < spec.grid.size()    ? gridExpr(spec.grid[d])
                                     : std::string("1"))
       << ";\n";
  os << "  if (tilec_bad)\n    return CUDA_ERROR_INVALID_VALUE;\n"
     << "  if (tilec_grid[0] <= 0 || tilec_grid[1] <= 0 || tilec_grid[2] <= "
        "0)\n    return CUDA_SUCCESS; /* nothing to compute */\n"
     << "  if (tilec_grid[0] > INT32_MAX || tilec_grid[1] > 65535 || "
        "tilec_grid[2] > 65535)\n    return CUDA_ERROR_INVALID_VALUE;\n";
  // A size the kernel computes is not encoded as 1, nor a stride as
  // anything (a parameter of 0 is an empty problem the kernel's own loops
  // skip).
  llvm::SmallDenseSet<unsigned> zeroChecked;
  for (const rt::TensorMapSpec &m : spec.tensorMaps)
    for (unsigned d = 0; d < m.getRank(); ++d)
      for (const rt::HostValue *v : {&m.sizes[d], &m.strides[d]})
        if (v->isComputed() && zeroChecked.insert(computed.lookup(v)).second)
          os << "  if (" << hostValue(*v)
             << " == 0)\n    return CUDA_ERROR_INVALID_VALUE; /* TMA: "
             << v->expr.getText() << " positive when programs run */\n";
  // Whole clusters; a persistent kernel's tiles too (its programs walk them
  // in step, sharing tiles by multicast) before the cap below.
  if (spec.hasCluster())
    os << llvm::formatv("  if (tilec_grid[0] % {0} != 0 || tilec_grid[1] % {1} "
                        "!= 0 || tilec_grid[2] % {2} != 0)\n"
                        "    return CUDA_ERROR_INVALID_VALUE; /* whole "
                        "clusters */\n",
                        spec.cluster[0], spec.cluster[1], spec.cluster[2]);

  os << "  tilec_err = " << prefix << "_load();\n"
     << "  if (tilec_err != CUDA_SUCCESS)\n    return tilec_err;\n";
  // Resident programs come in whole clusters: the cap keeps them whole.
  if (spec.persistent)
    os << "  if (tilec_grid[0] > " << state << ".resident_programs)\n"
       << "    tilec_grid[0] = " << state << ".resident_programs;\n";
  for (unsigned i = 0; i < spec.tensorMaps.size(); ++i)
    writeTensorMap(i);

  for (auto [i, p] : llvm::enumerate(spec.params)) {
    os << "  tilec_slots[" << i << "] = ";
    if (p.kind == rt::ParamSpec::Kind::Pointer)
      os << "(uint64_t)" << names[i] << ";\n";
    else if (p.dtype == rt::DType::I1)
      os << "(uint64_t)(" << names[i] << " != 0);\n";
    else if (rt::isIntegerDType(p.dtype))
      os << "(uint64_t)(int64_t)" << names[i] << ";\n";
    else if (p.dtype == rt::DType::F16)
      os << "tilec_aot_f16_bits(" << names[i] << ");\n";
    else if (p.dtype == rt::DType::BF16)
      os << "tilec_aot_bf16_bits(" << names[i] << ");\n";
    else
      os << "0;\n  memcpy(&tilec_slots[" << i << "], &" << names[i]
         << ", sizeof(" << names[i] << "));\n";
    os << "  tilec_params[" << p.position << "] = &tilec_slots[" << i << "];\n";
  }
  for (auto [i, m] : llvm::enumerate(spec.tensorMaps))
    os << "  tilec_params[" << m.position << "] = &tilec_maps[" << i << "];\n";

  os << "  memset(&tilec_config, 0, sizeof(tilec_config));\n"
     << "  tilec_config.gridDimX = (unsigned)tilec_grid[0];\n"
     << "  tilec_config.gridDimY = (unsigned)tilec_grid[1];\n"
     << "  tilec_config.gridDimZ = (unsigned)tilec_grid[2];\n"
     << "  tilec_config.blockDimX = " << spec.block[0] << ";\n"
     << "  tilec_config.blockDimY = " << spec.block[1] << ";\n"
     << "  tilec_config.blockDimZ = " << spec.block[2] << ";\n"
     << "  tilec_config.sharedMemBytes = " << spec.smemBytes << ";\n"
     << "  tilec_config.hStream = tilec_stream;\n";
  if (spec.hasCluster())
    os << "  memset(&tilec_attr, 0, sizeof(tilec_attr));\n"
       << "  tilec_attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;\n"
       << "  tilec_attr.value.clusterDim.x = " << spec.cluster[0] << ";\n"
       << "  tilec_attr.value.clusterDim.y = " << spec.cluster[1] << ";\n"
       << "  tilec_attr.value.clusterDim.z = " << spec.cluster[2] << ";\n"
       << "  tilec_config.attrs = &tilec_attr;\n"
       << "  tilec_config.numAttrs = 1;\n";
  os << "  return cuLaunchKernelEx(&tilec_config, " << state
     << ".function, tilec_params, NULL);\n}\n";
}

void HeaderWriter::write() {
  std::string macro = "TILEC_" + StringRef(spec.name).upper();
  std::string guard = "TILEC_AOT_" + StringRef(spec.name).upper() + "_H";
  writeComment();
  os << "\n#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <cuda.h>\n#include <stdint.h>\n#include <string.h>\n\n"
     << "/* The chip the kernel was compiled for and the cubin's target. */\n"
     << "#define " << macro << "_CHIP \"" << spec.chip << "\"\n"
     << "#define " << macro << "_CUBIN_ARCH \"" << spec.cubinArch << "\"\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "#ifndef TILEC_AOT_ALIGN64\n#if defined(_MSC_VER)\n"
     << "#define TILEC_AOT_ALIGN64 __declspec(align(64))\n#else\n"
     << "#define TILEC_AOT_ALIGN64 __attribute__((aligned(64)))\n#endif\n"
     << "#endif\n\n"
     << kCommonHelpers << "\n";
  if (!computed.empty())
    os << kViewHelper << "\n";
  writeCubin();
  writeLoad();
  writeUnload();
  writeLaunch();
  os << "\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* "
     << guard << " */\n";
}

FailureOr<std::string>
mlir::tilec::buildAotHeader(Location loc, StringRef metadata, StringRef cubin) {
  rt::StatusOr<rt::KernelSpec> spec = rt::KernelSpec::parse(metadata);
  if (!spec.ok())
    return emitError(loc) << "cannot read the launch metadata: "
                          << spec.getStatus().message();
  if (cubin.empty())
    return emitError(loc) << "no cubin to embed for '" << spec->name << "'";
  std::string header;
  llvm::raw_string_ostream os(header);
  HeaderWriter writer(*spec, cubin, os);
  if (failed(writer.prepare(loc)))
    return failure();
  writer.write();
  return header;
}
