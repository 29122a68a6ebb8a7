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
// KernelSpec to name and type the parameters) it writes a C header that
// embeds both and defines a typed launch function, valid C99 and C++:
//
//   CUresult tilec_<kernel>_launch(CUstream stream, <typed parameters>);
//
// The function is a thin wrapper: it hands the arguments to
// libtilec-runtime.so (include/tilec-c/Runtime.h), the one implementation of
// the launch contract that the Python package uses too, which checks them,
// evaluates the grid rule, encodes the tensor maps and launches. Programs
// link with -ltilec-runtime.
//
//===----------------------------------------------------------------------===//

#include "tilec/Compiler/Compiler.h"
#include "tilec/Runtime/KernelSpec.h"

#include "llvm/ADT/StringExtras.h"
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
      name.starts_with("tilec_") || name.starts_with("tilecRt") ||
      name.starts_with("TilecRt") || name.starts_with("TILEC_") ||
      name.starts_with("CU") ||
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

/// Helpers every header shares, defined once per translation unit.
static constexpr const char *kCommonHelpers = R"(#ifndef TILEC_AOT_COMMON
#define TILEC_AOT_COMMON
/* Shared by the headers of `tilec --emit=header`. The CUresult of a status of
 * libtilec-runtime.so: refused arguments are CUDA_ERROR_INVALID_VALUE
 * (tilecRtGetLastError says which rule they break). */
static inline CUresult tilec_aot_result(TilecRtStatus status) {
  int result;
  if (status == TilecRtSuccess)
    return CUDA_SUCCESS;
  result = tilecRtGetLastDriverResult();
  if (status == TilecRtDriverError && result != 0)
    return (CUresult)result;
  return status == TilecRtDriverError ? CUDA_ERROR_UNKNOWN
                                      : CUDA_ERROR_INVALID_VALUE;
}
/* The kernel `*slot` holds, made from the embedded cubin and metadata by the
 * first call (of threads racing here, one kernel is kept). NULL if the
 * runtime refuses them (tilecRtGetLastError says why). */
static inline TilecRtKernel *tilec_aot_kernel(TilecRtKernel **slot,
                                              const unsigned char *cubin,
                                              size_t cubin_bytes,
                                              const unsigned char *metadata,
                                              size_t metadata_bytes) {
  TilecRtKernel *kernel = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  TilecRtKernel *expected = NULL;
  if (kernel != NULL)
    return kernel;
  if (tilecRtKernelCreate(cubin, cubin_bytes, (const char *)metadata,
                          metadata_bytes, &kernel) != TilecRtSuccess)
    return NULL;
  if (!__atomic_compare_exchange_n(slot, &expected, kernel, 0,
                                   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    tilecRtKernelDestroy(kernel);
    return expected;
  }
  return kernel;
}
#endif /* TILEC_AOT_COMMON */
)";

namespace {
/// Writes the header of one kernel.
class HeaderWriter {
public:
  HeaderWriter(const rt::KernelSpec &spec, StringRef metadata, StringRef cubin,
               llvm::raw_ostream &os)
      : spec(spec), metadata(metadata), cubin(cubin), os(os),
        prefix("tilec_" + spec.name) {}

  /// Names parameters and checks the constant parts of tensor maps.
  LogicalResult prepare(Location loc);
  void write();

private:
  /// The text of tensor-map size or stride `v` for the header's comment.
  std::string describe(const rt::HostValue &v) const;
  void writeComment();
  /// `bytes` as the C array `name` of `type`.
  void writeBytes(StringRef what, StringRef type, StringRef name,
                  StringRef bytes);
  void writeLoad();
  void writeLaunch();

  const rt::KernelSpec &spec;
  StringRef metadata;
  StringRef cubin;
  llvm::raw_ostream &os;
  std::string prefix;
  /// C names of the parameters.
  SmallVector<std::string> names;
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
  // Constant sizes and strides no launch can change are refused here, once.
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
     << "); do not edit. Valid C99 and C++; needs <cuda.h> and\n"
        " * tilec-c/Runtime.h (-I<tilec>/include), links with -ltilec-runtime."
        "\n *\n *   CUresult "
     << prefix << "_launch(CUstream stream";
  for (auto [i, p] : llvm::enumerate(spec.params))
    os << ",\n *       "
       << (p.kind == rt::ParamSpec::Kind::Pointer ? StringRef("CUdeviceptr")
                                                  : getCScalarType(p.dtype))
       << " " << names[i];
  if (spec.grid.empty())
    os << ",\n *       int64_t tilec_grid_x, int64_t tilec_grid_y, int64_t "
          "tilec_grid_z";
  os << ");\n *\n"
     << " * launches the kernel on `stream` in the current context through "
        "libtilec-runtime.so,\n * the launch contract of the C++ runtime and "
        "the Python package: the module is\n * loaded once per context ("
     << prefix
     << "_load() does it ahead of time), the\n * arguments are checked "
        "against the requirements below before any driver call\n"
        " * (CUDA_ERROR_INVALID_VALUE; "
     << prefix
     << "_error() says which rule they break),\n"
        " * the grid comes from the grid rule and the tensor maps are encoded "
        "by the\n * runtime. A grid without programs returns CUDA_SUCCESS and "
        "launches nothing.\n *\n";
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
  if (spec.grid.empty()) {
    os << " *\n * Grid: the caller's (tilec_grid_x, tilec_grid_y, "
          "tilec_grid_z)";
  } else {
    os << " *\n * Grid: (";
    for (unsigned d = 0; d < 3; ++d)
      os << (d ? ", " : "")
         << (d < spec.grid.size() ? spec.grid[d].getText() : "1");
    os << ")";
  }
  if (spec.persistent)
    os << ", x at most the programs resident at once (persistent)";
  os << ".\n * Block: " << spec.block[0] << " x " << spec.block[1] << " x "
     << spec.block[2] << " threads; cluster " << spec.cluster[0] << " x "
     << spec.cluster[1] << " x " << spec.cluster[2]
     << "; dynamic shared memory " << spec.smemBytes << " bytes.\n */\n";
}

void HeaderWriter::writeBytes(StringRef what, StringRef type, StringRef name,
                              StringRef bytes) {
  os << "/* " << what << ", " << bytes.size() << " bytes. */\nstatic const "
     << type << " " << name << "[" << bytes.size() << "] = {";
  for (size_t i = 0; i < bytes.size(); ++i) {
    os << (i % 16 == 0 ? "\n  " : " ");
    os << llvm::formatv(
        "{0:x2},", static_cast<unsigned>(static_cast<unsigned char>(bytes[i])));
  }
  os << "\n};\n\n";
}

void HeaderWriter::writeLoad() {
  std::string handle = prefix + "_handle";
  std::string kernel = "tilec_aot_kernel(&" + handle + ", " + prefix +
                       "_cubin, sizeof(" + prefix + "_cubin), " + prefix +
                       "_metadata, sizeof(" + prefix + "_metadata))";
  os << "/* The runtime's kernel, made by the first call. */\nstatic "
        "TilecRtKernel *"
     << handle << ";\n\n"
     << "/* The message of this thread's last failed call: the rule its "
        "arguments break,\n * or the driver's error. */\n"
     << "static inline const char *" << prefix
     << "_error(void) { return tilecRtGetLastError(); }\n\n"
     << "/* Loads the module into the current context (the first launch "
        "there does it). */\nstatic inline CUresult "
     << prefix << "_load(void) {\n  TilecRtKernel *kernel = " << kernel
     << ";\n  if (kernel == NULL)\n    return CUDA_ERROR_INVALID_IMAGE;\n"
     << "  return tilec_aot_result(tilecRtKernelLoad(kernel));\n}\n\n"
     << "/* Unloads the module from every context it was loaded into. */\n"
     << "static inline CUresult " << prefix << "_unload(void) {\n"
     << "  tilecRtKernelDestroy(__atomic_exchange_n(&" << handle
     << ", (TilecRtKernel *)NULL,\n                                          "
        "__ATOMIC_ACQ_REL));\n"
     << "  return CUDA_SUCCESS;\n}\n\n";
}

void HeaderWriter::writeLaunch() {
  size_t numParams = spec.params.size();
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
  os << ") {\n  TilecRtArg tilec_args[" << std::max<size_t>(1, numParams)
     << "];\n";
  if (callerGrid)
    os << "  int64_t tilec_grid[3];\n";
  os << "  TilecRtKernel *tilec_kernel = tilec_aot_kernel(&" << prefix
     << "_handle, " << prefix << "_cubin, sizeof(" << prefix
     << "_cubin),\n                                                 " << prefix
     << "_metadata, sizeof(" << prefix << "_metadata));\n"
     << "  if (tilec_kernel == NULL)\n    return CUDA_ERROR_INVALID_IMAGE;\n"
     << "  memset(tilec_args, 0, sizeof(tilec_args));\n";
  for (auto [i, p] : llvm::enumerate(spec.params)) {
    std::string arg = "  tilec_args[" + std::to_string(i) + "].";
    if (p.kind == rt::ParamSpec::Kind::Pointer)
      os << arg << "kind = TilecRtArgPointer;\n"
         << arg << "address = (uint64_t)" << names[i] << ";\n";
    else if (p.dtype == rt::DType::I1)
      os << arg << "kind = TilecRtArgInt;\n"
         << arg << "intValue = " << names[i] << " != 0;\n";
    else if (rt::isIntegerDType(p.dtype))
      os << arg << "kind = TilecRtArgInt;\n"
         << arg << "intValue = (int64_t)" << names[i] << ";\n";
    else
      os << arg << "kind = TilecRtArgFloat;\n"
         << arg << "floatValue = (double)" << names[i] << ";\n";
  }
  if (callerGrid)
    os << "  tilec_grid[0] = tilec_grid_x;\n  tilec_grid[1] = tilec_grid_y;\n"
       << "  tilec_grid[2] = tilec_grid_z;\n";
  os << "  return tilec_aot_result(tilecRtKernelLaunch(\n      tilec_kernel, "
        "tilec_args, "
     << numParams << ", " << (callerGrid ? "tilec_grid" : "NULL")
     << ", (void *)tilec_stream));\n}\n";
}

void HeaderWriter::write() {
  std::string macro = "TILEC_" + StringRef(spec.name).upper();
  std::string guard = "TILEC_AOT_" + StringRef(spec.name).upper() + "_H";
  writeComment();
  os << "\n#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <cuda.h>\n#include <stddef.h>\n#include <stdint.h>\n"
     << "#include <string.h>\n\n#include \"tilec-c/Runtime.h\"\n\n"
     << "/* The chip the kernel was compiled for and the cubin's target. */\n"
     << "#define " << macro << "_CHIP \"" << spec.chip << "\"\n"
     << "#define " << macro << "_CUBIN_ARCH \"" << spec.cubinArch << "\"\n\n"
     << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << kCommonHelpers << "\n";
  writeBytes("The cubin (" + spec.cubinArch + ")", "unsigned char",
             prefix + "_cubin", cubin);
  writeBytes("The launch metadata (" + spec.name + ".json)", "unsigned char",
             prefix + "_metadata", metadata);
  writeLoad();
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
  HeaderWriter writer(*spec, metadata, cubin, os);
  if (failed(writer.prepare(loc)))
    return failure();
  writer.write();
  return header;
}
