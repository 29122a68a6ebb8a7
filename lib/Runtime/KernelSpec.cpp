//===- KernelSpec.cpp - Launch metadata and argument binding --------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements KernelSpec: the checks of `<kernel>.json` (read by
// Json.h), the grid-rule evaluator, and KernelSpec::bind, which validates
// launch arguments and computes the launch without any driver call.
//
//===----------------------------------------------------------------------===//

#include "tilec/Runtime/KernelSpec.h"
#include "Json.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>

using namespace tilec;

//===----------------------------------------------------------------------===//
// DType
//===----------------------------------------------------------------------===//

namespace {
struct DTypeInfo {
  DType dtype;
  const char *name;
  unsigned bytes;
};
} // namespace

static const DTypeInfo kDTypes[] = {
    {DType::Any, "any", 0},       {DType::I1, "i1", 1},
    {DType::I8, "i8", 1},         {DType::I16, "i16", 2},
    {DType::I32, "i32", 4},       {DType::I64, "i64", 8},
    {DType::F16, "f16", 2},       {DType::BF16, "bf16", 2},
    {DType::F32, "f32", 4},       {DType::F64, "f64", 8},
    {DType::F8E4M3, "f8e4m3", 1}, {DType::F8E5M2, "f8e5m2", 1},
};

std::optional<DType> tilec::parseDType(std::string_view name) {
  for (const DTypeInfo &info : kDTypes)
    if (info.dtype != DType::Any && name == info.name)
      return info.dtype;
  return std::nullopt;
}

const char *tilec::getDTypeName(DType dtype) {
  return kDTypes[static_cast<unsigned>(dtype)].name;
}

unsigned tilec::getDTypeBytes(DType dtype) {
  return kDTypes[static_cast<unsigned>(dtype)].bytes;
}

bool tilec::isIntegerDType(DType dtype) {
  return dtype == DType::I1 || dtype == DType::I8 || dtype == DType::I16 ||
         dtype == DType::I32 || dtype == DType::I64;
}

//===----------------------------------------------------------------------===//
// GridExpr
//===----------------------------------------------------------------------===//

namespace {
/// Recursive-descent parser of one grid expression into postfix ops.
class GridParser {
public:
  GridParser(std::string_view text, const std::vector<ParamSpec> &params,
             std::vector<GridExpr::Op> &ops)
      : text(text), params(params), ops(ops) {}

  Status parse() {
    if (Status s = expr(0); !s.ok())
      return s;
    skipSpace();
    return pos == text.size() ? Status::success() : fail("trailing input");
  }

private:
  using Kind = GridExpr::Op::Kind;

  Status fail(const std::string &what) const {
    return Status::error("grid expression '" + std::string(text) +
                         "': " + what);
  }
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t'))
      ++pos;
  }
  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  std::string_view identifier() {
    skipSpace();
    size_t start = pos;
    while (pos < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[pos])) ||
            text[pos] == '_'))
      ++pos;
    return text.substr(start, pos - start);
  }

  Status expr(unsigned depth) {
    if (depth > 64)
      return fail("nested too deeply");
    if (Status s = term(depth); !s.ok())
      return s;
    while (true) {
      Kind kind;
      if (consume('+'))
        kind = Kind::Add;
      else if (consume('-'))
        kind = Kind::Sub;
      else
        return Status::success();
      if (Status s = term(depth); !s.ok())
        return s;
      ops.push_back({kind});
    }
  }

  Status term(unsigned depth) {
    if (Status s = factor(depth); !s.ok())
      return s;
    while (consume('*')) {
      if (Status s = factor(depth); !s.ok())
        return s;
      ops.push_back({Kind::Mul});
    }
    return Status::success();
  }

  Status factor(unsigned depth) {
    if (consume('-')) {
      if (Status s = factor(depth + 1); !s.ok())
        return s;
      ops.push_back({Kind::Neg});
      return Status::success();
    }
    if (consume('(')) {
      if (Status s = expr(depth + 1); !s.ok())
        return s;
      return consume(')') ? Status::success() : fail("expected ')'");
    }
    skipSpace();
    if (pos < text.size() &&
        std::isdigit(static_cast<unsigned char>(text[pos]))) {
      int64_t v = 0;
      while (pos < text.size() &&
             std::isdigit(static_cast<unsigned char>(text[pos]))) {
        if (v > (std::numeric_limits<int64_t>::max() - 9) / 10)
          return fail("integer too large");
        v = v * 10 + (text[pos++] - '0');
      }
      ops.push_back({Kind::Constant, v});
      return Status::success();
    }
    std::string_view name = identifier();
    if (name.empty())
      return pos < text.size()
                 ? fail(std::string("unexpected '") + text[pos] + "'")
                 : fail("unexpected end");
    Kind fn;
    if (name == "ceildiv")
      fn = Kind::CeilDiv;
    else if (name == "floordiv")
      fn = Kind::FloorDiv;
    else if (name == "mod")
      fn = Kind::Mod;
    else {
      for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].name != name)
          continue;
        if (params[i].kind != ParamSpec::Kind::Scalar ||
            !isIntegerDType(params[i].dtype))
          return fail("'" + std::string(name) +
                      "' is not an integer scalar parameter");
        ops.push_back({Kind::Param, static_cast<int64_t>(i)});
        return Status::success();
      }
      return fail("unknown parameter '" + std::string(name) + "'");
    }
    if (!consume('('))
      return fail("expected '(' after '" + std::string(name) + "'");
    if (Status s = expr(depth + 1); !s.ok())
      return s;
    if (!consume(','))
      return fail("expected ',' in '" + std::string(name) + "'");
    if (Status s = expr(depth + 1); !s.ok())
      return s;
    if (!consume(')'))
      return fail("expected ')'");
    ops.push_back({fn});
    return Status::success();
  }

  std::string_view text;
  const std::vector<ParamSpec> &params;
  std::vector<GridExpr::Op> &ops;
  size_t pos = 0;
};
} // namespace

/// Operand-stack depth evaluate() allows (it avoids an allocation per launch).
static constexpr size_t kMaxGridStack = 32;

StatusOr<GridExpr> GridExpr::parse(std::string_view text,
                                   const std::vector<ParamSpec> &params) {
  GridExpr e;
  e.text = std::string(text);
  if (Status s = GridParser(text, params, e.ops).parse(); !s.ok())
    return s;
  size_t depth = 0;
  for (const Op &op : e.ops) {
    if (op.kind == Op::Kind::Constant || op.kind == Op::Kind::Param)
      ++depth;
    else if (op.kind != Op::Kind::Neg)
      --depth;
    if (depth > kMaxGridStack)
      return Status::error("grid expression '" + e.text +
                           "': nested too deeply");
  }
  return e;
}

/// a / b rounded toward negative infinity (b != 0).
static int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

StatusOr<int64_t> GridExpr::evaluate(const int64_t *values) const {
  return evaluateImpl(values, /*bounded=*/false);
}

StatusOr<int64_t> GridExpr::evaluateViewValue(const int64_t *values) const {
  return evaluateImpl(values, /*bounded=*/true);
}

StatusOr<int64_t> GridExpr::evaluateImpl(const int64_t *values,
                                         bool bounded) const {
  int64_t stack[kMaxGridStack];
  size_t top = 0;
  auto overflow = [&] {
    return Status::error("grid expression '" + text + "' overflows");
  };
  // Bounded: every value in [0, kMaxViewValue], so no 64-bit overflow.
  auto outside = [&](int64_t v) {
    return Status::error("computes " + std::to_string(v) +
                         ", outside [0, 2^31)");
  };
  for (const Op &op : ops) {
    if (op.kind == Op::Kind::Constant || op.kind == Op::Kind::Param) {
      int64_t v = op.kind == Op::Kind::Constant ? op.value : values[op.value];
      if (bounded && (v < 0 || v > kMaxViewValue))
        return op.kind == Op::Kind::Constant
                   ? outside(v)
                   : Status::error("reads " + std::to_string(v) +
                                   ", outside [0, 2^31)");
      stack[top++] = v;
      continue;
    }
    if (op.kind == Op::Kind::Neg) {
      if (stack[top - 1] == std::numeric_limits<int64_t>::min())
        return overflow();
      stack[top - 1] = -stack[top - 1];
      if (bounded && stack[top - 1] < 0)
        return outside(stack[top - 1]);
      continue;
    }
    int64_t b = stack[--top];
    int64_t &a = stack[top - 1];
    switch (op.kind) {
    case Op::Kind::Add:
      if (__builtin_add_overflow(a, b, &a))
        return overflow();
      break;
    case Op::Kind::Sub:
      if (__builtin_sub_overflow(a, b, &a))
        return overflow();
      break;
    case Op::Kind::Mul:
      if (__builtin_mul_overflow(a, b, &a))
        return overflow();
      break;
    case Op::Kind::CeilDiv:
    case Op::Kind::FloorDiv:
    case Op::Kind::Mod:
      if (b == 0)
        return Status::error(bounded ? std::string("divides by zero")
                                     : "division by zero in grid expression '" +
                                           text + "'");
      if (a == std::numeric_limits<int64_t>::min() && b == -1)
        return overflow();
      if (op.kind == Op::Kind::CeilDiv) {
        a = floorDiv(a, b) + (a % b != 0);
      } else if (op.kind == Op::Kind::FloorDiv) {
        a = floorDiv(a, b);
      } else {
        int64_t r = a % b;
        a = (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
      }
      break;
    default:
      break;
    }
    if (bounded && (a < 0 || a > kMaxViewValue))
      return outside(a);
  }
  return stack[0];
}

std::string GridExpr::describeParams(const std::vector<ParamSpec> &params,
                                     const int64_t *values) const {
  std::string out;
  std::vector<int64_t> seen;
  for (const Op &op : ops) {
    if (op.kind != Op::Kind::Param ||
        std::find(seen.begin(), seen.end(), op.value) != seen.end())
      continue;
    seen.push_back(op.value);
    out += (out.empty() ? "" : ", ") + params[op.value].name + "=" +
           std::to_string(values[op.value]);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// KernelSpec::parse
//===----------------------------------------------------------------------===//

namespace {
/// Typed access to the members of the metadata object, with errors that
/// name the field's path (`params[3].dtype`).
class FieldReader {
public:
  std::string kernel = "<kernel>.json";

  Status fail(const std::string &path, const std::string &what) const {
    return Status::error(kernel + ": field '" + path + "' " + what);
  }

  Status getInt(const json::Value &v, const std::string &path, int64_t lo,
                int64_t hi, int64_t &out) const {
    if (v.kind != json::Value::Kind::Integer)
      return fail(path, "must be an integer");
    if (v.integer < lo || v.integer > hi)
      return fail(path, "must be in [" + std::to_string(lo) + ", " +
                            std::to_string(hi) + "], got " +
                            std::to_string(v.integer));
    out = v.integer;
    return Status::success();
  }

  Status getString(const json::Value &v, const std::string &path,
                   std::string &out) const {
    if (v.kind != json::Value::Kind::String)
      return fail(path, "must be a string");
    out = v.string;
    return Status::success();
  }

  Status getArray(const json::Value &v, const std::string &path, size_t minSize,
                  size_t maxSize) const {
    if (v.kind != json::Value::Kind::Array)
      return fail(path, "must be an array");
    if (v.elements.size() < minSize || v.elements.size() > maxSize)
      return fail(path, "must have " + std::to_string(minSize) + " to " +
                            std::to_string(maxSize) + " entries, got " +
                            std::to_string(v.elements.size()));
    return Status::success();
  }

  /// Three positive dimensions.
  Status getDims(const json::Value &v, const std::string &path,
                 std::array<unsigned, 3> &out) const {
    if (Status s = getArray(v, path, 3, 3); !s.ok())
      return s;
    for (unsigned i = 0; i < 3; ++i) {
      int64_t d;
      if (Status s = getInt(v.elements[i], path + "[" + std::to_string(i) + "]",
                            1, std::numeric_limits<int32_t>::max(), d);
          !s.ok())
        return s;
      out[i] = static_cast<unsigned>(d);
    }
    return Status::success();
  }
};
} // namespace

/// Reads one `params` entry.
static Status parseParam(const FieldReader &r, const json::Value &v,
                         const std::string &path, ParamSpec &p) {
  if (v.kind != json::Value::Kind::Object)
    return r.fail(path, "must be an object");
  const json::Value *name = v.get("name"), *kind = v.get("kind"),
                    *dtype = v.get("dtype");
  if (!name || !kind || !dtype)
    return r.fail(path, "must have 'name', 'kind' and 'dtype'");
  std::string kindName, dtypeName;
  if (Status s = r.getString(*name, path + ".name", p.name); !s.ok())
    return s;
  if (Status s = r.getString(*kind, path + ".kind", kindName); !s.ok())
    return s;
  if (Status s = r.getString(*dtype, path + ".dtype", dtypeName); !s.ok())
    return s;
  if (kindName != "pointer" && kindName != "scalar")
    return r.fail(path + ".kind", "must be \"pointer\" or \"scalar\", got \"" +
                                      kindName + "\"");
  p.kind = kindName == "pointer" ? ParamSpec::Kind::Pointer
                                 : ParamSpec::Kind::Scalar;
  std::optional<DType> dt = parseDType(dtypeName);
  if (!dt)
    return r.fail(path + ".dtype", "has unknown dtype \"" + dtypeName + "\"");
  if (p.kind == ParamSpec::Kind::Scalar &&
      (*dt == DType::F8E4M3 || *dt == DType::F8E5M2))
    return r.fail(path + ".dtype",
                  "is " + dtypeName + ", which no scalar parameter can be");
  p.dtype = *dt;
  if (const json::Value *align = v.get("align")) {
    int64_t a;
    if (Status s = r.getInt(*align, path + ".align", 1, 1 << 20, a); !s.ok())
      return s;
    if (p.kind != ParamSpec::Kind::Pointer || (a & (a - 1)) != 0)
      return r.fail(path + ".align",
                    "must be a power of two on a pointer parameter");
    p.align = static_cast<uint64_t>(a);
  }
  if (const json::Value *div = v.get("divisibility")) {
    if (Status s =
            r.getInt(*div, path + ".divisibility", 1,
                     std::numeric_limits<int32_t>::max(), p.divisibility);
        !s.ok())
      return s;
    if (p.kind != ParamSpec::Kind::Scalar || !isIntegerDType(p.dtype))
      return r.fail(path + ".divisibility",
                    "is only allowed on integer scalar parameters");
  }
  return Status::success();
}

/// Reads a tensor-map size or stride: a constant, an integer parameter, or
/// an expression over integer parameters (the grid rule's syntax).
static Status parseHostValue(const FieldReader &r, const json::Value &v,
                             const std::string &path,
                             const std::vector<ParamSpec> &params,
                             HostValue &out) {
  if (v.kind == json::Value::Kind::Integer) {
    out.constant = v.integer;
    return Status::success();
  }
  if (v.kind != json::Value::Kind::String)
    return r.fail(path, "must be an integer, a parameter name or an "
                        "expression over parameters");
  for (size_t i = 0; i < params.size(); ++i) {
    if (params[i].name != v.string)
      continue;
    if (params[i].kind != ParamSpec::Kind::Scalar ||
        !isIntegerDType(params[i].dtype))
      return r.fail(path, "names '" + v.string +
                              "', which is not an integer scalar parameter");
    out.param = static_cast<int>(i);
    return Status::success();
  }
  bool isName =
      !v.string.empty() &&
      std::all_of(v.string.begin(), v.string.end(),
                  [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) ||
                           c == '_';
                  }) &&
      !std::isdigit(static_cast<unsigned char>(v.string[0]));
  if (isName)
    return r.fail(path, "names unknown parameter '" + v.string + "'");
  StatusOr<GridExpr> e = GridExpr::parse(v.string, params);
  if (!e.ok())
    return r.fail(path, "is invalid: " + e.getStatus().message());
  // One constant or parameter in parentheses is that value.
  const std::vector<GridExpr::Op> &ops = e->getOps();
  if (ops.size() == 1 && ops[0].kind == GridExpr::Op::Kind::Constant)
    out.constant = ops[0].value;
  else if (ops.size() == 1)
    out.param = static_cast<int>(ops[0].value);
  else
    out.expr = std::move(*e);
  return Status::success();
}

/// Reads one `tensor_maps` entry and checks what TMA requires of the parts
/// known at compile time (rank, box, swizzle).
static Status parseTensorMap(const FieldReader &r, const json::Value &v,
                             const std::string &path,
                             const std::vector<ParamSpec> &params,
                             TensorMapSpec &m) {
  if (v.kind != json::Value::Kind::Object)
    return r.fail(path, "must be an object");
  static const char *const required[] = {"index",      "base",   "dtype",
                                         "elem_bytes", "sizes",  "strides",
                                         "box",        "swizzle"};
  for (const char *key : required)
    if (!v.get(key))
      return r.fail(path, std::string("must have '") + key + "'");
  int64_t i64;
  if (Status s = r.getInt(*v.get("index"), path + ".index", 0, 4095, i64);
      !s.ok())
    return s;
  m.position = static_cast<unsigned>(i64);
  std::string base, dtypeName;
  if (Status s = r.getString(*v.get("base"), path + ".base", base); !s.ok())
    return s;
  int baseIndex = -1;
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == base)
      baseIndex = static_cast<int>(i);
  if (baseIndex < 0 || params[baseIndex].kind != ParamSpec::Kind::Pointer)
    return r.fail(path + ".base",
                  "must name a pointer parameter, got '" + base + "'");
  m.base = static_cast<unsigned>(baseIndex);
  if (Status s = r.getString(*v.get("dtype"), path + ".dtype", dtypeName);
      !s.ok())
    return s;
  std::optional<DType> dt = parseDType(dtypeName);
  if (!dt || *dt == DType::I1)
    return r.fail(path + ".dtype",
                  "has unsupported dtype \"" + dtypeName + "\"");
  m.dtype = *dt;
  if (Status s = r.getInt(*v.get("elem_bytes"), path + ".elem_bytes",
                          getDTypeBytes(m.dtype), getDTypeBytes(m.dtype), i64);
      !s.ok())
    return s;
  m.elemBytes = static_cast<unsigned>(i64);

  const json::Value &sizes = *v.get("sizes"), &strides = *v.get("strides"),
                    &box = *v.get("box");
  if (Status s = r.getArray(sizes, path + ".sizes", 1, Arg::kMaxRank); !s.ok())
    return s;
  size_t rank = sizes.elements.size();
  if (Status s = r.getArray(strides, path + ".strides", rank, rank); !s.ok())
    return s;
  if (Status s = r.getArray(box, path + ".box", rank, rank); !s.ok())
    return s;
  m.sizes.resize(rank);
  m.strides.resize(rank);
  m.box.resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    std::string at = "[" + std::to_string(d) + "]";
    if (Status s = parseHostValue(r, sizes.elements[d], path + ".sizes" + at,
                                  params, m.sizes[d]);
        !s.ok())
      return s;
    if (Status s = parseHostValue(r, strides.elements[d],
                                  path + ".strides" + at, params, m.strides[d]);
        !s.ok())
      return s;
    // cuTensorMapEncodeTiled: box sizes in [1, 256].
    if (Status s = r.getInt(box.elements[d], path + ".box" + at, 1, 256, i64);
        !s.ok())
      return s;
    m.box[d] = static_cast<uint32_t>(i64);
  }
  if (m.strides[0].param >= 0 || m.strides[0].isComputed() ||
      m.strides[0].constant != 1)
    return r.fail(path + ".strides[0]",
                  "must be 1: TMA reads the innermost dimension contiguously");
  if (Status s = r.getInt(*v.get("swizzle"), path + ".swizzle", 0, 128, i64);
      !s.ok())
    return s;
  if (i64 != 0 && i64 != 32 && i64 != 64 && i64 != 128)
    return r.fail(path + ".swizzle", "must be 0, 32, 64 or 128");
  m.swizzle = static_cast<unsigned>(i64);
  // The inner box row is whole 16-byte units, and fits in a swizzle span.
  uint64_t rowBytes = uint64_t(m.box[0]) * m.elemBytes;
  if (rowBytes % 16 != 0)
    return r.fail(path + ".box[0]", "spans " + std::to_string(rowBytes) +
                                        " bytes; TMA needs a multiple of 16");
  if (m.swizzle != 0 && rowBytes > m.swizzle)
    return r.fail(path + ".box[0]", "spans " + std::to_string(rowBytes) +
                                        " bytes, more than the " +
                                        std::to_string(m.swizzle) +
                                        "-byte swizzle");
  return Status::success();
}

StatusOr<KernelSpec> KernelSpec::parse(std::string_view json) {
  json::Value root;
  if (Status s = json::parse(json, root); !s.ok())
    return Status::error("<kernel>.json: " + s.message());
  FieldReader r;
  if (root.kind != json::Value::Kind::Object)
    return Status::error("<kernel>.json: expected an object at the top level");
  static const char *const required[] = {"kernel", "params", "block", "grid",
                                         "smem_bytes"};
  for (const char *key : required)
    if (!root.get(key))
      return Status::error(std::string("<kernel>.json: missing field '") + key +
                           "'");
  KernelSpec spec;
  if (Status s = r.getString(*root.get("kernel"), "kernel", spec.name); !s.ok())
    return s;
  if (spec.name.empty())
    return r.fail("kernel", "must not be empty");
  r.kernel = spec.name + ".json";

  struct {
    const char *key;
    std::string *out;
  } strings[] = {{"chip", &spec.chip},
                 {"cubin_arch", &spec.cubinArch},
                 {"ptx_version", &spec.ptxVersion},
                 {"tilec_version", &spec.tilecVersion}};
  for (auto &field : strings)
    if (const json::Value *v = root.get(field.key))
      if (Status s = r.getString(*v, field.key, *field.out); !s.ok())
        return s;
  int64_t i64;
  if (const json::Value *v = root.get("num_warps")) {
    if (Status s = r.getInt(*v, "num_warps", 1, 32, i64); !s.ok())
      return s;
    spec.numWarps = static_cast<unsigned>(i64);
  }
  if (Status s = r.getDims(*root.get("block"), "block", spec.block); !s.ok())
    return s;
  if (uint64_t(spec.block[0]) * spec.block[1] * spec.block[2] > 1024)
    return r.fail("block", "has more than 1024 threads");
  if (const json::Value *v = root.get("cluster"))
    if (Status s = r.getDims(*v, "cluster", spec.cluster); !s.ok())
      return s;
  if (Status s = r.getInt(*root.get("smem_bytes"), "smem_bytes", 0,
                          std::numeric_limits<int32_t>::max(), i64);
      !s.ok())
    return s;
  spec.smemBytes = static_cast<unsigned>(i64);
  if (const json::Value *v = root.get("persistent")) {
    if (v->kind != json::Value::Kind::Bool)
      return r.fail("persistent", "must be true or false");
    spec.persistent = v->boolean;
  }

  const json::Value &params = *root.get("params");
  if (Status s = r.getArray(params, "params", 0, 4096); !s.ok())
    return s;
  spec.params.resize(params.elements.size());
  for (size_t i = 0; i < spec.params.size(); ++i) {
    std::string path = "params[" + std::to_string(i) + "]";
    if (Status s = parseParam(r, params.elements[i], path, spec.params[i]);
        !s.ok())
      return s;
    for (size_t j = 0; j < i; ++j)
      if (spec.params[j].name == spec.params[i].name)
        return r.fail(path + ".name",
                      "repeats parameter name '" + spec.params[i].name + "'");
  }

  if (const json::Value *maps = root.get("tensor_maps")) {
    if (Status s = r.getArray(*maps, "tensor_maps", 0, 64); !s.ok())
      return s;
    spec.tensorMaps.resize(maps->elements.size());
    for (size_t i = 0; i < spec.tensorMaps.size(); ++i)
      if (Status s = parseTensorMap(r, maps->elements[i],
                                    "tensor_maps[" + std::to_string(i) + "]",
                                    spec.params, spec.tensorMaps[i]);
          !s.ok())
        return s;
  }
  // Tensor maps sit at their positions; the parameters fill the others in
  // order.
  std::vector<bool> taken(spec.getNumKernelParams(), false);
  for (size_t i = 0; i < spec.tensorMaps.size(); ++i) {
    unsigned pos = spec.tensorMaps[i].position;
    if (pos >= taken.size() || taken[pos])
      return r.fail("tensor_maps[" + std::to_string(i) + "].index",
                    "must be a free position below " +
                        std::to_string(taken.size()) + ", got " +
                        std::to_string(pos));
    taken[pos] = true;
  }
  unsigned next = 0;
  for (ParamSpec &p : spec.params) {
    while (taken[next])
      ++next;
    p.position = next++;
  }

  const json::Value &grid = *root.get("grid");
  // No entries: a kernel without grid(...), launched on a grid its caller
  // gives (the AOT header's launch takes one; bind() refuses).
  if (Status s = r.getArray(grid, "grid", 0, 3); !s.ok())
    return s;
  for (size_t i = 0; i < grid.elements.size(); ++i) {
    std::string path = "grid[" + std::to_string(i) + "]";
    std::string text;
    if (Status s = r.getString(grid.elements[i], path, text); !s.ok())
      return s;
    StatusOr<GridExpr> e = GridExpr::parse(text, spec.params);
    if (!e.ok())
      return r.fail(path, "is invalid: " + e.getStatus().message());
    spec.grid.push_back(std::move(*e));
  }
  return spec;
}

int KernelSpec::findParam(std::string_view name) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == name)
      return static_cast<int>(i);
  return -1;
}

//===----------------------------------------------------------------------===//
// Arg
//===----------------------------------------------------------------------===//

Arg Arg::ptr(uint64_t address, DType dtype) {
  Arg a;
  a.kind = Kind::Pointer;
  a.address = address;
  a.dtype = dtype;
  return a;
}

Arg Arg::ptr(const void *address, DType dtype) {
  return ptr(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(address)),
             dtype);
}

Arg Arg::tensor(uint64_t address, DType dtype,
                std::initializer_list<int64_t> shape,
                std::initializer_list<int64_t> strides) {
  if (shape.size() != strides.size()) {
    Arg a = ptr(address, dtype);
    a.badShape = true;
    return a;
  }
  return tensor(address, dtype, shape.begin(), strides.begin(),
                static_cast<unsigned>(shape.size()));
}

Arg Arg::tensor(uint64_t address, DType dtype, const int64_t *shape,
                const int64_t *strides, unsigned rank) {
  Arg a = ptr(address, dtype);
  if (rank > kMaxRank || rank == 0) {
    a.badShape = true;
    return a;
  }
  a.rank = static_cast<uint8_t>(rank);
  std::copy(shape, shape + rank, a.shape.begin());
  std::copy(strides, strides + rank, a.strides.begin());
  return a;
}

Arg Arg::tensor(const void *address, DType dtype,
                std::initializer_list<int64_t> shape,
                std::initializer_list<int64_t> strides) {
  return tensor(static_cast<uint64_t>(reinterpret_cast<uintptr_t>(address)),
                dtype, shape, strides);
}

//===----------------------------------------------------------------------===//
// KernelSpec::bind
//===----------------------------------------------------------------------===//

/// The IEEE half-precision bits of `f`, rounded to nearest even (F. Giesen's
/// float_to_half_fast3_rtne).
static uint16_t toHalfBits(float f) {
  auto bits = [](float x) {
    uint32_t u;
    std::memcpy(&u, &x, 4);
    return u;
  };
  auto fromBits = [](uint32_t u) {
    float x;
    std::memcpy(&x, &u, 4);
    return x;
  };
  const uint32_t f32Infinity = 255u << 23, f16Max = (127u + 16) << 23;
  const uint32_t denormMagic = ((127u - 15) + (23 - 10) + 1) << 23;
  uint32_t u = bits(f);
  uint32_t sign = u & 0x80000000u;
  u ^= sign;
  uint16_t out;
  if (u >= f16Max) {
    out = u > f32Infinity ? 0x7E00 : 0x7C00; // NaN stays NaN, else infinity
  } else if (u < (113u << 23)) {
    // Subnormal half: let the FPU round by adding a magic number.
    out = static_cast<uint16_t>(bits(fromBits(u) + fromBits(denormMagic)) -
                                denormMagic);
  } else {
    uint32_t mantOdd = (u >> 13) & 1;
    u += ((15u - 127) << 23) + 0xFFF + mantOdd;
    out = static_cast<uint16_t>(u >> 13);
  }
  return static_cast<uint16_t>(out | (sign >> 16));
}

/// The bfloat16 bits of `f`, rounded to nearest even.
static uint16_t toBFloat16Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40); // quiet NaN
  u += 0x7FFF + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

/// "0x..." of an address.
static std::string hex(uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), digits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

/// "name=value" of a parameter, the constant, or "S * BH = 64 (S=8, BH=8)"
/// of an expression whose value is `value`, for messages.
static std::string describe(const KernelSpec &spec, const HostValue &v,
                            const std::vector<uint64_t> &values,
                            int64_t value) {
  if (v.isComputed())
    return v.expr.getText() + " = " + std::to_string(value) + " (" +
           v.expr.describeParams(
               spec.params, reinterpret_cast<const int64_t *>(values.data())) +
           ")";
  if (v.param < 0)
    return std::to_string(v.constant);
  return spec.params[v.param].name + "=" +
         std::to_string(static_cast<int64_t>(values[v.param]));
}

/// The value of tensor-map size or stride `v` for launch `values`; `what`
/// ("size") and `dim` name it in the failure.
static StatusOr<int64_t> evaluateHostValue(const KernelSpec &spec,
                                           const HostValue &v,
                                           const std::vector<uint64_t> &values,
                                           const char *what, unsigned dim) {
  if (!v.isComputed())
    return v.param < 0 ? v.constant : static_cast<int64_t>(values[v.param]);
  // Integer slots hold sign-extended values.
  const int64_t *ints = reinterpret_cast<const int64_t *>(values.data());
  StatusOr<int64_t> r = v.expr.evaluateViewValue(ints);
  if (r.ok())
    return r;
  return Status::error(std::string(what) + " " + v.expr.getText() +
                       " of dimension " + std::to_string(dim) +
                       " (innermost first), with " +
                       v.expr.describeParams(spec.params, ints) + ", " +
                       r.getStatus().message() +
                       ": the kernel computes view sizes and strides in "
                       "32-bit integers");
}

/// Stores scalar argument `a` for parameter `p` in `slot`.
static Status bindScalar(const KernelSpec &spec, const ParamSpec &p,
                         const Arg &a, uint64_t &slot) {
  // Messages are built only on failure: launches stay allocation-light.
  auto fail = [&](const std::string &what) {
    return Status::error(spec.name + ": '" + p.name + "' is a scalar (" +
                         getDTypeName(p.dtype) + ")" + what);
  };
  if (a.getKind() == Arg::Kind::Pointer)
    return fail(", got a pointer");
  if (isIntegerDType(p.dtype)) {
    if (a.getKind() != Arg::Kind::Int)
      return fail(", got a floating-point value");
    int64_t v = a.getInt();
    unsigned bits = p.dtype == DType::I1 ? 1 : 8 * getDTypeBytes(p.dtype);
    int64_t lo = bits == 1    ? 0
                 : bits == 64 ? INT64_MIN
                              : -(int64_t(1) << (bits - 1));
    int64_t hi = bits == 1    ? 1
                 : bits == 64 ? INT64_MAX
                              : (int64_t(1) << (bits - 1)) - 1;
    if (v < lo || v > hi)
      return fail("; " + std::to_string(v) + " is out of range [" +
                  std::to_string(lo) + ", " + std::to_string(hi) + "]");
    if (p.divisibility && v % p.divisibility != 0)
      return Status::error(
          spec.name + ": '" + p.name + "' = " + std::to_string(v) +
          " must be a multiple of " + std::to_string(p.divisibility));
    slot = static_cast<uint64_t>(v);
    return Status::success();
  }
  double v = a.getKind() == Arg::Kind::Int ? static_cast<double>(a.getInt())
                                           : a.getFloat();
  switch (p.dtype) {
  case DType::F16:
    slot = toHalfBits(static_cast<float>(v));
    break;
  case DType::BF16:
    slot = toBFloat16Bits(static_cast<float>(v));
    break;
  case DType::F32: {
    float f = static_cast<float>(v);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    slot = u;
    break;
  }
  default:
    std::memcpy(&slot, &v, 8);
    break;
  }
  return Status::success();
}

/// Checks pointer argument `a` for parameter `p` and stores its address.
static Status bindPointer(const KernelSpec &spec, const ParamSpec &p,
                          const Arg &a, uint64_t &slot) {
  auto fail = [&](const std::string &what) {
    return Status::error(spec.name + ": '" + p.name + "'" + what);
  };
  if (a.getKind() != Arg::Kind::Pointer)
    return fail(std::string(" is a pointer to ") + getDTypeName(p.dtype) +
                ", got a scalar");
  if (a.getDType() != DType::Any && a.getDType() != p.dtype)
    return fail(std::string(" points to ") + getDTypeName(p.dtype) +
                ", got a pointer to " + getDTypeName(a.getDType()));
  if (p.align && a.getAddress() % p.align != 0)
    return fail(" must be " + std::to_string(p.align) +
                "-byte aligned, got address " + hex(a.getAddress()));
  if (a.hasBadShape())
    return fail(": a tensor needs as many strides as sizes, and 1 to " +
                std::to_string(Arg::kMaxRank) + " of them");
  slot = a.getAddress();
  return Status::success();
}

/// Checks that `baseArg`, when the caller described the tensor, is the view
/// tensor map `m` reads: rank, contiguity, strides and sizes (`sizes` and
/// `strides` are the map's values, innermost first).
static Status checkTensorArg(const KernelSpec &spec, const TensorMapSpec &m,
                             const Arg &baseArg,
                             const std::vector<uint64_t> &values,
                             const int64_t *sizes, const int64_t *strides) {
  if (baseArg.getRank() == 0)
    return Status::success();
  // Its dimensions are outermost first, the map's innermost first.
  const std::string &base = spec.params[m.base].name;
  auto failArg = [&](const std::string &what) {
    return Status::error(spec.name + ": '" + base + "' " + what);
  };
  unsigned rank = baseArg.getRank();
  if (rank != m.getRank())
    return failArg("is read as a " + std::to_string(m.getRank()) +
                   "-d view, got a " + std::to_string(rank) + "-d tensor");
  if (baseArg.getStride(rank - 1) != 1)
    return failArg("must be contiguous in its last dimension (stride 1), got "
                   "stride " +
                   std::to_string(baseArg.getStride(rank - 1)));
  for (unsigned d = 1; d < rank; ++d) {
    int64_t got = baseArg.getStride(rank - 1 - d);
    if (got != strides[d])
      return failArg("has stride " + std::to_string(got) + " in dimension " +
                     std::to_string(rank - 1 - d) +
                     ", but the kernel reads it with stride " +
                     describe(spec, m.strides[d], values, strides[d]));
  }
  for (unsigned d = 0; d < rank; ++d) {
    int64_t got = baseArg.getShape(rank - 1 - d);
    if (got < sizes[d])
      return failArg("has " + std::to_string(got) + " elements in dimension " +
                     std::to_string(rank - 1 - d) + ", but the kernel reads " +
                     describe(spec, m.sizes[d], values, sizes[d]));
  }
  return Status::success();
}

/// Builds the request for tensor map `index` and checks TMA's rules, plus the
/// shape of the base argument when the caller described it.
static Status bindTensorMap(const KernelSpec &spec, unsigned index,
                            const Arg &baseArg,
                            const std::vector<uint64_t> &values,
                            TensorMapRequest &req) {
  const TensorMapSpec &m = spec.tensorMaps[index];
  auto fail = [&](const std::string &what) {
    return Status::error(spec.name + ": tensor map of '" +
                         spec.params[m.base].name + "': " + what);
  };
  req.spec = index;
  req.address = values[m.base];
  req.rank = m.getRank();
  if (req.address % 16 != 0)
    return fail("TMA needs a 16-byte aligned base, got " + hex(req.address));
  int64_t sizes[Arg::kMaxRank], strides[Arg::kMaxRank];
  for (unsigned d = 0; d < req.rank; ++d) {
    std::string dim = " of dimension " + std::to_string(d);
    StatusOr<int64_t> size =
        evaluateHostValue(spec, m.sizes[d], values, "size", d);
    if (!size.ok())
      return fail(size.getStatus().message());
    sizes[d] = *size;
    if (sizes[d] < 0 || sizes[d] > (int64_t(1) << 32))
      return fail("size " + describe(spec, m.sizes[d], values, sizes[d]) + dim +
                  " (innermost first) must be in [0, 2^32]");
    // An empty dimension never issues a copy; the map still needs extent 1.
    req.sizes[d] = sizes[d] == 0 ? 1 : static_cast<uint64_t>(sizes[d]);
    if (d == 0)
      continue;
    StatusOr<int64_t> stride =
        evaluateHostValue(spec, m.strides[d], values, "stride", d);
    if (!stride.ok())
      return fail(stride.getStatus().message());
    strides[d] = *stride;
    // A computed 0 (an empty problem's) is refused only when programs run
    // (checkComputedZeros); nothing is encoded otherwise.
    if (strides[d] == 0 && m.strides[d].isComputed()) {
      req.strides[d - 1] = 0;
      continue;
    }
    int64_t bytes;
    if (strides[d] <= 0 ||
        __builtin_mul_overflow(strides[d], int64_t(m.elemBytes), &bytes) ||
        bytes % 16 != 0 || bytes >= (int64_t(1) << 40))
      return fail("stride " + describe(spec, m.strides[d], values, strides[d]) +
                  dim +
                  " (innermost first) must be positive, a multiple of 16 "
                  "bytes and below 2^40 bytes (" +
                  std::to_string(m.elemBytes) + "-byte elements)");
    req.strides[d - 1] = static_cast<uint64_t>(bytes);
  }
  return checkTensorArg(spec, m, baseArg, values, sizes, strides);
}

/// Checks that no computed size or stride of a tensor map is 0 when
/// programs run. A parameter of 0 is an empty problem the kernel's own loops
/// skip, but a size the kernel computes is not encoded as 1, nor a stride as
/// anything: a launch whose grid is empty encodes no map, others are
/// refused.
static Status checkComputedZeros(const KernelSpec &spec,
                                 const std::vector<uint64_t> &values) {
  const int64_t *ints = reinterpret_cast<const int64_t *>(values.data());
  for (const TensorMapSpec &m : spec.tensorMaps)
    for (unsigned d = 0; d < m.getRank(); ++d)
      for (bool isSize : {true, false}) {
        const HostValue &v = isSize ? m.sizes[d] : m.strides[d];
        if (!v.isComputed())
          continue;
        StatusOr<int64_t> value = v.expr.evaluateViewValue(ints);
        if (!value.ok() || *value != 0)
          continue;
        return Status::error(spec.name + ": tensor map of '" +
                             spec.params[m.base].name +
                             "': " + (isSize ? "size " : "stride ") +
                             describe(spec, v, values, 0) + " of dimension " +
                             std::to_string(d) + " (innermost first) must be " +
                             (isSize ? "at least 1" : "positive") +
                             " when the grid has programs");
      }
  return Status::success();
}

Status KernelSpec::bind(ArgList args, LaunchPlan &plan,
                        const std::array<int64_t, 3> *givenGrid) const {
  // Match arguments to parameters: positional ones first, then by name.
  constexpr size_t kUnbound = ~size_t(0);
  std::vector<size_t> argOf(params.size(), kUnbound);
  size_t positional = 0;
  while (positional < args.size() && args[positional].getName().empty())
    ++positional;
  if (positional > params.size()) {
    std::string names;
    for (const ParamSpec &p : params)
      names += (names.empty() ? "" : ", ") + p.name;
    return Status::error(name + " takes " + std::to_string(params.size()) +
                         " arguments (" + names + "), got " +
                         std::to_string(args.size()));
  }
  for (size_t i = 0; i < positional; ++i)
    argOf[i] = i;
  for (size_t i = positional; i < args.size(); ++i) {
    std::string_view argName = args[i].getName();
    if (argName.empty())
      return Status::error(name + ": positional argument " + std::to_string(i) +
                           " follows named ones");
    int p = findParam(argName);
    if (p < 0)
      return Status::error(name + " has no parameter named '" +
                           std::string(argName) + "'");
    if (argOf[p] != kUnbound)
      return Status::error(name + ": argument '" + std::string(argName) +
                           "' given twice");
    argOf[p] = i;
  }
  std::string missing;
  for (size_t p = 0; p < params.size(); ++p)
    if (argOf[p] == kUnbound)
      missing += (missing.empty() ? "'" : ", '") + params[p].name + "'";
  if (!missing.empty())
    return Status::error(name + ": missing argument" +
                         (missing.find(',') != std::string::npos ? "s " : " ") +
                         missing);

  plan.values.assign(params.size(), 0);
  for (size_t p = 0; p < params.size(); ++p) {
    const Arg &a = args[argOf[p]];
    Status s = params[p].kind == ParamSpec::Kind::Pointer
                   ? bindPointer(*this, params[p], a, plan.values[p])
                   : bindScalar(*this, params[p], a, plan.values[p]);
    if (!s.ok())
      return s;
  }

  plan.tensorMaps.resize(tensorMaps.size());
  for (unsigned i = 0; i < tensorMaps.size(); ++i)
    if (Status s = bindTensorMap(*this, i, args[argOf[tensorMaps[i].base]],
                                 plan.values, plan.tensorMaps[i]);
        !s.ok())
      return s;

  // Integer slots hold sign-extended values: the grid rule reads them as is.
  const int64_t *ints = reinterpret_cast<const int64_t *>(plan.values.data());
  if (givenGrid) {
    plan.grid = *givenGrid;
  } else if (grid.empty()) {
    return Status::error(name + ": the kernel has no grid(...) rule; give it "
                                "one, or pass the grid to the launch");
  } else {
    plan.grid = {1, 1, 1};
    for (size_t d = 0; d < grid.size(); ++d) {
      StatusOr<int64_t> v = grid[d].evaluate(ints);
      if (!v.ok())
        return Status::error(name + ": " + v.getStatus().message());
      plan.grid[d] = *v;
    }
  }
  if (plan.isEmpty())
    return Status::success();
  if (Status s = checkComputedZeros(*this, plan.values); !s.ok())
    return s;
  static const char *const axes[] = {"x", "y", "z"};
  static const int64_t limits[] = {std::numeric_limits<int32_t>::max(), 65535,
                                   65535};
  for (unsigned d = 0; d < 3; ++d) {
    if (plan.grid[d] > limits[d])
      return Status::error(name + ": grid " + axes[d] + " = " +
                           std::to_string(plan.grid[d]) + " exceeds " +
                           std::to_string(limits[d]));
    // Whole clusters; for a persistent kernel, whole clusters of tiles (its
    // programs walk them in step, sharing tiles by multicast). Its launch
    // grid is cut to a cluster multiple at launch.
    if (plan.grid[d] % cluster[d] != 0)
      return Status::error(name + ": grid " + axes[d] + " = " +
                           std::to_string(plan.grid[d]) +
                           " is not a multiple of the cluster size " +
                           std::to_string(cluster[d]));
  }
  return Status::success();
}
