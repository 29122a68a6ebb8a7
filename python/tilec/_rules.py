"""ctypes bindings of ``libtilec-rules.so`` (``include/tilec-c/Rules.h``):
the compiler's shape-class dispatch of ``tile.gemm`` / ``tile.attention``,
the tiles of ``tile.attention_backward`` and its chip choice per compute
capability. The library needs no LLVM or
MLIR, so it loads on a machine that only runs precompiled kernels; Python
does not repeat the rule.

Search order: ``$TILEC_RULES_LIBRARY`` (a file or a directory; never
silently replaced), the package directory, the directory of
``$TILEC_LIBRARY``, then ``build/lib`` (and ``build-*/lib``) of the source
checkout the package is imported from.
"""

import ctypes
import os
import threading

from ._capi import checkout_paths

LIBRARY_NAME = "libtilec-rules.so"
API_VERSION = 6
_BUFFER = 256


class RulesNotFoundError(RuntimeError):
    """``libtilec-rules.so`` cannot be found or loaded."""


def candidate_paths():
    """Where the library is looked for, in order."""
    explicit = os.environ.get("TILEC_RULES_LIBRARY")
    if explicit:
        return [os.path.join(explicit, LIBRARY_NAME) if os.path.isdir(explicit) else explicit]
    paths = checkout_paths(LIBRARY_NAME)
    compiler = os.environ.get("TILEC_LIBRARY")
    if compiler:
        paths.insert(1, os.path.join(compiler if os.path.isdir(compiler)
                                     else os.path.dirname(compiler), LIBRARY_NAME))
    return paths


_lock = threading.Lock()
_library = None
_library_path = None


def _load():
    global _library, _library_path
    with _lock:
        if _library is not None:
            return _library
        tried = candidate_paths()
        for path in tried:
            if not os.path.isfile(path):
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError as e:
                raise RulesNotFoundError(f"cannot load {path}: {e}") from e
            lib.tilecRulesGetAPIVersion.restype = ctypes.c_uint
            lib.tilecRulesGetAPIVersion.argtypes = []
            version = lib.tilecRulesGetAPIVersion()
            if version != API_VERSION:
                raise RulesNotFoundError(
                    f"{path} has API version {version}, this package "
                    f"needs {API_VERSION}: rebuild it (ninja TilecRulesCAPI)")
            i64, buf, size = ctypes.c_int64, ctypes.c_char_p, ctypes.c_size_t
            lib.tilecGemmShapeConfig.restype = size
            lib.tilecGemmShapeConfig.argtypes = [buf, i64, i64, i64, i64, ctypes.c_uint, buf,
                                                 size]
            lib.tilecGroupedGemmShapeConfig.restype = size
            lib.tilecGroupedGemmShapeConfig.argtypes = [buf, i64, i64, i64, i64, i64,
                                                        ctypes.c_uint, buf, size]
            lib.tilecAttentionShapeConfig.restype = size
            lib.tilecAttentionShapeConfig.argtypes = [buf, i64, i64, ctypes.c_bool, buf, size]
            lib.tilecAttentionDecodeSplits.restype = i64
            lib.tilecAttentionDecodeSplits.argtypes = [buf, i64, i64, i64, i64, i64, i64]
            lib.tilecAttentionBackwardConfig.restype = size
            lib.tilecAttentionBackwardConfig.argtypes = [buf, i64, ctypes.c_bool, buf, size]
            lib.tilecChipForCapability.restype = ctypes.c_bool
            lib.tilecChipForCapability.argtypes = [ctypes.c_int, ctypes.c_int, buf, size,
                                                   buf, size]
            _library, _library_path = lib, path
            return lib
        raise RulesNotFoundError(
            "the tilec rules library (libtilec-rules.so) was not found; looked in: "
            + ", ".join(tried)
            + ". Build it (ninja TilecRulesCAPI), or set TILEC_RULES_LIBRARY to its path "
              "(or TILEC_LIBRARY to the libtilec-c.so next to it)")


def library_path():
    """The path of the library this process loads (loading it)."""
    _load()
    return _library_path


def reset():
    """Forgets the loaded library (tests change the environment)."""
    global _library, _library_path
    with _lock:
        _library = _library_path = None


def _overrides(text):
    """``{field: value}`` of "field=value,..." (``None`` for none)."""
    if not text:
        return None
    return {field: int(value) for field, value in
            (item.split("=") for item in text.split(","))}


#: tilecGemmShapeConfig's flags TILEC_GEMM_SHAPE_CAN_SWAP_AB and
#: TILEC_GEMM_SHAPE_CAN_SPLIT_K (tilec-c/Rules.h).
CAN_SWAP_AB = 1
CAN_SPLIT_K = 2


def gemm_shape_config(m, n, k, chip, num_sms=0, can_swap_ab=False, can_split_k=False):
    out = ctypes.create_string_buffer(_BUFFER)
    flags = (CAN_SWAP_AB if can_swap_ab else 0) | (CAN_SPLIT_K if can_split_k else 0)
    _load().tilecGemmShapeConfig(chip.encode(), m, n, k, num_sms, flags, out, _BUFFER)
    return _overrides(out.value.decode())


def grouped_gemm_shape_config(rows, groups, n, k, chip, num_sms=0, can_swap_ab=False):
    out = ctypes.create_string_buffer(_BUFFER)
    flags = CAN_SWAP_AB if can_swap_ab else 0
    _load().tilecGroupedGemmShapeConfig(chip.encode(), rows, groups, n, k, num_sms, flags, out,
                                        _BUFFER)
    return _overrides(out.value.decode())


def attention_shape_config(seq_q, head_dim, causal, chip):
    out = ctypes.create_string_buffer(_BUFFER)
    _load().tilecAttentionShapeConfig(chip.encode(), seq_q, head_dim, bool(causal), out, _BUFFER)
    return _overrides(out.value.decode())


def attention_decode_splits(chip, batch, kv_heads, query_rows, seq_k, head_dim, num_sms=0):
    """The key ranges of decode attention (``config <splits = S>``; 1: no
    split) for ``batch`` x ``kv_heads`` query blocks of ``query_rows`` rows
    against ``seq_k`` keys."""
    return int(_load().tilecAttentionDecodeSplits(chip.encode(), batch, kv_heads, query_rows,
                                                  seq_k, head_dim, num_sms))


def attention_backward_config(chip, head_dim, atomic):
    """The tiles of tile.attention_backward's kernels (the
    #tile.attention_backward_config fields the rule sets; ``None`` for
    none)."""
    out = ctypes.create_string_buffer(_BUFFER)
    _load().tilecAttentionBackwardConfig(chip.encode(), head_dim, bool(atomic), out, _BUFFER)
    return _overrides(out.value.decode())


def chip_for_capability(major, minor):
    """``(chip, cubin_arch)``, or ``None`` where tilec has no kernels."""
    chip, arch = ctypes.create_string_buffer(32), ctypes.create_string_buffer(32)
    if not _load().tilecChipForCapability(major, minor, chip, 32, arch, 32):
        return None
    return chip.value.decode(), arch.value.decode()
