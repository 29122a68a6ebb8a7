//===- launch-contract.cpp - Conformance cases through the C ABI ----------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

// RUN: tilec-launch-contract-test %S/Inputs/launch-contract.json | FileCheck %s
//
// The conformance cases of Inputs/launch-contract.json (kernel metadata and
// launch arguments), run through libtilec-runtime.so's C ABI without a GPU:
// each case's outcome (the exact error, or the grid, the parameter slots
// and the tensor maps) must be the one the table expects.
// python/tests/test_launch_contract.py runs the same table through ctypes.
// With --print, the program prints every outcome as the table spells it.
//
// CHECK-NOT: FAIL
// CHECK: 41 cases, 0 failed

#include "../../lib/Runtime/Json.h"
#include "tilec-c/Runtime.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using tilec::json::Value;

/// `v` as compact JSON, members in the order written (as Python's
/// json.dumps(separators=(",", ":")) writes a parsed object).
static std::string toJson(const Value &v) {
  switch (v.kind) {
  case Value::Kind::Null:
    return "null";
  case Value::Kind::Bool:
    return v.boolean ? "true" : "false";
  case Value::Kind::Integer:
    return std::to_string(v.integer);
  case Value::Kind::Real: {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", v.real);
    return buf;
  }
  case Value::Kind::String: {
    std::string out = "\"";
    for (char c : v.string) {
      if (c == '"' || c == '\\')
        out += '\\';
      out += c;
    }
    return out + "\"";
  }
  case Value::Kind::Array: {
    std::string out = "[";
    for (size_t i = 0; i < v.elements.size(); ++i)
      out += (i ? "," : "") + toJson(v.elements[i]);
    return out + "]";
  }
  case Value::Kind::Object: {
    std::string out = "{";
    for (size_t i = 0; i < v.elements.size(); ++i) {
      Value key;
      key.kind = Value::Kind::String;
      key.string = v.keys[i];
      out += (i ? "," : "") + toJson(key) + ":" + toJson(v.elements[i]);
    }
    return out + "}";
  }
  }
  return "";
}

static std::string quote(const std::string &s) {
  Value v;
  v.kind = Value::Kind::String;
  v.string = s;
  return toJson(v);
}

static std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "\"0x%" PRIx64 "\"", v);
  return buf;
}

static const char *const kDTypes[] = {"any", "i1",  "i8",     "i16",
                                      "i32", "i64", "f16",    "bf16",
                                      "f32", "f64", "f8e4m3", "f8e5m2"};

static uint32_t parseDType(const std::string &name) {
  for (uint32_t i = 0; i < sizeof(kDTypes) / sizeof(kDTypes[0]); ++i)
    if (name == kDTypes[i])
      return i;
  return 99;
}

/// The C argument of a case's argument.
static TilecRtArg toArg(const Value &v) {
  TilecRtArg a;
  std::memset(&a, 0, sizeof(a));
  if (const Value *p = v.get("ptr")) {
    a.kind = TilecRtArgPointer;
    a.address = std::stoull(p->string, nullptr, 16);
    if (const Value *d = v.get("dtype"))
      a.dtype = parseDType(d->string);
    if (const Value *shape = v.get("shape")) {
      const Value &strides = *v.get("strides");
      a.rank = static_cast<uint32_t>(shape->elements.size());
      for (uint32_t i = 0; i < a.rank; ++i) {
        a.shape[i] = shape->elements[i].integer;
        a.strides[i] = strides.elements[i].integer;
      }
    }
  } else if (const Value *i = v.get("int")) {
    a.kind = TilecRtArgInt;
    a.intValue = i->integer;
  } else if (const Value *f = v.get("float")) {
    a.kind = TilecRtArgFloat;
    a.floatValue = f->kind == Value::Kind::Real
                       ? f->real
                       : static_cast<double>(f->integer);
  }
  if (const Value *n = v.get("name"))
    a.name = n->string.c_str();
  return a;
}

/// The table's spelling of a binding.
static std::string describeBinding(const TilecRtBinding &b) {
  std::string out = "{\"grid\":[" + std::to_string(b.grid[0]) + "," +
                    std::to_string(b.grid[1]) + "," +
                    std::to_string(b.grid[2]) + "],\"values\":[";
  for (size_t i = 0; i < b.numValues; ++i)
    out += (i ? "," : "") + hex(b.values[i]);
  out += "],\"maps\":[";
  for (size_t i = 0; i < b.numTensorMaps; ++i) {
    const TilecRtTensorMap &m = b.tensorMaps[i];
    std::string sizes, strides, box;
    for (uint32_t d = 0; d < m.rank; ++d) {
      sizes += (d ? "," : "") + std::to_string(m.sizes[d]);
      box += (d ? "," : "") + std::to_string(m.box[d]);
      if (d + 1 < m.rank)
        strides += (d ? "," : "") + std::to_string(m.byteStrides[d]);
    }
    out += (i ? "," : "") + std::string("{\"address\":") + hex(m.address) +
           ",\"dtype\":\"" + kDTypes[m.dtype] + "\",\"sizes\":[" + sizes +
           "],\"byte_strides\":[" + strides + "],\"box\":[" + box +
           "],\"swizzle\":" + std::to_string(m.swizzle) +
           ",\"position\":" + std::to_string(m.position) + "}";
  }
  return out + "]}";
}

/// The outcome of one case as the table spells it.
static std::string runCase(const Value &kernels, const Value &c) {
  const Value &meta = *kernels.get(c.get("kernel")->string);
  std::string text = toJson(meta);
  static const char cubin[] = "\177ELF stand-in";
  TilecRtKernel *kernel = nullptr;
  if (tilecRtKernelCreate(cubin, sizeof(cubin), text.data(), text.size(),
                          &kernel) != TilecRtSuccess)
    return "{\"metadata_error\":" + quote(tilecRtGetLastError()) + "}";
  std::vector<TilecRtArg> args;
  for (const Value &a : c.get("args")->elements)
    args.push_back(toArg(a));
  const Value *gridValue = c.get("grid");
  int64_t grid[3];
  bool hasGrid = gridValue && gridValue->kind == Value::Kind::Array;
  for (unsigned d = 0; hasGrid && d < 3; ++d)
    grid[d] = gridValue->elements[d].integer;
  TilecRtBinding binding;
  std::memset(&binding, 0, sizeof(binding));
  binding.structSize = sizeof(binding);
  TilecRtStatus status = tilecRtKernelBind(kernel, args.data(), args.size(),
                                           hasGrid ? grid : nullptr, &binding);
  std::string out = status == TilecRtSuccess
                        ? describeBinding(binding)
                        : "{\"error\":" + quote(tilecRtGetLastError()) + "}";
  // Validation agrees with binding.
  TilecRtStatus valid = tilecRtKernelValidate(kernel, args.data(), args.size());
  if (!hasGrid && (valid == TilecRtSuccess) != (status == TilecRtSuccess))
    out += " (validate disagrees)";
  tilecRtKernelDestroy(kernel);
  return out;
}

int main(int argc, char **argv) {
  bool print = argc == 3 && std::string(argv[1]) == "--print";
  if (argc != 2 && !print) {
    std::fprintf(stderr, "usage: %s [--print] CASES.json\n", argv[0]);
    return 2;
  }
  std::ifstream in(argv[argc - 1]);
  std::stringstream text;
  text << in.rdbuf();
  Value root;
  if (tilec::Status s = tilec::json::parse(text.str(), root); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 2;
  }
  if (tilecRtGetAPIVersion() != TILEC_RT_API_VERSION) {
    std::printf("FAIL: API version %u\n", tilecRtGetAPIVersion());
    return 1;
  }
  const Value &kernels = *root.get("kernels");
  unsigned count = 0, failed = 0;
  for (const Value &c : root.get("cases")->elements) {
    std::string name = c.get("name")->string;
    std::string actual = runCase(kernels, c);
    ++count;
    if (print) {
      std::printf("%s\t%s\n", name.c_str(), actual.c_str());
      continue;
    }
    std::string expected = toJson(*c.get("expect"));
    if (actual == expected) {
      std::printf("PASS %s\n", name.c_str());
      continue;
    }
    ++failed;
    std::printf("FAIL %s\n  expected %s\n  got      %s\n", name.c_str(),
                expected.c_str(), actual.c_str());
  }
  std::printf("%u cases, %u failed\n", count, failed);
  return failed ? 1 : 0;
}
