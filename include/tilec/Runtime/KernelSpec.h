//===- KernelSpec.h - Launch metadata and argument binding ------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the host half of a tilec launch, the part that needs no
// GPU: KernelSpec, the parsed `<kernel>.json` that `tilec` writes next to the
// cubin, and KernelSpec::bind, which checks launch arguments (Arg) against it
// and computes everything a launch needs: the grid from the grid rule, the
// bytes of every parameter and the tensor maps to encode.
//
// tilec::Kernel (Runtime.h) launches what bind produced, so every check runs
// before the first driver call and a refused launch never touches the CUDA
// context. The AOT header generator of `tilec --emit=header` reads the same
// KernelSpec. This part is plain C++17: no CUDA, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_RUNTIME_KERNELSPEC_H
#define TILEC_RUNTIME_KERNELSPEC_H

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace tilec {

//===----------------------------------------------------------------------===//
// Status
//===----------------------------------------------------------------------===//

/// Success, or a failure with a message that names the kernel, the parameter
/// and the rule that was broken. The runtime reports every failure this way;
/// it never throws or aborts.
class [[nodiscard]] Status {
public:
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status s;
    s.failed = true;
    s.text = std::move(message);
    return s;
  }
  /// A failure of the driver (or no driver, or no context), as opposed to
  /// arguments or metadata the kernel refuses; `result` is the CUresult.
  static Status driverError(std::string message, int result) {
    Status s = error(std::move(message));
    s.driver = true;
    s.result = result;
    return s;
  }

  bool ok() const { return !failed; }
  bool isDriverError() const { return driver; }
  /// The CUresult of a driver error (0 otherwise).
  int getDriverResult() const { return result; }
  /// The failure's message; empty on success.
  const std::string &message() const { return text; }

private:
  bool failed = false;
  bool driver = false;
  int result = 0;
  std::string text;
};

/// A value, or the Status saying why there is none.
template <typename T>
class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value(std::move(value)) {}
  StatusOr(Status status) : status(std::move(status)) {
    assert(!this->status.ok() && "a StatusOr without a value needs an error");
  }

  bool ok() const { return value.has_value(); }
  const Status &getStatus() const { return status; }
  T &operator*() & { return *value; }
  const T &operator*() const & { return *value; }
  T &&operator*() && { return std::move(*value); }
  T *operator->() { return &*value; }
  const T *operator->() const { return &*value; }

private:
  std::optional<T> value;
  Status status;
};

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

/// Element and scalar types, spelled in `<kernel>.json` as MLIR spells them.
/// `Any` is only meaningful on an Arg: no dtype check.
enum class DType : uint8_t {
  Any,
  I1,
  I8,
  I16,
  I32,
  I64,
  F16,
  BF16,
  F32,
  F64,
  F8E4M3,
  F8E5M2,
};

/// Parses "i32", "bf16", "f8e4m3", ...; std::nullopt for anything else.
std::optional<DType> parseDType(std::string_view name);
/// The metadata spelling of `dtype` ("any" for DType::Any).
const char *getDTypeName(DType dtype);
/// Bytes of one element in memory (1 for i1); 0 for DType::Any.
unsigned getDTypeBytes(DType dtype);
/// Whether `dtype` is one of the integer types.
bool isIntegerDType(DType dtype);

/// One parameter of the kernel, as the tile program declares it.
struct ParamSpec {
  enum class Kind : uint8_t { Pointer, Scalar };

  std::string name;
  Kind kind = Kind::Scalar;
  DType dtype = DType::Any;
  /// Position among the kernel function's parameters (tensor maps that the
  /// lowering added take the other positions).
  unsigned position = 0;
  /// Pointers: required alignment of the address in bytes (0: none).
  uint64_t align = 0;
  /// Integer scalars: required divisor of the value (0: none).
  int64_t divisibility = 0;
};

/// One dimension of the grid rule: an integer expression over the kernel's
/// integer parameters, in the syntax of tile.kernel's `grid(...)`:
///
///   expr   := term (('+' | '-') term)*
///   term   := factor ('*' factor)*
///   factor := integer | name | '-' factor | '(' expr ')'
///           | ('ceildiv' | 'floordiv' | 'mod') '(' expr ',' expr ')'
///
/// Division rounds like Python's (`floordiv` toward -inf, `mod` takes the
/// divisor's sign), as python/tilec/grid.py does.
class GridExpr {
public:
  /// One step of the expression in postfix order: constants and parameters
  /// push a value, the others pop their operands and push the result.
  struct Op {
    enum class Kind : uint8_t {
      Constant,
      Param,
      Add,
      Sub,
      Mul,
      Neg,
      CeilDiv,
      FloorDiv,
      Mod,
    };
    Kind kind;
    /// The constant, or the index into KernelSpec::params.
    int64_t value = 0;
  };

  /// Parses `text`; names must be integer scalar parameters of `params`.
  static StatusOr<GridExpr> parse(std::string_view text,
                                  const std::vector<ParamSpec> &params);

  /// The value with integer parameter `i` equal to `values[i]`. Fails on a
  /// division by zero or an overflow of 64-bit arithmetic.
  StatusOr<int64_t> evaluate(const int64_t *values) const;

  /// Largest value of a view size or stride: the kernel computes them in
  /// 32-bit integers.
  static constexpr int64_t kMaxViewValue = (int64_t(1) << 31) - 1;
  /// The value of a computed tensor-map size or stride, which the kernel
  /// computes too (in 32-bit integers, dividing toward zero): every value
  /// the expression computes, its parameters' included, must be in
  /// [0, kMaxViewValue], where both agree. Fails naming the first value
  /// outside, or a division by zero.
  StatusOr<int64_t> evaluateViewValue(const int64_t *values) const;
  /// "S=64, BH=8": the parameters the expression reads and their values.
  std::string describeParams(const std::vector<ParamSpec> &params,
                             const int64_t *values) const;

  const std::string &getText() const { return text; }
  const std::vector<Op> &getOps() const { return ops; }

private:
  /// evaluate(), or evaluateViewValue() with `bounded`.
  StatusOr<int64_t> evaluateImpl(const int64_t *values, bool bounded) const;

  std::string text;
  std::vector<Op> ops;
};

/// A size or stride of a tensor map: a constant, the value of an integer
/// parameter, or an expression over integer parameters that the kernel
/// computes too (`"S * BH"`, in the grid rule's syntax; see
/// GridExpr::evaluateViewValue for its range).
struct HostValue {
  /// Index into KernelSpec::params, or -1 for a constant or an expression.
  int param = -1;
  int64_t constant = 0;
  /// The expression, when isComputed().
  GridExpr expr;

  /// Whether the value is computed from parameters (neither a constant nor
  /// one parameter).
  bool isComputed() const { return !expr.getOps().empty(); }
};

/// A TMA descriptor the kernel takes as a `__grid_constant__` parameter,
/// encoded on the host with cuTensorMapEncodeTiled from a pointer parameter
/// and integer parameters. Dimensions are listed innermost first, as
/// cuTensorMapEncodeTiled takes them; sizes and strides count elements, and
/// the innermost stride is always 1 (TMA reads rows contiguously).
struct TensorMapSpec {
  /// Position among the kernel function's parameters.
  unsigned position = 0;
  /// Index into KernelSpec::params of the pointer the map reads.
  unsigned base = 0;
  DType dtype = DType::Any;
  unsigned elemBytes = 0;
  std::vector<HostValue> sizes;
  std::vector<HostValue> strides;
  std::vector<uint32_t> box;
  /// Shared-memory swizzle span in bytes: 0, 32, 64 or 128.
  unsigned swizzle = 0;

  unsigned getRank() const { return static_cast<unsigned>(sizes.size()); }
};

//===----------------------------------------------------------------------===//
// Arguments
//===----------------------------------------------------------------------===//

/// One launch argument: a device pointer (optionally with the dtype, shape
/// and strides of the tensor it points to, for validation) or a scalar.
/// Arguments bind to parameters by position, or by name with named(); named
/// arguments follow the positional ones, as keyword arguments do in Python.
///
///   kernel.launch({tilec::Arg::ptr(a, tilec::DType::BF16),
///                  tilec::Arg::ptr(b, tilec::DType::BF16),
///                  tilec::Arg::ptr(c, tilec::DType::BF16), M, N, K,
///                  tilec::Arg(lda).named("lda"), ...}, stream);
///
/// An Arg refers to its name (a string_view) and keeps no other reference;
/// it only needs to live for the call it is passed to.
class Arg {
public:
  enum class Kind : uint8_t { Pointer, Int, Float };
  /// Largest tensor rank an Arg describes (TMA's limit).
  static constexpr unsigned kMaxRank = 5;

  /// An integer (or bool) scalar. Integer parameters take integers that fit
  /// their (signed) width; floating-point parameters take any number.
  template <typename T,
            typename std::enable_if<std::is_integral<T>::value, int>::type = 0>
  Arg(T value) : kind(Kind::Int), intValue(static_cast<int64_t>(value)) {}
  /// A floating-point scalar, for f16, bf16, f32 and f64 parameters.
  Arg(float value) : kind(Kind::Float), floatValue(value) {}
  Arg(double value) : kind(Kind::Float), floatValue(value) {}

  /// A device pointer (a CUdeviceptr or a pointer from cudaMalloc). With a
  /// dtype other than Any, it must match the parameter's.
  static Arg ptr(uint64_t address, DType dtype = DType::Any);
  static Arg ptr(const void *address, DType dtype = DType::Any);

  /// A device pointer to element [0, ..., 0] of a strided tensor; `shape`
  /// and `strides` (in elements, outermost first) are checked against the
  /// tensor maps the kernel builds from this pointer: strides must match,
  /// sizes must fit, and the innermost dimension must be contiguous.
  static Arg tensor(uint64_t address, DType dtype,
                    std::initializer_list<int64_t> shape,
                    std::initializer_list<int64_t> strides);
  static Arg tensor(const void *address, DType dtype,
                    std::initializer_list<int64_t> shape,
                    std::initializer_list<int64_t> strides);
  /// tensor() with `rank` sizes at `shape` and strides at `strides`.
  static Arg tensor(uint64_t address, DType dtype, const int64_t *shape,
                    const int64_t *strides, unsigned rank);

  /// This argument bound to the parameter `name` instead of by position.
  Arg named(std::string_view name) const {
    Arg a = *this;
    a.name = name;
    return a;
  }

  Kind getKind() const { return kind; }
  DType getDType() const { return dtype; }
  std::string_view getName() const { return name; }
  uint64_t getAddress() const { return address; }
  int64_t getInt() const { return intValue; }
  double getFloat() const { return floatValue; }
  /// Tensor rank; 0 for a plain pointer (no shape to check).
  unsigned getRank() const { return rank; }
  /// Whether tensor() was given shape and strides of different lengths, or
  /// no or more than kMaxRank dimensions.
  bool hasBadShape() const { return badShape; }
  int64_t getShape(unsigned dim) const { return shape[dim]; }
  int64_t getStride(unsigned dim) const { return strides[dim]; }

private:
  Arg() = default;

  Kind kind = Kind::Pointer;
  DType dtype = DType::Any;
  uint8_t rank = 0;
  bool badShape = false;
  std::string_view name;
  uint64_t address = 0;
  int64_t intValue = 0;
  double floatValue = 0;
  std::array<int64_t, kMaxRank> shape{};
  std::array<int64_t, kMaxRank> strides{};
};

/// A view of launch arguments: a braced list or a vector. Like any view, it
/// must not outlive them; it is meant to be a parameter.
class ArgList {
public:
  ArgList(const Arg *args, size_t count) : first(args), count(count) {}
  ArgList(std::initializer_list<Arg> args)
      : ArgList(args.begin(), args.size()) {}
  ArgList(const std::vector<Arg> &args) : ArgList(args.data(), args.size()) {}

  const Arg *begin() const { return first; }
  const Arg *end() const { return first + count; }
  size_t size() const { return count; }
  const Arg &operator[](size_t i) const { return first[i]; }

private:
  const Arg *first;
  size_t count;
};

//===----------------------------------------------------------------------===//
// Binding
//===----------------------------------------------------------------------===//

/// cuTensorMapEncodeTiled's inputs for one tensor map of one launch.
struct TensorMapRequest {
  /// Index into KernelSpec::tensorMaps.
  unsigned spec = 0;
  uint64_t address = 0;
  unsigned rank = 0;
  /// Elements per dimension, innermost first (at least 1).
  std::array<uint64_t, Arg::kMaxRank> sizes{};
  /// Byte strides of dimensions 1 .. rank-1.
  std::array<uint64_t, Arg::kMaxRank - 1> strides{};

  bool operator==(const TensorMapRequest &other) const {
    return spec == other.spec && address == other.address &&
           rank == other.rank && sizes == other.sizes &&
           strides == other.strides;
  }
};

/// Everything a launch needs besides the driver: what KernelSpec::bind
/// produces from valid arguments.
struct LaunchPlan {
  /// Programs per grid dimension from the grid rule (before a persistent
  /// kernel's cap at the programs the device holds at once).
  std::array<int64_t, 3> grid{1, 1, 1};
  /// One 8-byte slot per entry of KernelSpec::params: the device address, or
  /// the scalar's bits in the low bytes (integers sign-extended).
  std::vector<uint64_t> values;
  /// One request per entry of KernelSpec::tensorMaps.
  std::vector<TensorMapRequest> tensorMaps;

  /// Whether the grid is empty (a size is zero): nothing to launch.
  bool isEmpty() const { return grid[0] <= 0 || grid[1] <= 0 || grid[2] <= 0; }
};

/// `<kernel>.json`: everything needed to launch the kernel besides the cubin.
struct KernelSpec {
  /// The kernel's symbol in the cubin.
  std::string name;
  std::string chip;
  std::string cubinArch;
  std::string ptxVersion;
  std::string tilecVersion;
  unsigned numWarps = 0;
  std::array<unsigned, 3> block{1, 1, 1};
  std::array<unsigned, 3> cluster{1, 1, 1};
  /// Dynamic shared memory per block.
  unsigned smemBytes = 0;
  /// One to three dimensions.
  std::vector<GridExpr> grid;
  /// The kernel loops over tiles: launch at most as many programs as the
  /// device holds at once.
  bool persistent = false;
  std::vector<ParamSpec> params;
  std::vector<TensorMapSpec> tensorMaps;

  /// Parses and checks `<kernel>.json`. Errors name the offending field.
  static StatusOr<KernelSpec> parse(std::string_view json);

  /// Parameters of the kernel function: params plus tensor maps.
  unsigned getNumKernelParams() const {
    return static_cast<unsigned>(params.size() + tensorMaps.size());
  }
  /// Index into params of the parameter called `name`, or -1.
  int findParam(std::string_view name) const;
  /// Whether a cluster launch attribute is needed.
  bool hasCluster() const { return cluster[0] * cluster[1] * cluster[2] != 1; }

  /// Checks `args` against the parameters and fills `plan`: arity and names,
  /// pointer/scalar kinds, dtypes, integer ranges, alignment and
  /// divisibility requirements, tensor-map rules (16-byte aligned base and
  /// byte strides, sizes up to 2^32, strides below 2^40, contiguity and the
  /// shapes of tensor arguments) and the grid rule. Calls no driver
  /// function, so it works without a GPU or a context. `plan` may be reused
  /// across calls to save allocations. `grid`, when given, replaces the grid
  /// rule (a kernel without one needs it); it is checked as the rule's is.
  Status bind(ArgList args, LaunchPlan &plan,
              const std::array<int64_t, 3> *grid = nullptr) const;
};

} // namespace tilec

#endif // TILEC_RUNTIME_KERNELSPEC_H
