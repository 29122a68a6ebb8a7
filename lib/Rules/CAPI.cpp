//===- CAPI.cpp - C API of the shape rules (libtilec-rules.so) ------------===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

#include "tilec-c/Rules.h"
#include "tilec/Rules/ShapeRules.h"

#include <algorithm>
#include <cstring>

using namespace tilec::rules;

/// Writes `text` (NUL-terminated, truncated to `size`) and returns its
/// length.
static size_t writeString(const std::string &text, char *buffer,
                          size_t size) {
  if (buffer && size > 0) {
    size_t n = std::min(text.size(), size - 1);
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return text.size();
}

/// Writes the fields `config` sets (formatConfig's text).
template <typename Config>
static size_t writeOverrides(const Config &config, char *buffer, size_t size) {
  return writeString(formatConfig(config), buffer, size);
}

extern "C" {

unsigned tilecRulesGetAPIVersion(void) { return TILEC_RULES_API_VERSION; }

size_t tilecGemmShapeConfig(const char *chip, int64_t m, int64_t n, int64_t k,
                            int64_t numSMs, unsigned flags, char *buffer,
                            size_t size) {
  return writeOverrides(
      getGemmShapeConfig(chip ? chip : "", m, n, k, numSMs,
                         (flags & TILEC_GEMM_SHAPE_CAN_SWAP_AB) != 0,
                         (flags & TILEC_GEMM_SHAPE_CAN_SPLIT_K) != 0),
      buffer, size);
}

size_t tilecGroupedGemmShapeConfig(const char *chip, int64_t rows,
                                   int64_t groups, int64_t n, int64_t k,
                                   int64_t numSMs, unsigned flags, char *buffer,
                                   size_t size) {
  return writeOverrides(
      getGroupedGemmShapeConfig(chip ? chip : "", rows, groups, n, k, numSMs,
                                (flags & TILEC_GEMM_SHAPE_CAN_SWAP_AB) != 0),
      buffer, size);
}

int64_t tilecAttentionDecodeSplits(const char *chip, int64_t batch,
                                   int64_t kvHeads, int64_t queryRows,
                                   int64_t seqK, int64_t headDim,
                                   int64_t numSMs) {
  return getAttentionDecodeSplits(chip ? chip : "", batch, kvHeads, queryRows,
                                  seqK, headDim, numSMs);
}

size_t tilecAttentionShapeConfig(const char *chip, int64_t seqQ,
                                 int64_t headDim, bool causal, char *buffer,
                                 size_t size) {
  return writeOverrides(
      getAttentionShapeConfig(chip ? chip : "", seqQ, headDim, causal), buffer,
      size);
}

size_t tilecAttentionBackwardConfig(const char *chip, int64_t headDim,
                                    bool atomic, char *buffer, size_t size) {
  return writeOverrides(
      getAttentionBackwardConfig(chip ? chip : "", headDim, atomic), buffer,
      size);
}

bool tilecChipForCapability(int major, int minor, char *chip, size_t chipSize,
                            char *cubinArch, size_t cubinArchSize) {
  std::string c, arch;
  bool known = getChipForCapability(major, minor, c, arch);
  writeString(known ? c : "", chip, chipSize);
  writeString(known ? arch : "", cubinArch, cubinArchSize);
  return known;
}

} // extern "C"
