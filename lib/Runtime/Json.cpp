//===- Json.cpp - The runtime's JSON reader -------------------------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements a recursive-descent JSON reader with positions in its
// errors and a nesting limit, enough for `<kernel>.json`.
//
//===----------------------------------------------------------------------===//

#include "Json.h"

#include <cerrno>
#include <cstdlib>

using namespace tilec;
using namespace tilec::json;

namespace {
/// A recursive-descent JSON reader over one buffer.
class JsonReader {
public:
  explicit JsonReader(std::string_view text)
      : cur(text.data()), begin(text.data()), end(text.data() + text.size()) {}

  /// Parses the whole buffer as one value.
  Status read(Value &out);

private:
  Status value(Value &out, unsigned depth);
  Status string(std::string &out);
  Status number(Value &out);
  Status fail(const std::string &what) const;
  void skipSpace();
  bool consume(char c);
  bool consumeWord(std::string_view word);

  const char *cur;
  const char *begin;
  const char *end;
};
} // namespace

const Value *Value::get(std::string_view key) const {
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key)
      return &elements[i];
  return nullptr;
}

Status JsonReader::fail(const std::string &what) const {
  unsigned line = 1, column = 1;
  for (const char *p = begin; p < cur; ++p) {
    column = *p == '\n' ? 1 : column + 1;
    line += *p == '\n';
  }
  return Status::error("invalid JSON at " + std::to_string(line) + ":" +
                       std::to_string(column) + ": " + what);
}

void JsonReader::skipSpace() {
  while (cur < end &&
         (*cur == ' ' || *cur == '\t' || *cur == '\n' || *cur == '\r'))
    ++cur;
}

bool JsonReader::consume(char c) {
  skipSpace();
  if (cur == end || *cur != c)
    return false;
  ++cur;
  return true;
}

bool JsonReader::consumeWord(std::string_view word) {
  if (static_cast<size_t>(end - cur) < word.size() ||
      std::string_view(cur, word.size()) != word)
    return false;
  cur += word.size();
  return true;
}

Status JsonReader::read(Value &out) {
  if (Status s = value(out, 0); !s.ok())
    return s;
  skipSpace();
  if (cur != end)
    return fail("trailing characters after the value");
  return Status::success();
}

Status JsonReader::value(Value &out, unsigned depth) {
  // Metadata nests four levels deep; a limit keeps hostile input from
  // exhausting the stack.
  if (depth > 64)
    return fail("nesting deeper than 64 levels");
  skipSpace();
  if (cur == end)
    return fail("unexpected end of input");
  char c = *cur;
  if (c == '{') {
    ++cur;
    out.kind = Value::Kind::Object;
    if (consume('}'))
      return Status::success();
    do {
      skipSpace();
      out.keys.emplace_back();
      if (Status s = string(out.keys.back()); !s.ok())
        return s;
      if (!consume(':'))
        return fail("expected ':' after an object key");
      out.elements.emplace_back();
      if (Status s = value(out.elements.back(), depth + 1); !s.ok())
        return s;
    } while (consume(','));
    return consume('}') ? Status::success()
                        : fail("expected ',' or '}' in an object");
  }
  if (c == '[') {
    ++cur;
    out.kind = Value::Kind::Array;
    if (consume(']'))
      return Status::success();
    do {
      out.elements.emplace_back();
      if (Status s = value(out.elements.back(), depth + 1); !s.ok())
        return s;
    } while (consume(','));
    return consume(']') ? Status::success()
                        : fail("expected ',' or ']' in an array");
  }
  if (c == '"') {
    out.kind = Value::Kind::String;
    return string(out.string);
  }
  if (c == '-' || (c >= '0' && c <= '9'))
    return number(out);
  if (consumeWord("true") || consumeWord("false")) {
    out.kind = Value::Kind::Bool;
    out.boolean = cur[-1] == 'e' && cur[-2] == 'u';
    return Status::success();
  }
  if (consumeWord("null"))
    return Status::success();
  return fail(std::string("unexpected character '") + c + "'");
}

/// Appends the UTF-8 encoding of `code` to `out`.
static void appendUtf8(std::string &out, uint32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

Status JsonReader::string(std::string &out) {
  if (cur == end || *cur != '"')
    return fail("expected a string");
  ++cur;
  auto hex4 = [&](uint32_t &code) {
    if (end - cur < 4)
      return false;
    code = 0;
    for (int i = 0; i < 4; ++i, ++cur) {
      char h = *cur;
      code <<= 4;
      if (h >= '0' && h <= '9')
        code |= h - '0';
      else if (h >= 'a' && h <= 'f')
        code |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        code |= h - 'A' + 10;
      else
        return false;
    }
    return true;
  };
  while (cur < end && *cur != '"') {
    char c = *cur++;
    if (static_cast<unsigned char>(c) < 0x20)
      return fail("control character in a string");
    if (c != '\\') {
      out += c;
      continue;
    }
    if (cur == end)
      break;
    switch (char e = *cur++) {
    case '"':
    case '\\':
    case '/':
      out += e;
      break;
    case 'b':
      out += '\b';
      break;
    case 'f':
      out += '\f';
      break;
    case 'n':
      out += '\n';
      break;
    case 'r':
      out += '\r';
      break;
    case 't':
      out += '\t';
      break;
    case 'u': {
      uint32_t code;
      if (!hex4(code))
        return fail("bad \\u escape");
      // A UTF-16 surrogate pair spells one code point past U+FFFF.
      uint32_t low;
      if (code >= 0xD800 && code < 0xDC00 && consumeWord("\\u") && hex4(low) &&
          low >= 0xDC00 && low < 0xE000)
        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
      appendUtf8(out, code);
      break;
    }
    default:
      return fail(std::string("bad escape '\\") + e + "'");
    }
  }
  if (cur == end)
    return fail("unterminated string");
  ++cur;
  return Status::success();
}

Status JsonReader::number(Value &out) {
  const char *start = cur;
  bool integral = true;
  if (*cur == '-')
    ++cur;
  while (cur < end &&
         ((*cur >= '0' && *cur <= '9') || *cur == '.' || *cur == 'e' ||
          *cur == 'E' || *cur == '+' || *cur == '-')) {
    integral &= *cur >= '0' && *cur <= '9';
    ++cur;
  }
  // strtoll/strtod need a terminated string; numbers are short.
  std::string text(start, cur);
  char *stop = nullptr;
  errno = 0;
  if (integral) {
    out.kind = Value::Kind::Integer;
    out.integer = std::strtoll(text.c_str(), &stop, 10);
    out.real = static_cast<double>(out.integer);
  } else {
    out.kind = Value::Kind::Real;
    out.real = std::strtod(text.c_str(), &stop);
  }
  if (text.empty() || text == "-" || *stop != '\0' || errno == ERANGE) {
    cur = start;
    return fail("bad number '" + text + "'");
  }
  return Status::success();
}

Status json::parse(std::string_view text, Value &out) {
  return JsonReader(text).read(out);
}
