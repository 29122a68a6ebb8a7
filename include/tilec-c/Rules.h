/*===- tilec-c/Rules.h - the shape rules of the named ops ---------*- C -*-===*\
|*                                                                            *|
|* Part of the tilec project, under the Apache License v2.0 with LLVM         *|
|* Exceptions. See LICENSE for license information.                           *|
|* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

/*
 * libtilec-rules.so: which config fields of tile.gemm / tile.attention a
 * problem of a given shape sets (the shape-class dispatch a library does),
 * and which chip a device of a compute capability takes. The same rule
 * tile-expand-named-ops applies to static sizes (include/tilec/Rules/
 * ShapeRules.h). The library depends on nothing but the C++ runtime, so it
 * loads where no compiler is installed (a GPU machine running precompiled
 * kernels).
 *
 * Config overrides come back as "field=value,field=value" (fields of
 * #tile.gemm_config / #tile.attention_config sorted by name, flags 0 or 1;
 * "" for the chip's default): the rule's typed result as
 * tilec::rules::formatConfig writes it. Functions that write text take a
 * buffer and its size, always NUL-terminate (truncating), and return the
 * full length. All functions are thread-safe.
 */

#ifndef TILEC_C_RULES_H
#define TILEC_C_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) || defined(__CYGWIN__)
#define TILEC_RULES_EXPORTED
#else
#define TILEC_RULES_EXPORTED __attribute__((visibility("default")))
#endif

#define TILEC_RULES_API_VERSION 6

#ifdef __cplusplus
extern "C" {
#endif

/** TILEC_RULES_API_VERSION of the library. */
TILEC_RULES_EXPORTED unsigned tilecRulesGetAPIVersion(void);

/** `flags` of tilecGemmShapeConfig: the GEMM may run transposed (swap_ab:
 *  bf16/f16 inputs, a column-major B, 2-D, aligned operands, no block
 *  scales), as decode shapes then do. */
#define TILEC_GEMM_SHAPE_CAN_SWAP_AB 1u
/** `flags` of tilecGemmShapeConfig: the caller can pass tile.gemm a
 *  split-K workspace (a 2-D GEMM without block scales or i8 inputs), so
 *  shapes with too few tiles may take `split_k` (since API version 4). */
#define TILEC_GEMM_SHAPE_CAN_SPLIT_K 2u

/** Config overrides of tile.gemm for M x N x K on `chip`, on a device of
 *  `num_sms` multiprocessors (0: the chip's typical count), for operands
 *  with `flags` (TILEC_GEMM_SHAPE_*). */
TILEC_RULES_EXPORTED size_t tilecGemmShapeConfig(const char *chip, int64_t m,
                                                 int64_t n, int64_t k,
                                                 int64_t num_sms,
                                                 unsigned flags, char *buffer,
                                                 size_t size);

/** Config overrides of a grouped tile.gemm (`groups` problems sharing N
 *  and K, `rows` rows of A in all: an MoE layer's experts) on `chip`, on a
 *  device of `num_sms` multiprocessors (0: the chip's typical count), for
 *  operands with `flags` (TILEC_GEMM_SHAPE_CAN_SWAP_AB; since API version
 *  5). */
TILEC_RULES_EXPORTED size_t tilecGroupedGemmShapeConfig(
    const char *chip, int64_t rows, int64_t groups, int64_t n, int64_t k,
    int64_t num_sms, unsigned flags, char *buffer, size_t size);

/** Config overrides of tile.attention for `seq_q` queries at `head_dim`. */
TILEC_RULES_EXPORTED size_t tilecAttentionShapeConfig(const char *chip,
                                                      int64_t seq_q,
                                                      int64_t head_dim,
                                                      bool causal,
                                                      char *buffer,
                                                      size_t size);

/** The key ranges (`config <splits = S>`) of decode attention: `batch` x
 *  `kv_heads` query blocks of `query_rows` rows (query heads per K/V head
 *  times queries) against `seq_k` keys at `head_dim`, on a device of
 *  `num_sms` multiprocessors (0: the chip's typical count); 1: no split
 *  (since API version 6). */
TILEC_RULES_EXPORTED int64_t tilecAttentionDecodeSplits(
    const char *chip, int64_t batch, int64_t kv_heads, int64_t query_rows,
    int64_t seq_k, int64_t head_dim, int64_t num_sms);
/** The tiles of tile.attention_backward's kernels at `head_dim`, in the
 *  atomic mode or not: the #tile.attention_backward_config fields that
 *  differ from its defaults (since API version 3). */
TILEC_RULES_EXPORTED size_t tilecAttentionBackwardConfig(
    const char *chip, int64_t head_dim, bool atomic, char *buffer, size_t size);

/** The chip and cubin ISA for compute capability major.minor; false (and
 *  empty strings) where tilec has no kernels for it. */
TILEC_RULES_EXPORTED bool tilecChipForCapability(int major, int minor,
                                                 char *chip, size_t chip_size,
                                                 char *cubin_arch,
                                                 size_t cubin_arch_size);

#ifdef __cplusplus
}
#endif

#endif /* TILEC_C_RULES_H */
