//===- Json.h - The runtime's JSON reader -----------------------*- C++ -*-===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares the small JSON reader of the runtime (private to
// lib/Runtime): the runtime depends on nothing but libcuda, and
// `<kernel>.json` needs only objects, arrays, strings, integers and booleans.
//
//===----------------------------------------------------------------------===//

#ifndef TILEC_LIB_RUNTIME_JSON_H
#define TILEC_LIB_RUNTIME_JSON_H

#include "tilec/Runtime/KernelSpec.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tilec::json {

/// A parsed JSON value. Numbers keep their exact integer value when they are
/// written as integers.
struct Value {
  enum class Kind : uint8_t {
    Null,
    Bool,
    Integer,
    Real,
    String,
    Array,
    Object
  };

  Kind kind = Kind::Null;
  bool boolean = false;
  int64_t integer = 0;
  double real = 0;
  std::string string;
  /// Array elements, or object members' values.
  std::vector<Value> elements;
  /// Object members' keys, in the order written.
  std::vector<std::string> keys;

  /// The member `key` of an object, or null.
  const Value *get(std::string_view key) const;
};

/// Parses `text` as exactly one JSON value into `out`. Errors give the line
/// and column.
Status parse(std::string_view text, Value &out);

} // namespace tilec::json

#endif // TILEC_LIB_RUNTIME_JSON_H
