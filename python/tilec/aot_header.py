"""The ahead-of-time C header of a kernel (``tilec.compile(emit="header")``).

The C API of ``libtilec-c.so`` stops at the cubin, so this module writes the
header that ``tilec --emit=header`` writes (``lib/Compiler/AotHeader.cpp``),
byte for byte, from the kernel's cubin and its ``<kernel>.json``: a C99/C++
header that embeds the cubin and defines

    CUresult tilec_<kernel>_launch(CUstream stream, <typed parameters>);

which checks the kernel's requirements, loads the module once, evaluates the
grid rule, encodes the tensor maps and launches with ``cuLaunchKernelEx``.
It needs only ``<cuda.h>`` and libcuda. ``python/tests/test_header.py``
compares the two writers on kernels that use every part of the format.
"""

import json
import re

#: Element bytes by metadata dtype.
_DTYPE_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2,
                "f32": 4, "f64": 8, "f8e4m3": 1, "f8e5m2": 1}
_INTEGER = ("i1", "i8", "i16", "i32", "i64")

_C_SCALAR = {"i1": "int", "i8": "int8_t", "i16": "int16_t", "i32": "int32_t", "i64": "int64_t",
             "f16": "float", "bf16": "float", "f32": "float"}

_TMA_DATA_TYPE = {"bf16": "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", "f16": "CU_TENSOR_MAP_DATA_TYPE_FLOAT16",
                  "f32": "CU_TENSOR_MAP_DATA_TYPE_FLOAT32", "f64": "CU_TENSOR_MAP_DATA_TYPE_FLOAT64",
                  "i32": "CU_TENSOR_MAP_DATA_TYPE_INT32", "i64": "CU_TENSOR_MAP_DATA_TYPE_INT64",
                  "i16": "CU_TENSOR_MAP_DATA_TYPE_UINT16"}

_USED_NAMES = frozenset((
    "memcpy", "memset", "NULL", "int8_t", "int16_t", "int32_t", "int64_t", "uint16_t",
    "uint32_t", "uint64_t", "uintptr_t", "INT64_C", "INT64_MIN", "INT32_MAX"))
_KEYWORDS = frozenset((
    "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char",
    "class", "const", "constexpr", "continue", "default", "delete", "do", "double", "else",
    "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "nullptr",
    "operator", "or", "private", "protected", "public", "register", "restrict", "return",
    "short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw",
    "true", "try", "typedef", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "while", "xor"))
_ALNUM = re.compile(r"^[A-Za-z0-9_]+$")


class HeaderError(ValueError):
    """The kernel cannot be written as an AOT header (its metadata breaks a
    rule the header relies on)."""


def _is_usable_c_name(name):
    if (not name or name[0].isdigit() or name.startswith("_") or name.startswith("tilec_")
            or name.startswith("CU")
            or (name.startswith("cu") and len(name) > 2 and name[2].isupper())
            or name in _KEYWORDS or name in _USED_NAMES):
        return False
    return bool(_ALNUM.match(name))


# Grid rules, parsed into postfix operations as KernelSpec's GridExpr does.
_CONST, _PARAM, _ADD, _SUB, _MUL, _NEG, _CEILDIV, _FLOORDIV, _MOD = range(9)


class _GridParser:
    def __init__(self, text, params):
        self.text, self.params, self.pos, self.ops = text, params, 0, []

    def fail(self, what):
        raise HeaderError(f"grid expression '{self.text}': {what}")

    def parse(self):
        self.expr(0)
        self.skip_space()
        if self.pos != len(self.text):
            self.fail("trailing input")
        return self.ops

    def skip_space(self):
        while self.pos < len(self.text) and self.text[self.pos] in " \t":
            self.pos += 1

    def consume(self, c):
        self.skip_space()
        if self.pos < len(self.text) and self.text[self.pos] == c:
            self.pos += 1
            return True
        return False

    def expr(self, depth):
        if depth > 64:
            self.fail("nested too deeply")
        self.term(depth)
        while True:
            if self.consume("+"):
                kind = _ADD
            elif self.consume("-"):
                kind = _SUB
            else:
                return
            self.term(depth)
            self.ops.append((kind, 0))

    def term(self, depth):
        self.factor(depth)
        while self.consume("*"):
            self.factor(depth)
            self.ops.append((_MUL, 0))

    def factor(self, depth):
        if self.consume("-"):
            self.factor(depth + 1)
            self.ops.append((_NEG, 0))
            return
        if self.consume("("):
            self.expr(depth + 1)
            if not self.consume(")"):
                self.fail("expected ')'")
            return
        self.skip_space()
        text = self.text
        if self.pos < len(text) and text[self.pos] in "0123456789":
            start = self.pos
            while self.pos < len(text) and text[self.pos] in "0123456789":
                self.pos += 1
            value = int(text[start:self.pos])
            if value >= 1 << 63:
                self.fail("integer too large")
            self.ops.append((_CONST, value))
            return
        start = self.pos
        while self.pos < len(text) and (text[self.pos].isascii() and
                                        (text[self.pos].isalnum() or text[self.pos] == "_")):
            self.pos += 1
        name = text[start:self.pos]
        if not name:
            self.fail(f"unexpected '{text[self.pos]}'" if self.pos < len(text)
                      else "unexpected end")
        fn = {"ceildiv": _CEILDIV, "floordiv": _FLOORDIV, "mod": _MOD}.get(name)
        if fn is None:
            for i, p in enumerate(self.params):
                if p["name"] != name:
                    continue
                if p["kind"] != "scalar" or p["dtype"] not in _INTEGER:
                    self.fail(f"'{name}' is not an integer scalar parameter")
                self.ops.append((_PARAM, i))
                return
            self.fail(f"unknown parameter '{name}'")
        if not self.consume("("):
            self.fail(f"expected '(' after '{name}'")
        self.expr(depth + 1)
        if not self.consume(","):
            self.fail(f"expected ',' in '{name}'")
        self.expr(depth + 1)
        if not self.consume(")"):
            self.fail("expected ')'")
        self.ops.append((fn, 0))


_COMMON_HELPERS = r"""#ifndef TILEC_AOT_COMMON
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
"""


def _host(value, params):
    """A tensor-map size or stride: ``(param index, constant)``."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise HeaderError(f"tensor map size or stride {value!r} is not an integer or a name")
    if isinstance(value, int):
        return (-1, value)
    for i, p in enumerate(params):
        if p["name"] == value:
            return (i, 0)
    raise HeaderError(f"tensor map names unknown parameter '{value}'")


class _Spec:
    """The parts of ``<kernel>.json`` the header uses (KernelSpec::parse)."""

    def __init__(self, meta):
        try:
            self.name = meta["kernel"]
            self.chip = meta.get("chip", "")
            self.cubin_arch = meta.get("cubin_arch", "")
            self.ptx_version = meta.get("ptx_version", "")
            self.block = list(meta["block"])
            self.cluster = list(meta.get("cluster") or [1, 1, 1])
            self.smem = int(meta["smem_bytes"])
            self.persistent = bool(meta.get("persistent", False))
            self.params = [dict(p) for p in meta["params"]]
            maps = meta.get("tensor_maps") or []
            self.maps = []
            for m in maps:
                base = next(i for i, p in enumerate(self.params) if p["name"] == m["base"])
                self.maps.append({
                    "position": int(m["index"]), "base": base, "dtype": m["dtype"],
                    "elem_bytes": int(m["elem_bytes"]),
                    "sizes": [_host(v, self.params) for v in m["sizes"]],
                    "strides": [_host(v, self.params) for v in m["strides"]],
                    "box": [int(b) for b in m["box"]], "swizzle": int(m["swizzle"])})
            self.grid_text = list(meta["grid"])
        except (KeyError, TypeError, ValueError, StopIteration) as e:
            raise HeaderError(f"cannot read the launch metadata: {type(e).__name__}: {e}") from e
        self.grid = [_GridParser(t, self.params).parse() for t in self.grid_text]
        # Tensor maps sit at their positions; the parameters fill the others.
        taken = set(m["position"] for m in self.maps)
        position = 0
        for p in self.params:
            while position in taken:
                position += 1
            p["position"] = position
            position += 1

    @property
    def has_cluster(self):
        return self.cluster[0] * self.cluster[1] * self.cluster[2] != 1

    def grid_dim_text(self, d):
        return self.grid_text[d] if d < len(self.grid_text) else "1"


class _Writer:
    def __init__(self, spec, cubin, version):
        self.spec, self.cubin, self.version = spec, cubin, version
        self.prefix = "tilec_" + spec.name
        self.out = []
        if not _ALNUM.match(spec.name):
            raise HeaderError(f"kernel name '{spec.name}' cannot be part of a C identifier")
        self.names = [p["name"] if _is_usable_c_name(p["name"]) else f"tilec_arg{i}"
                      for i, p in enumerate(spec.params)]
        for m in spec.maps:
            base = spec.params[m["base"]]["name"]
            for param, constant in m["sizes"]:
                if param < 0 and (constant < 0 or constant > 1 << 32):
                    raise HeaderError(f"tensor map of '{base}': constant size {constant} is "
                                      f"outside [0, 2^32]")
            for d, (param, constant) in enumerate(m["strides"]):
                if d > 0 and param < 0 and (constant <= 0 or (constant * m["elem_bytes"]) % 16 != 0
                                            or constant * m["elem_bytes"] >= 1 << 40):
                    raise HeaderError(f"tensor map of '{base}': constant stride {constant} is not "
                                      f"a positive multiple of 16 bytes below 2^40")

    def w(self, *parts):
        self.out.extend(str(p) for p in parts)

    def c_type(self, p):
        if p["kind"] == "pointer":
            return "CUdeviceptr"
        return _C_SCALAR.get(p["dtype"], "double")

    def host_value(self, v):
        param, constant = v
        if param < 0:
            return f"INT64_C({constant})"
        return "(int64_t)" + self.names[param]

    def host_text(self, v):
        param, constant = v
        return str(constant) if param < 0 else self.names[param]

    def grid_expr(self, ops):
        stack = []
        for kind, value in ops:
            if kind == _CONST:
                stack.append(f"INT64_C({value})")
                continue
            if kind == _PARAM:
                stack.append("(int64_t)" + self.names[value])
                continue
            if kind == _NEG:
                stack[-1] = "(-" + stack[-1] + ")"
                continue
            b = stack.pop()
            a = stack[-1]
            if kind == _ADD:
                a = f"({a} + {b})"
            elif kind == _SUB:
                a = f"({a} - {b})"
            elif kind == _MUL:
                a = f"({a} * {b})"
            elif kind == _CEILDIV:
                a = f"tilec_aot_ceildiv({a}, {b}, &tilec_bad)"
            elif kind == _FLOORDIV:
                a = f"tilec_aot_floordiv({a}, {b}, &tilec_bad)"
            else:
                a = f"tilec_aot_mod({a}, {b}, &tilec_bad)"
            stack[-1] = a
        top = stack[-1]
        if top.startswith("(") and top.endswith(")") and not top.startswith("(int64_t)"):
            return top[1:-1]
        return top

    def grid_comment(self):
        return ", ".join(self.spec.grid_dim_text(d) for d in range(3))

    def write_comment(self):
        s, w = self.spec, self.w
        w("/* ", s.name, ".h: ahead-of-time launcher of the tilec kernel ", s.name,
          ".\n *\n * Generated by tilec ", self.version,
          " from the kernel's cubin and launch metadata\n * (chip ", s.chip, ", cubin ",
          s.cubin_arch, ", PTX ISA ", s.ptx_version,
          "); do not edit.\n * Needs only <cuda.h> and libcuda (-lcuda); valid C99 and C++.\n"
          " *\n *   CUresult ", self.prefix, "_launch(CUstream stream")
        for i, p in enumerate(s.params):
            w(",\n *       ", self.c_type(p), " ", self.names[i])
        w(");\n *\n",
          " * launches the kernel on `stream` in the current context. The first call loads\n"
          " * the module into that context (", self.prefix,
          "_load() does it ahead of time;\n * call it first when launching from several "
          "threads); later calls must come\n * from the same context "
          "(CUDA_ERROR_INVALID_CONTEXT otherwise). Arguments that\n * break a requirement "
          "below return CUDA_ERROR_INVALID_VALUE before any driver\n * call; a grid without "
          "programs returns CUDA_SUCCESS and launches nothing.\n *\n")
        w(" * Parameters:\n")
        for i, p in enumerate(s.params):
            w(" *   ", self.names[i], ": ")
            if p["kind"] == "pointer":
                w("device pointer to ", p["dtype"])
            else:
                w(p["dtype"], " scalar")
            if p.get("align"):
                w(", ", p["align"], "-byte aligned")
            if p.get("divisibility"):
                w(", a multiple of ", p["divisibility"])
            if p["kind"] == "scalar" and p["dtype"] in ("f16", "bf16"):
                w(" (passed as float, rounded to nearest even)")
            w("\n")
        for m in s.maps:
            w(" *   TMA descriptor of ", self.names[m["base"]],
              ": 16-byte aligned; sizes (innermost first) [",
              ", ".join(self.host_text(v) for v in m["sizes"]), "] in [0, 2^32];\n *     strides [",
              ", ".join(self.host_text(v) for v in m["strides"]), "] elements of ", m["elem_bytes"],
              " bytes, each past the first a positive\n *     multiple of 16 bytes below 2^40\n")
        w(" *\n * Grid: (", self.grid_comment(), ")")
        if s.persistent:
            w(", x at most the programs resident at once (persistent)")
        w(".\n * Block: ", s.block[0], " x ", s.block[1], " x ", s.block[2],
          " threads; cluster ", s.cluster[0], " x ", s.cluster[1], " x ", s.cluster[2],
          "; dynamic shared memory ", s.smem, " bytes.\n */\n")

    def write_cubin(self):
        cubin = self.cubin
        self.w("/* The cubin (", self.spec.cubin_arch, "), ", len(cubin),
               " bytes. */\nTILEC_AOT_ALIGN64 static const unsigned char ", self.prefix,
               "_cubin[", len(cubin), "] = {")
        lines = []
        for start in range(0, len(cubin), 16):
            lines.append("\n  " + " ".join(f"0x{b:02x}," for b in cubin[start:start + 16]))
        self.out.append("".join(lines))
        self.w("\n};\n\n")

    def write_load(self):
        s, w = self.spec, self.w
        state = self.prefix + "_state"
        w("/* The module, loaded into `context` by the first launch. */\n",
          "static struct {\n  CUcontext context;\n  CUmodule module;\n",
          "  CUfunction function;\n  int64_t resident_programs;\n} ", state, ";\n\n")
        w("/* Loads the module into the current context (the first launch does it). */\n"
          "static inline CUresult ", self.prefix, "_load(void) {\n",
          "  CUcontext context = NULL;\n  CUmodule module = NULL;\n",
          "  CUfunction function = NULL;\n",
          "  CUresult err = cuCtxGetCurrent(&context);\n",
          "  if (err != CUDA_SUCCESS)\n    return err;\n",
          "  if (context == NULL)\n    return CUDA_ERROR_INVALID_CONTEXT;\n",
          "  if (", state, ".module != NULL)\n    return context == ", state,
          ".context ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;\n",
          "  err = cuModuleLoadData(&module, ", self.prefix, "_cubin);\n",
          "  if (err != CUDA_SUCCESS)\n    return err;\n",
          "  err = cuModuleGetFunction(&function, module, \"", s.name, "\");\n")
        if s.smem > 48 * 1024:
            w("  /* Past 48 KiB, dynamic shared memory needs an opt-in. */\n",
              "  if (err == CUDA_SUCCESS)\n    err = cuFuncSetAttribute(function, "
              "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,\n"
              "                             ", s.smem, ");\n")
        cluster_size = s.cluster[0] * s.cluster[1] * s.cluster[2]
        if cluster_size > 8:
            w("  if (err == CUDA_SUCCESS)\n    err = cuFuncSetAttribute(function, "
              "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);\n")
        if s.persistent and not s.has_cluster:
            w("  /* Persistent: launch at most the programs resident at once. */\n",
              "  {\n    int per_sm = 0, sms = 0;\n    CUdevice device;\n",
              "    if (err == CUDA_SUCCESS)\n",
              "      err = cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, function, ",
              s.block[0] * s.block[1] * s.block[2], ", ", s.smem, ");\n",
              "    if (err == CUDA_SUCCESS)\n      err = cuCtxGetDevice(&device);\n",
              "    if (err == CUDA_SUCCESS)\n      err = cuDeviceGetAttribute(&sms, "
              "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);\n",
              "    ", state, ".resident_programs = (int64_t)(per_sm > 1 ? per_sm : 1) * sms;\n",
              "  }\n")
        elif s.persistent:
            c, b = s.cluster, s.block
            w("  /* Persistent: launch at most the clusters resident at once. */\n",
              "  {\n    int clusters = 0;\n    CUlaunchAttribute attr;\n",
              "    CUlaunchConfig config;\n",
              "    memset(&attr, 0, sizeof(attr));\n",
              "    memset(&config, 0, sizeof(config));\n",
              "    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;\n",
              f"    attr.value.clusterDim.x = {c[0]};\n"
              f"    attr.value.clusterDim.y = {c[1]};\n"
              f"    attr.value.clusterDim.z = {c[2]};\n"
              f"    config.gridDimX = {c[0]};\n"
              f"    config.gridDimY = {c[1]};\n"
              f"    config.gridDimZ = {c[2]};\n"
              f"    config.blockDimX = {b[0]};\n"
              f"    config.blockDimY = {b[1]};\n"
              f"    config.blockDimZ = {b[2]};\n"
              f"    config.sharedMemBytes = {s.smem};\n",
              "    config.attrs = &attr;\n    config.numAttrs = 1;\n",
              "    if (err == CUDA_SUCCESS)\n",
              "      err = cuOccupancyMaxActiveClusters(&clusters, function, &config);\n",
              "    ", state, ".resident_programs = (int64_t)(clusters > 1 ? clusters : 1) * ",
              cluster_size, ";\n  }\n")
        w("  if (err != CUDA_SUCCESS) {\n    cuModuleUnload(module);\n",
          "    return err;\n  }\n",
          "  ", state, ".context = context;\n",
          "  ", state, ".module = module;\n",
          "  ", state, ".function = function;\n",
          "  return CUDA_SUCCESS;\n}\n\n")

    def write_unload(self):
        state = self.prefix + "_state"
        self.w("/* Unloads the module; the context it was loaded into must be current. */\n"
               "static inline CUresult ", self.prefix, "_unload(void) {\n",
               "  CUresult err;\n",
               "  if (", state, ".module == NULL)\n    return CUDA_SUCCESS;\n",
               "  err = cuModuleUnload(", state, ".module);\n",
               "  if (err == CUDA_SUCCESS)\n    memset(&", state, ", 0, sizeof(", state, "));\n",
               "  return err;\n}\n\n")

    def write_tensor_map(self, index):
        m, w = self.spec.maps[index], self.w
        rank = len(m["sizes"])
        w("  /* Tensor map of ", self.names[m["base"]], ": box [",
          ", ".join(str(b) for b in m["box"]), "] (innermost first)")
        if m["swizzle"]:
            w(", ", m["swizzle"], "-byte swizzle")
        w(". */\n  {\n    cuuint64_t sizes[", rank, "] = {")
        for d in range(rank):
            v = self.host_value(m["sizes"][d])
            w(", " if d else "", "(cuuint64_t)(", v, " > 0 ? ", v, " : 1)")
        w("};\n    cuuint64_t strides[", max(1, rank - 1), "] = {")
        for d in range(1, rank):
            w(", " if d > 1 else "", "(cuuint64_t)", self.host_value(m["strides"][d]), " * ",
              m["elem_bytes"])
        if rank == 1:
            w("0")
        w("};\n    cuuint32_t box[", rank, "] = {", ", ".join(str(b) for b in m["box"]),
          "};\n    cuuint32_t element_strides[", rank, "] = {",
          ", ".join("1" for _ in range(rank)), "};\n")
        swizzle = {128: "CU_TENSOR_MAP_SWIZZLE_128B", 64: "CU_TENSOR_MAP_SWIZZLE_64B",
                   32: "CU_TENSOR_MAP_SWIZZLE_32B"}.get(m["swizzle"], "CU_TENSOR_MAP_SWIZZLE_NONE")
        w("    tilec_err = cuTensorMapEncodeTiled(\n        &tilec_maps[", index, "], ",
          _TMA_DATA_TYPE.get(m["dtype"], "CU_TENSOR_MAP_DATA_TYPE_UINT8"), ", ", rank,
          ", (void *)(uintptr_t)", self.names[m["base"]], ", sizes, strides, box,\n"
          "        element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, ", swizzle,
          ",\n        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);\n",
          "    if (tilec_err != CUDA_SUCCESS)\n      return tilec_err;\n  }\n")

    def write_launch(self):
        s, w, names = self.spec, self.w, self.names
        state = self.prefix + "_state"
        num_params = len(s.params) + len(s.maps)
        w("/* Launches ", s.name, " on `tilec_stream` in the current context. */\n",
          "static inline CUresult ", self.prefix, "_launch(CUstream tilec_stream")
        for i, p in enumerate(s.params):
            w(", ", self.c_type(p), " ", names[i])
        caller_grid = not s.grid
        if caller_grid:
            w(", int64_t tilec_grid_x, int64_t tilec_grid_y, int64_t tilec_grid_z")
        w(") {\n  int tilec_bad = 0;\n  int64_t tilec_grid[3];\n")
        if s.params:
            w("  uint64_t tilec_slots[", len(s.params), "];\n")
        if s.maps:
            w("  TILEC_AOT_ALIGN64 CUtensorMap tilec_maps[", len(s.maps), "];\n")
        w("  void *tilec_params[", max(1, num_params), "];\n")
        if s.has_cluster:
            w("  CUlaunchAttribute tilec_attr;\n")
        w("  CUlaunchConfig tilec_config;\n  CUresult tilec_err;\n")

        checks = {}  # failing condition -> rule, each condition once, in order

        def require(failing, rule):
            checks.setdefault(failing, rule)

        for i, p in enumerate(s.params):
            if p.get("align"):
                require(f"{names[i]} % {p['align']} != 0", f"{names[i]}: {p['align']}-byte aligned")
            if p.get("divisibility"):
                require(f"{names[i]} % {p['divisibility']} != 0",
                        f"{names[i]}: a multiple of {p['divisibility']}")
        for m in s.maps:
            require(names[m["base"]] + " % 16 != 0", "TMA: 16-byte aligned base")

            def is_wide(v):
                return s.params[v[0]]["dtype"] == "i64"

            for v in m["sizes"]:
                if v[0] < 0:
                    continue
                failing = self.host_value(v) + " < 0"
                if is_wide(v):
                    failing += " || " + self.host_value(v) + " > (INT64_C(1) << 32)"
                require(failing, "TMA: size in [0, 2^32]")
            for d, v in enumerate(m["strides"]):
                if d == 0 or v[0] < 0:
                    continue
                hv, eb = self.host_value(v), m["elem_bytes"]
                failing = f"{hv} <= 0 || ({hv} * {eb}) % 16 != 0"
                if is_wide(v):
                    failing += f" || {hv} >= (INT64_C(1) << 40) / {eb}"
                require(failing, "TMA: stride a positive multiple of 16 bytes below 2^40")
        for failing, rule in checks.items():
            w("  if (", failing, ")\n    return CUDA_ERROR_INVALID_VALUE; /* ", rule, " */\n")

        if caller_grid:
            w("  /* Grid: the caller's (the kernel has no grid rule) */\n")
        else:
            w("  /* Grid: (", self.grid_comment(), ") */\n")
        for d in range(3):
            if caller_grid:
                value = ("tilec_grid_x", "tilec_grid_y", "tilec_grid_z")[d]
            elif d < len(s.grid):
                value = self.grid_expr(s.grid[d])
            else:
                value = "1"
            w("  tilec_grid[", d, "] = ", value, ";\n")
        w("  if (tilec_bad)\n    return CUDA_ERROR_INVALID_VALUE;\n",
          "  if (tilec_grid[0] <= 0 || tilec_grid[1] <= 0 || tilec_grid[2] <= 0)\n"
          "    return CUDA_SUCCESS; /* nothing to compute */\n",
          "  if (tilec_grid[0] > INT32_MAX || tilec_grid[1] > 65535 || tilec_grid[2] > 65535)\n"
          "    return CUDA_ERROR_INVALID_VALUE;\n")
        if s.has_cluster:
            c = s.cluster
            w(f"  if (tilec_grid[0] % {c[0]} != 0 || tilec_grid[1] % {c[1]} != 0 || "
              f"tilec_grid[2] % {c[2]} != 0)\n"
              "    return CUDA_ERROR_INVALID_VALUE; /* whole clusters */\n")
        w("  tilec_err = ", self.prefix, "_load();\n",
          "  if (tilec_err != CUDA_SUCCESS)\n    return tilec_err;\n")
        if s.persistent:
            w("  if (tilec_grid[0] > ", state, ".resident_programs)\n",
              "    tilec_grid[0] = ", state, ".resident_programs;\n")
        for i in range(len(s.maps)):
            self.write_tensor_map(i)

        for i, p in enumerate(s.params):
            w("  tilec_slots[", i, "] = ")
            dtype = p["dtype"]
            if p["kind"] == "pointer":
                w("(uint64_t)", names[i], ";\n")
            elif dtype == "i1":
                w("(uint64_t)(", names[i], " != 0);\n")
            elif dtype in _INTEGER:
                w("(uint64_t)(int64_t)", names[i], ";\n")
            elif dtype == "f16":
                w("tilec_aot_f16_bits(", names[i], ");\n")
            elif dtype == "bf16":
                w("tilec_aot_bf16_bits(", names[i], ");\n")
            else:
                w("0;\n  memcpy(&tilec_slots[", i, "], &", names[i], ", sizeof(", names[i], "));\n")
            w("  tilec_params[", p["position"], "] = &tilec_slots[", i, "];\n")
        for i, m in enumerate(s.maps):
            w("  tilec_params[", m["position"], "] = &tilec_maps[", i, "];\n")

        b = s.block
        w("  memset(&tilec_config, 0, sizeof(tilec_config));\n",
          "  tilec_config.gridDimX = (unsigned)tilec_grid[0];\n",
          "  tilec_config.gridDimY = (unsigned)tilec_grid[1];\n",
          "  tilec_config.gridDimZ = (unsigned)tilec_grid[2];\n",
          "  tilec_config.blockDimX = ", b[0], ";\n",
          "  tilec_config.blockDimY = ", b[1], ";\n",
          "  tilec_config.blockDimZ = ", b[2], ";\n",
          "  tilec_config.sharedMemBytes = ", s.smem, ";\n",
          "  tilec_config.hStream = tilec_stream;\n")
        if s.has_cluster:
            c = s.cluster
            w("  memset(&tilec_attr, 0, sizeof(tilec_attr));\n",
              "  tilec_attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;\n",
              "  tilec_attr.value.clusterDim.x = ", c[0], ";\n",
              "  tilec_attr.value.clusterDim.y = ", c[1], ";\n",
              "  tilec_attr.value.clusterDim.z = ", c[2], ";\n",
              "  tilec_config.attrs = &tilec_attr;\n",
              "  tilec_config.numAttrs = 1;\n")
        w("  return cuLaunchKernelEx(&tilec_config, ", state,
          ".function, tilec_params, NULL);\n}\n")

    def write(self):
        s, w = self.spec, self.w
        macro = "TILEC_" + s.name.upper()
        guard = "TILEC_AOT_" + s.name.upper() + "_H"
        self.write_comment()
        w("\n#ifndef ", guard, "\n#define ", guard, "\n\n",
          "#include <cuda.h>\n#include <stdint.h>\n#include <string.h>\n\n",
          "/* The chip the kernel was compiled for and the cubin's target. */\n",
          "#define ", macro, "_CHIP \"", s.chip, "\"\n",
          "#define ", macro, "_CUBIN_ARCH \"", s.cubin_arch, "\"\n\n",
          "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
          "#ifndef TILEC_AOT_ALIGN64\n#if defined(_MSC_VER)\n",
          "#define TILEC_AOT_ALIGN64 __declspec(align(64))\n#else\n",
          "#define TILEC_AOT_ALIGN64 __attribute__((aligned(64)))\n#endif\n",
          "#endif\n\n", _COMMON_HELPERS, "\n")
        self.write_cubin()
        self.write_load()
        self.write_unload()
        self.write_launch()
        w("\n#ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n\n#endif /* ", guard, " */\n")
        return "".join(self.out)


def build_header(metadata, cubin, version):
    """The text of ``<kernel>.h`` for a kernel: ``metadata`` is its
    ``<kernel>.json`` (text or parsed), ``cubin`` the bytes to embed,
    ``version`` the tilec version named in the comment. Raises
    :class:`HeaderError` when the metadata breaks a rule of the header."""
    meta = json.loads(metadata) if isinstance(metadata, (str, bytes)) else metadata
    if not cubin:
        raise HeaderError(f"no cubin to embed for '{meta.get('kernel')}'")
    return _Writer(_Spec(meta), bytes(cubin), version).write()
