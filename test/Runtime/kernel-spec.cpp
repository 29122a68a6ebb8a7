//===- kernel-spec.cpp - Test of launch metadata and argument binding -----===//
//
// Part of the tilec project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//

// RUN: rm -rf %t && mkdir -p %t
// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_90a --emit=ptx -o %t/sm_90a
// RUN: tilec %examples/gemm_bf16.mlir --chip=sm_80 --emit=ptx -o %t/sm_80
// RUN: tilec %examples/scale_add_bf16.mlir --chip=sm_80 --emit=ptx -o %t/sm_80
// RUN: tilec-kernel-spec-test %t/sm_90a/gemm_bf16.json %t/sm_80/gemm_bf16.json %t/sm_80/scale_add_bf16.json | FileCheck %s
// RUN: tilec-kernel-spec-test --cases %S/Inputs/tma-expr-meta.json %S/Inputs/tma-expr-meta-cases.txt | FileCheck %s --check-prefix=CASES
//
// Everything the runtime checks before its first driver call, without a GPU:
// KernelSpec::parse on the metadata tilec writes and on broken metadata, and
// KernelSpec::bind on valid and invalid arguments (the error texts are the
// runtime's API). The program also checks facts itself and exits non-zero on
// a failed check. Not checked here: tile sizes, shared memory and other
// numbers the compiler may change.

#include "tilec/Runtime/KernelSpec.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace tilec;

static int failures = 0;

/// Records a failed self-check (and prints it for FileCheck to reject).
static void check(bool cond, const char *what) {
  if (!cond) {
    std::printf("FAILED: %s\n", what);
    ++failures;
  }
}

/// Prints "label: ok" or "label: error: message".
static void report(const char *label, const Status &s) {
  std::printf("%s: %s%s\n", label,
              s.ok() ? "ok" : "error: ", s.message().c_str());
}

/// Binds `args` to `spec`, reports the outcome and returns whether it bound.
static bool bindAndReport(const char *label, const KernelSpec &spec,
                          ArgList args, LaunchPlan &plan) {
  Status s = spec.bind(args, plan);
  report(label, s);
  return s.ok();
}

/// Parses `json` and reports only a failure.
static void parseAndReport(const char *label, const char *json) {
  StatusOr<KernelSpec> spec = KernelSpec::parse(json);
  report(label, spec.ok() ? Status::success() : spec.getStatus());
}

/// Reads and parses the metadata file at `path`.
static StatusOr<KernelSpec> loadSpec(const char *path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return KernelSpec::parse(text.str());
}

/// Device addresses for pointer arguments: only their alignment matters.
static const uint64_t kA = 0x10000, kB = 0x20000, kC = 0x30000;

/// The sm_90a GEMM: tensor maps built from A and B.
static void testGemmSm90a(const KernelSpec &spec) {
  // CHECK-LABEL: == gemm sm_90a
  std::printf("== gemm sm_90a\n");
  // The maps of A and B follow the parameters (C may have one too).
  // CHECK: name gemm_bf16, 9 params, persistent 1, tensor maps of A at 9, B at 10
  std::printf("name %s, %zu params, persistent %d, tensor maps of",
              spec.name.c_str(), spec.params.size(), spec.persistent);
  for (const TensorMapSpec &m : spec.tensorMaps)
    std::printf("%s %s at %u", &m == &spec.tensorMaps[0] ? "" : ",",
                spec.params[m.base].name.c_str(), m.position);
  std::printf("\n");
  check(spec.params[8].position == 8, "parameters keep their positions");

  LaunchPlan plan;
  // M=1000, N=600, K=300 with padded leading dimensions.
  bool bound =
      bindAndReport("positional", spec,
                    {Arg::ptr(kA, DType::BF16), Arg::ptr(kB, DType::BF16),
                     Arg::ptr(kC, DType::BF16), 1000, 600, 300, 304, 608, 600},
                    plan);
  // CHECK: positional: ok
  if (!bound)
    return;
  // CHECK-NEXT: grid ({{[1-9][0-9]*}}, 1, 1), M slot 1000
  std::printf("grid (%" PRId64 ", %" PRId64 ", %" PRId64 "), M slot %" PRIu64
              "\n",
              plan.grid[0], plan.grid[1], plan.grid[2], plan.values[3]);
  // A is M x K with row stride lda: innermost first, [K, M] and lda * 2
  // bytes.
  const TensorMapRequest &a = plan.tensorMaps[0];
  // CHECK-NEXT: map A: address 0x10000, sizes [300, 1000], strides [608]
  std::printf("map A: address 0x%" PRIx64 ", sizes [%" PRIu64 ", %" PRIu64
              "], strides [%" PRIu64 "]\n",
              a.address, a.sizes[0], a.sizes[1], a.strides[0]);

  LaunchPlan named;
  bound = bindAndReport("named", spec,
                        {Arg::ptr(kA, DType::BF16), Arg::ptr(kB).named("B"),
                         Arg(608).named("ldb"), Arg(300).named("K"),
                         Arg::ptr(kC).named("C"), Arg(1000).named("M"),
                         Arg(600).named("N"), Arg(304).named("lda"),
                         Arg(600).named("ldc")},
                        named);
  // CHECK: named: ok
  check(bound && named.values == plan.values && named.grid == plan.grid &&
            named.tensorMaps == plan.tensorMaps,
        "named arguments bind like positional ones");

  std::vector<Arg> args = {Arg::ptr(kA, DType::BF16),
                           Arg::ptr(kB, DType::BF16),
                           Arg::ptr(kC, DType::BF16),
                           1000,
                           600,
                           300,
                           304,
                           608,
                           600};
  // Each case breaks one argument of `args`.
  auto broken = [&](const char *label, size_t index, Arg arg) {
    std::vector<Arg> copy = args;
    copy[index] = arg;
    LaunchPlan p;
    bindAndReport(label, spec, copy, p);
  };
  LaunchPlan p;
  std::vector<Arg> more = args;
  more.push_back(1);
  // CHECK: too many: error: gemm_bf16 takes 9 arguments (A, B, C, M, N, K, lda, ldb, ldc), got 10
  bindAndReport("too many", spec, more, p);
  // CHECK: missing one: error: gemm_bf16: missing argument 'ldc'
  bindAndReport("missing one", spec, ArgList(args.data(), 8), p);
  // CHECK: missing two: error: gemm_bf16: missing arguments 'ldb', 'ldc'
  bindAndReport("missing two", spec, ArgList(args.data(), 7), p);
  std::vector<Arg> unknown(args.begin(), args.begin() + 8);
  unknown.push_back(Arg(600).named("ldd"));
  // CHECK: unknown name: error: gemm_bf16 has no parameter named 'ldd'
  bindAndReport("unknown name", spec, unknown, p);
  unknown.back() = Arg(600).named("M");
  // CHECK: twice: error: gemm_bf16: argument 'M' given twice
  bindAndReport("twice", spec, unknown, p);
  std::vector<Arg> order = {Arg::ptr(kA).named("A"), Arg::ptr(kB)};
  // CHECK: order: error: gemm_bf16: positional argument 1 follows named ones
  bindAndReport("order", spec, order, p);

  // CHECK: scalar for pointer: error: gemm_bf16: 'A' is a pointer to bf16, got
  // a scalar
  broken("scalar for pointer", 0, 0x10000);
  // CHECK: pointer for scalar: error: gemm_bf16: 'M' is a scalar (i32), got a pointer
  broken("pointer for scalar", 3, Arg::ptr(kA));
  // CHECK: float for integer: error: gemm_bf16: 'M' is a scalar (i32), got a floating-point value
  broken("float for integer", 3, 1000.0);
  // CHECK: out of range: error: gemm_bf16: 'M' is a scalar (i32); 4294967296 is out of range [-2147483648, 2147483647]
  broken("out of range", 3, int64_t(1) << 32);
  // CHECK: wrong dtype: error: gemm_bf16: 'B' points to bf16, got a pointer to f16
  broken("wrong dtype", 1, Arg::ptr(kB, DType::F16));
  // CHECK: misaligned: error: gemm_bf16: 'A' must be 16-byte aligned, got address 0x10002
  broken("misaligned", 0, Arg::ptr(kA + 2, DType::BF16));
  // CHECK: divisibility: error: gemm_bf16: 'lda' = 301 must be a multiple of 8
  broken("divisibility", 6, 301);
  // CHECK: negative stride: error: gemm_bf16: tensor map of 'A': stride lda=-8 of dimension 1 (innermost first) must be positive, a multiple of 16 bytes and below 2^40 bytes (2-byte elements)
  broken("negative stride", 6, -8);
  // CHECK: negative size: error: gemm_bf16: tensor map of 'A': size K=-1 of dimension 0 (innermost first) must be in [0, 2^32]
  broken("negative size", 5, -1);

  // Tensor arguments: shape and strides (outermost first) are checked
  // against the view the tensor map reads.
  // CHECK: tensor: ok
  broken("tensor", 0, Arg::tensor(kA, DType::BF16, {1000, 304}, {304, 1}));
  // CHECK: not contiguous: error: gemm_bf16: 'A' must be contiguous in its last dimension (stride 1), got stride 2
  broken("not contiguous", 0,
         Arg::tensor(kA, DType::BF16, {1000, 300}, {608, 2}));
  // CHECK: other stride: error: gemm_bf16: 'A' has stride 320 in dimension 0, but the kernel reads it with stride lda=304
  broken("other stride", 0,
         Arg::tensor(kA, DType::BF16, {1000, 300}, {320, 1}));
  // CHECK: too small: error: gemm_bf16: 'A' has 999 elements in dimension 0, but the kernel reads M=1000
  broken("too small", 0, Arg::tensor(kA, DType::BF16, {999, 304}, {304, 1}));
  // CHECK: rank: error: gemm_bf16: 'A' is read as a 2-d view, got a 1-d tensor
  broken("rank", 0, Arg::tensor(kA, DType::BF16, {304000}, {1}));
  // CHECK: bad shape: error: gemm_bf16: 'A': a tensor needs as many strides as sizes, and 1 to 5 of them
  broken("bad shape", 0, Arg::tensor(kA, DType::BF16, {1000, 304}, {1}));

  // An empty problem binds (nothing will launch), but only valid arguments.
  args[3] = 0;
  // CHECK: empty: ok
  check(bindAndReport("empty", spec, args, p) && p.isEmpty(),
        "M = 0 gives an empty grid");
  args[0] = Arg::ptr(kA + 8);
  // CHECK: empty misaligned: error: gemm_bf16: 'A' must be 16-byte aligned, got address 0x10008
  bindAndReport("empty misaligned", spec, args, p);
}

/// The sm_80 GEMM (cp.async, no tensor maps) and the 2-d grid with an f32
/// scalar of scale_add_bf16.
static void testSm80(const KernelSpec &gemm, const KernelSpec &scaleAdd) {
  // CHECK-LABEL: == sm_80
  std::printf("== sm_80\n");
  check(gemm.tensorMaps.empty() && !gemm.persistent,
        "the sm_80 GEMM has no tensor maps");
  LaunchPlan plan;
  // Without tensor maps, tensor shapes have nothing to be checked against.
  // CHECK: gemm tensor: ok
  bindAndReport("gemm tensor", gemm,
                {Arg::tensor(kA, DType::BF16, {1000, 300}, {320, 2}),
                 Arg::ptr(kB), Arg::ptr(kC), 1000, 600, 300, 304, 608, 600},
                plan);
  // CHECK: gemm misaligned: error: gemm_bf16: 'B' must be 16-byte aligned, got address 0x20004
  bindAndReport("gemm misaligned", gemm,
                {Arg::ptr(kA), Arg::ptr(kB + 4), Arg::ptr(kC), 1000, 600, 300,
                 304, 608, 600},
                plan);

  // CHECK: scale_add: ok
  bool bound = bindAndReport(
      "scale_add", scaleAdd,
      {Arg::ptr(kA), Arg::ptr(kB), Arg::ptr(kC), 0.5f, 100, 300, 300, 301, 302},
      plan);
  if (!bound)
    return;
  // CHECK-NEXT: grid (3, 4, 1), alpha 0x3f000000
  std::printf("grid (%" PRId64 ", %" PRId64 ", %" PRId64 "), alpha 0x%" PRIx64
              "\n",
              plan.grid[0], plan.grid[1], plan.grid[2], plan.values[3]);
  // An integer converts to a floating-point parameter.
  Status s = scaleAdd.bind(
      {Arg::ptr(kA), Arg::ptr(kB), Arg::ptr(kC), 2, 100, 300, 300, 301, 302},
      plan);
  check(s.ok() && plan.values[3] == 0x40000000, "integer alpha binds as 2.0f");
  // CHECK: alpha pointer: error: scale_add_bf16: 'alpha' is a scalar (f32), got a pointer
  bindAndReport("alpha pointer", scaleAdd,
                {Arg::ptr(kA), Arg::ptr(kB), Arg::ptr(kC), Arg::ptr(kA), 100,
                 300, 300, 301, 302},
                plan);
}

/// Scalar encodings: the low bytes of each 8-byte slot.
static void testScalars() {
  // CHECK-LABEL: == scalars
  std::printf("== scalars\n");
  StatusOr<KernelSpec> spec = KernelSpec::parse(R"({
    "kernel": "scalars", "block": [32, 1, 1], "smem_bytes": 0, "grid": ["1"],
    "params": [
      {"name": "h", "kind": "scalar", "dtype": "f16"},
      {"name": "b", "kind": "scalar", "dtype": "bf16"},
      {"name": "flag", "kind": "scalar", "dtype": "i1"},
      {"name": "c", "kind": "scalar", "dtype": "i8"},
      {"name": "big", "kind": "scalar", "dtype": "i64"},
      {"name": "d", "kind": "scalar", "dtype": "f64"}]})");
  check(spec.ok(), "scalar metadata parses");
  if (!spec.ok())
    return;
  LaunchPlan plan;
  auto show = [&](const char *label, ArgList args) {
    if (!bindAndReport(label, *spec, args, plan))
      return;
    for (uint64_t v : plan.values)
      std::printf(" 0x%" PRIx64, v);
    std::printf("\n");
  };
  // CHECK: values: ok
  // CHECK-NEXT: 0x3c00 0x3f80 0x1 0xfffffffffffffffd 0x10000000000 0x3fd0000000000000
  show("values", {1.0, 1.0f, true, -3, int64_t(1) << 40, 0.25});
  // Rounding to nearest even: 65520 overflows f16, 1e-7 is a subnormal f16
  // (1.68 units of 2^-24), 1 + 2^-8 is halfway between two bf16 values.
  // CHECK: rounding: ok
  // CHECK-NEXT: 0x7c00 0x3f80 0x0 0x7f 0x0 0x0
  show("rounding", {65520.0, 1.00390625, false, 127, 0, 0});
  // CHECK: subnormal: ok
  // CHECK-NEXT: 0x2 0x3f82 0x0 0xffffffffffffff80 0x0 0x0
  show("subnormal", {1e-7, 1.01171875, 0, -128, 0, 0});
  // CHECK: i1 range: error: scalars: 'flag' is a scalar (i1); 2 is out of range [0, 1]
  show("i1 range", {1.0, 1.0, 2, 0, 0, 0});
  // CHECK: i8 range: error: scalars: 'c' is a scalar (i8); 200 is out of range [-128, 127]
  show("i8 range", {1.0, 1.0, 0, 200, 0, 0});
}

/// Grid rules: precedence, Python rounding, errors and launch limits.
static void testGrid() {
  // CHECK-LABEL: == grid
  std::printf("== grid\n");
  std::vector<ParamSpec> params(3);
  params[0] = {"a", ParamSpec::Kind::Scalar, DType::I64};
  params[1] = {"b", ParamSpec::Kind::Scalar, DType::I32};
  params[2] = {"x", ParamSpec::Kind::Pointer, DType::F32};
  const int64_t values[] = {-7, 2, 0};
  const char *exprs[] = {
      "2 + 3 * a - -b",
      "(2 + 3) * a",
      "floordiv(a, b)",
      "ceildiv(a, b)",
      "mod(a, b)",
      "mod(-a, -b)",
      "ceildiv(a, 0)",
      "a * 2 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024 * 1024",
      "ceildiv(a b)",
      "c + 1",
      "x + 1",
      "a +",
      "1 2"};
  // CHECK: 2 + 3 * a - -b = -17
  // CHECK: (2 + 3) * a = -35
  // CHECK: floordiv(a, b) = -4
  // CHECK: ceildiv(a, b) = -3
  // CHECK: mod(a, b) = 1
  // CHECK: mod(-a, -b) = -1
  // CHECK: ceildiv(a, 0): division by zero in grid expression 'ceildiv(a, 0)'
  // CHECK: a * 2 * {{.*}}: grid expression '{{.*}}' overflows
  // CHECK: ceildiv(a b): grid expression 'ceildiv(a b)': expected ',' in 'ceildiv'
  // CHECK: c + 1: grid expression 'c + 1': unknown parameter 'c'
  // CHECK: x + 1: grid expression 'x + 1': 'x' is not an integer scalar parameter
  // CHECK: a +: grid expression 'a +': unexpected end
  // CHECK: 1 2: grid expression '1 2': trailing input
  for (const char *text : exprs) {
    StatusOr<GridExpr> e = GridExpr::parse(text, params);
    if (!e.ok()) {
      std::printf("%s: %s\n", text, e.getStatus().message().c_str());
      continue;
    }
    StatusOr<int64_t> v = e->evaluate(values);
    if (v.ok())
      std::printf("%s = %" PRId64 "\n", text, *v);
    else
      std::printf("%s: %s\n", text, v.getStatus().message().c_str());
  }

  // Computed tensor-map sizes and strides: every value in [0, 2^31).
  // CHECK: view b * 3 = 6
  // CHECK: view ceildiv(b, 0): divides by zero
  // CHECK: view b - 3: computes -1, outside [0, 2^31)
  // CHECK: view a + 8: reads -7, outside [0, 2^31)
  // CHECK: view b * 1073741824: computes 2147483648, outside [0, 2^31)
  // CHECK: view -b + 4: computes -2, outside [0, 2^31)
  for (const char *text : {"b * 3", "ceildiv(b, 0)", "b - 3", "a + 8",
                           "b * 1073741824", "-b + 4"}) {
    StatusOr<GridExpr> e = GridExpr::parse(text, params);
    check(e.ok(), "view expressions parse");
    if (!e.ok())
      continue;
    StatusOr<int64_t> v = e->evaluateViewValue(values);
    if (v.ok())
      std::printf("view %s = %" PRId64 "\n", text, *v);
    else
      std::printf("view %s: %s\n", text, v.getStatus().message().c_str());
  }

  StatusOr<KernelSpec> spec = KernelSpec::parse(R"({
    "kernel": "clustered", "block": [128, 1, 1], "cluster": [2, 1, 1],
    "smem_bytes": 0, "grid": ["m", "n"],
    "params": [{"name": "m", "kind": "scalar", "dtype": "i32"},
               {"name": "n", "kind": "scalar", "dtype": "i32"}]})");
  check(spec.ok() && spec->hasCluster(), "cluster metadata parses");
  if (!spec.ok())
    return;
  LaunchPlan plan;
  // CHECK: whole clusters: ok
  bindAndReport("whole clusters", *spec, {4, 3}, plan);
  // CHECK: split cluster: error: clustered: grid x = 3 is not a multiple of the cluster size 2
  bindAndReport("split cluster", *spec, {3, 3}, plan);
  // CHECK: grid y limit: error: clustered: grid y = 70000 exceeds 65535
  bindAndReport("grid y limit", *spec, {4, 70000}, plan);
  // CHECK: negative: ok
  bindAndReport("negative", *spec, {-4, 3}, plan);
  check(plan.isEmpty(), "a negative grid size is an empty grid");

  // A persistent cluster kernel walks its tiles in whole clusters too: its
  // programs run the same number of tiles (they share them by multicast).
  StatusOr<KernelSpec> persistent = KernelSpec::parse(R"({
    "kernel": "walker", "block": [128, 1, 1], "cluster": [2, 1, 1],
    "smem_bytes": 0, "grid": ["t"], "persistent": true,
    "params": [{"name": "t", "kind": "scalar", "dtype": "i32"}]})");
  check(persistent.ok() && persistent->persistent, "persistent metadata parses");
  if (!persistent.ok())
    return;
  // CHECK: persistent whole clusters: ok
  bindAndReport("persistent whole clusters", *persistent, {6}, plan);
  // CHECK: persistent split cluster: error: walker: grid x = 5 is not a multiple of the cluster size 2
  bindAndReport("persistent split cluster", *persistent, {5}, plan);
}

/// Metadata that is not what tilec writes.
static void testBadMetadata() {
  // CHECK-LABEL: == bad metadata
  std::printf("== bad metadata\n");
  // CHECK: syntax: error: <kernel>.json: invalid JSON at 2:13: unexpected character '}'
  parseAndReport("syntax", "{\"kernel\": \"k\",\n \"params\": [}");
  // CHECK: trailing: error: <kernel>.json: invalid JSON at 1:4: trailing characters after the value
  parseAndReport("trailing", "{} []");
  // CHECK: not an object: error: <kernel>.json: expected an object at the top level
  parseAndReport("not an object", "[1, 2]");
  // CHECK: missing: error: <kernel>.json: missing field 'params'
  parseAndReport("missing", R"({"kernel": "k"})");

  // A valid kernel with one pointer, one integer and one tensor map; each
  // case below breaks one field.
  auto withMap = [](const char *params, const char *map, const char *grid) {
    return std::string(R"({"kernel": "k", "block": [128, 1, 1],
      "smem_bytes": 0, "chip": "sm\u005f90a", "grid": [)") +
           grid + R"(], "params": [)" + params + R"(], "tensor_maps": [)" +
           map + "]}";
  };
  const char *params = R"({"name": "x", "kind": "pointer", "dtype": "bf16"},
                          {"name": "n", "kind": "scalar", "dtype": "i32"})";
  const char *map = R"({"index": 2, "base": "x", "dtype": "bf16",
    "elem_bytes": 2, "sizes": ["n", 4], "strides": [1, "n"], "box": [64, 4],
    "swizzle": 128})";
  StatusOr<KernelSpec> ok =
      KernelSpec::parse(withMap(params, map, R"j("ceildiv(n, 64)")j"));
  check(ok.ok() && ok->chip == "sm_90a" && ok->tensorMaps[0].position == 2 &&
            ok->tensorMaps[0].sizes[1].constant == 4,
        "a tensor map with a constant size parses, \\u escapes decode");

  struct {
    const char *label, *params, *map, *grid;
  } cases[] = {
      // CHECK: bad kind: error: k.json: field 'params[1].kind' must be "pointer" or "scalar", got "value"
      {"bad kind",
       R"({"name": "x", "kind": "pointer", "dtype": "bf16"},
          {"name": "n", "kind": "value", "dtype": "i32"})",
       map, R"("1")"},
      // CHECK: bad dtype: error: k.json: field 'params[0].dtype' has unknown dtype "bfloat"
      {"bad dtype",
       R"({"name": "x", "kind": "pointer", "dtype": "bfloat"},
          {"name": "n", "kind": "scalar", "dtype": "i32"})",
       map, R"("1")"},
      // CHECK: fp8 scalar: error: k.json: field 'params[1].dtype' is f8e4m3, which no scalar parameter can be
      {"fp8 scalar",
       R"({"name": "x", "kind": "pointer", "dtype": "bf16"},
          {"name": "n", "kind": "scalar", "dtype": "f8e4m3"})",
       "", R"("1")"},
      // CHECK: repeated: error: k.json: field 'params[1].name' repeats parameter name 'x'
      {"repeated",
       R"({"name": "x", "kind": "pointer", "dtype": "bf16"},
          {"name": "x", "kind": "scalar", "dtype": "i32"})",
       "", R"("1")"},
      // CHECK: bad align: error: k.json: field 'params[0].align' must be a power of two on a pointer parameter
      {"bad align",
       R"({"name": "x", "kind": "pointer", "dtype": "bf16", "align": 12},
          {"name": "n", "kind": "scalar", "dtype": "i32"})",
       "", R"("1")"},
      // CHECK: bad grid: error: k.json: field 'grid[0]' is invalid: grid expression 'ceildiv(q, 4)': unknown parameter 'q'
      {"bad grid", params, map, R"j("ceildiv(q, 4)")j"},
      // A kernel without grid(...) parses (bind refuses it, below).
      // CHECK: no grid: ok
      {"no grid", params, map, ""},
      // CHECK: map base: error: k.json: field 'tensor_maps[0].base' must name a pointer parameter, got 'n'
      {"map base", params,
       R"({"index": 2, "base": "n", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["n"], "strides": [1], "box": [64], "swizzle": 0})",
       R"("1")"},
      // CHECK: map index: error: k.json: field 'tensor_maps[0].index' must be a free position below 3, got 5
      {"map index", params,
       R"({"index": 5, "base": "x", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["n"], "strides": [1], "box": [64], "swizzle": 0})",
       R"("1")"},
      // CHECK: elem bytes: error: k.json: field 'tensor_maps[0].elem_bytes' must be in [2, 2], got 4
      {"elem bytes", params,
       R"({"index": 2, "base": "x", "dtype": "bf16", "elem_bytes": 4,
           "sizes": ["n"], "strides": [1], "box": [64], "swizzle": 0})",
       R"("1")"},
      // CHECK: inner stride: error: k.json: field 'tensor_maps[0].strides[0]' must be 1: TMA reads the innermost dimension contiguously
      {"inner stride", params,
       R"({"index": 2, "base": "x", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["n"], "strides": ["n"], "box": [64], "swizzle": 0})",
       R"("1")"},
      // CHECK: box bytes: error: k.json: field 'tensor_maps[0].box[0]' spans 12 bytes; TMA needs a multiple of 16
      {"box bytes", params,
       R"({"index": 2, "base": "x", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["n"], "strides": [1], "box": [6], "swizzle": 0})",
       R"("1")"},
      // CHECK: box swizzle: error: k.json: field 'tensor_maps[0].box[0]' spans 256 bytes, more than the 128-byte swizzle
      {"box swizzle", params,
       R"({"index": 2, "base": "x", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["n"], "strides": [1], "box": [128], "swizzle": 128})",
       R"("1")"},
      // A size or stride may be an expression over integer parameters.
      // CHECK: computed: ok
      {"computed", params,
       R"j({"index": 2, "base": "x", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["n * 2", "(n)"], "strides": [1, "n * 8 + 8"],
           "box": [64, 8], "swizzle": 0})j",
       R"("1")"},
      // CHECK: computed unknown: error: k.json: field 'tensor_maps[0].sizes[0]' is invalid: grid expression 'n * q': unknown parameter 'q'
      {"computed unknown", params,
       R"({"index": 2, "base": "x", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["n * q"], "strides": [1], "box": [64], "swizzle": 0})",
       R"("1")"},
      // CHECK: computed pointer: error: k.json: field 'tensor_maps[0].sizes[0]' is invalid: grid expression 'x * 2': 'x' is not an integer scalar parameter
      {"computed pointer", params,
       R"({"index": 2, "base": "x", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["x * 2"], "strides": [1], "box": [64], "swizzle": 0})",
       R"("1")"},
      // CHECK: map unknown name: error: k.json: field 'tensor_maps[0].sizes[0]' names unknown parameter 'm'
      {"map unknown name", params,
       R"({"index": 2, "base": "x", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["m"], "strides": [1], "box": [64], "swizzle": 0})",
       R"("1")"},
      // CHECK: computed inner stride: error: k.json: field 'tensor_maps[0].strides[0]' must be 1: TMA reads the innermost dimension contiguously
      {"computed inner stride", params,
       R"({"index": 2, "base": "x", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["n"], "strides": ["n - n + 1"], "box": [64],
           "swizzle": 0})",
       R"("1")"},
      // CHECK: rank mismatch: error: k.json: field 'tensor_maps[0].strides' must have 2 to 2 entries, got 1
      {"rank mismatch", params,
       R"({"index": 2, "base": "x", "dtype": "bf16", "elem_bytes": 2,
           "sizes": ["n", "n"], "strides": [1], "box": [8, 8],
           "swizzle": 0})",
       R"("1")"},
  };
  for (const auto &c : cases)
    parseAndReport(c.label, withMap(c.params, c.map, c.grid).c_str());

  // The runtime launches only kernels with a grid rule.
  StatusOr<KernelSpec> gridless = KernelSpec::parse(
      R"({"kernel": "k", "block": [128, 1, 1], "smem_bytes": 0,
          "chip": "sm_80", "grid": [], "params": [], "tensor_maps": []})");
  check(gridless.ok(), "a kernel without a grid rule parses");
  LaunchPlan plan;
  // CHECK: gridless bind: error: k: the kernel has no grid(...) rule; give it
  // one, or pass the grid to the launch
  report("gridless bind", gridless->bind(ArgList(nullptr, 0), plan));
}

// The shared cases of computed tensor-map sizes and strides, also run by
// python/tests/test_tma_expr.py: sizes innermost first, byte strides of
// the dimensions past the first.
// CASES-NOT: MISMATCH
// CASES: case ok: ok
// CASES-NEXT: sizes 64 400 4, byte strides 128 12800
// CASES-NEXT: case stride-bytes: error: computed: tensor map of 'x': stride h * d = 15 (h=3, d=5) of dimension 1 (innermost first) must be positive, a multiple of 16 bytes and below 2^40 bytes (2-byte elements)
// CASES-NEXT: case size-2^32: error: computed: tensor map of 'x': size s * bh of dimension 1 (innermost first), with s=65536, bh=65536, computes 4294967296, outside [0, 2^31): the kernel computes view sizes and strides in 32-bit integers
// CASES-NEXT: case size-0: error: computed: tensor map of 'x': size s * bh = 0 (s=0, bh=4) of dimension 1 (innermost first) must be at least 1 when the grid has programs
// CASES-NEXT: case size-0-no-grid: ok
// CASES-NEXT: case stride-0: error: computed: tensor map of 'x': stride h * d = 0 (h=2, d=0) of dimension 1 (innermost first) must be positive when the grid has programs
// CASES-NEXT: case stride-0-no-grid: ok
// CASES-NEXT: case negative: error: computed: tensor map of 'x': stride h * d of dimension 1 (innermost first), with h=-2, d=-16, reads -2, outside [0, 2^31): the kernel computes view sizes and strides in 32-bit integers
// CASES-NOT: MISMATCH

/// Binds the launches of `casesPath` (a shared conformance file, see
/// Inputs/tma-expr-meta-cases.txt) to the kernel of `metaPath`: pointers
/// get 16-byte aligned addresses, integer scalars the case's values in
/// order, others 0.5. Prints "case NAME: ok" or "case NAME: error: MESSAGE",
/// and "MISMATCH" where the outcome is not the expected one.
static int runCases(const char *metaPath, const char *casesPath) {
  StatusOr<KernelSpec> spec = loadSpec(metaPath);
  std::ifstream cases(casesPath);
  if (!spec.ok() || !cases) {
    std::printf("FAILED: cannot read %s or %s\n", metaPath, casesPath);
    return 1;
  }
  std::string line;
  while (std::getline(cases, line)) {
    std::istringstream in(line);
    std::string token;
    std::vector<std::string> tokens;
    while (in >> token)
      tokens.push_back(token);
    if (tokens.size() < 2 || tokens[0][0] == '#')
      continue;
    std::vector<Arg> args;
    size_t next = 1;
    uint64_t address = 0x10000;
    for (const ParamSpec &p : spec->params) {
      if (p.kind == ParamSpec::Kind::Pointer)
        args.push_back(Arg::ptr(address += 0x10000));
      else if (isIntegerDType(p.dtype) && next + 1 < tokens.size())
        args.push_back(Arg(int64_t(std::stoll(tokens[next++]))));
      else
        args.push_back(Arg(0.5));
    }
    LaunchPlan plan;
    Status s = spec->bind(args, plan);
    std::printf("case %s: %s%s\n", tokens[0].c_str(),
                s.ok() ? "ok" : "error: ", s.message().c_str());
    if (s.ok() && !plan.isEmpty())
      for (const TensorMapRequest &r : plan.tensorMaps) {
        std::printf("  sizes");
        for (unsigned d = 0; d < r.rank; ++d)
          std::printf(" %" PRIu64, r.sizes[d]);
        std::printf(", byte strides");
        for (unsigned d = 0; d + 1 < r.rank; ++d)
          std::printf(" %" PRIu64, r.strides[d]);
        std::printf("\n");
      }
    if (s.ok() != (tokens.back() == "ok"))
      std::printf("MISMATCH: %s expected %s\n", tokens[0].c_str(),
                  tokens.back().c_str());
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && std::string(argv[1]) == "--cases")
    return runCases(argv[2], argv[3]);
  if (argc != 4) {
    std::fprintf(stderr,
                 "usage: %s GEMM_SM90A.json GEMM_SM80.json SCALE_ADD.json\n",
                 argv[0]);
    return 2;
  }
  StatusOr<KernelSpec> sm90a = loadSpec(argv[1]);
  StatusOr<KernelSpec> sm80 = loadSpec(argv[2]);
  StatusOr<KernelSpec> scaleAdd = loadSpec(argv[3]);
  for (const auto *spec : {&sm90a, &sm80, &scaleAdd})
    if (!spec->ok()) {
      std::printf("FAILED: %s\n", spec->getStatus().message().c_str());
      return 1;
    }
  testGemmSm90a(*sm90a);
  testSm80(*sm80, *scaleAdd);
  testScalars();
  testGrid();
  testBadMetadata();
  // CHECK: done, 0 failed checks
  std::printf("done, %d failed checks\n", failures);
  return failures ? 1 : 0;
}
