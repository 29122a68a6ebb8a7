"""tilec.grouped_gemm (MoE experts, torch._grouped_mm's problem, in one
launch): the grouped kernel sources and their compilation, argument
checking, the kernel variant a call picks (B layout, shape class of the M
rows, the any-strides variant), the launch values, zero-size problems and
plans -- with the tensor-like stand-ins and fakes of test_bmm.py (no torch,
no GPU)."""

import os

import pytest

import fake_cuda
import tilec
from overhead_bench import write_kernel
from test_bmm import (BASE, FakeCupyArray, FakeTensor, compiled, default_config,  # noqa: F401
                      fakes, formats_of, launches, params_of)
from tilec import kernels, op_batched, plans
from tilec.kernels import gemm_config_suffix, gemm_name, gemm_source


def grouped_metadata(name, chip="sm_90a", dtype="bf16", out_dtype=None, bias=False,
                     aligned=True, b_layout="row", block_n=256):
    """Launch metadata shaped like the compiler's for a grouped GEMM
    (test_fake_metadata_is_the_compilers keeps it honest)."""
    out_dtype = out_dtype or dtype
    chunk = {"align": 16} if aligned else {}
    div = {"divisibility": 8} if aligned else {}
    params = [{"name": "A", "kind": "pointer", "dtype": dtype, **chunk},
              {"name": "B", "kind": "pointer", "dtype": dtype, **chunk},
              {"name": "C", "kind": "pointer", "dtype": out_dtype}]
    if bias:
        params.append({"name": "bias", "kind": "pointer", "dtype": out_dtype})
    params.append({"name": "offsets", "kind": "pointer", "dtype": "i32"})
    params += [{"name": n, "kind": "scalar", "dtype": "i32"} for n in ("groups", "M", "N", "K")]
    params += [{"name": n, "kind": "scalar", "dtype": "i32", **({} if n == "ldc" else div)}
               for n in ("lda", "ldb", "ldc", "sb")]
    maps = []
    if chip == "sm_90a" and aligned:
        b_box, b_sizes = (([64, 64, 1], ["N", "K", "groups"]) if b_layout == "row"
                          else ([64, block_n, 1], ["K", "N", "groups"]))
        maps = [{"base": "A", "box": [64, 128], "dtype": dtype, "elem_bytes": 2,
                 "index": len(params), "sizes": ["K", "M"], "strides": [1, "lda"],
                 "swizzle": 128},
                {"base": "B", "box": b_box, "dtype": dtype, "elem_bytes": 2,
                 "index": len(params) + 1, "sizes": b_sizes, "strides": [1, "ldb", "sb"],
                 "swizzle": 128}]
    persistent = chip == "sm_90a" and aligned
    return {"kernel": name, "chip": chip, "cubin_arch": chip,
            "block": [384 if persistent else 256, 1, 1], "cluster": [1, 1, 1],
            "grid": [f"(ceildiv(M, 128) + groups) * ceildiv(N, {block_n})"],
            "smem_bytes": 1024, "persistent": persistent, "params": params,
            "tensor_maps": maps, "tilec_version": tilec.__version__}


def write_grouped(directory, chip="sm_90a", config=None, **variant):
    """A (fake) precompiled grouped kernel; returns its name."""
    name = gemm_name(grouped=True, **variant) + gemm_config_suffix(config)
    _, source = gemm_source(grouped=True, config=config, name=name, **variant)
    aligned = not config or config.get("aligned", 1)
    meta = grouped_metadata(name, chip, variant.get("dtype", "bf16"), variant.get("out_dtype"),
                            variant.get("bias", False), aligned, variant.get("b_layout", "row"),
                            (config or {}).get("block_n", 256))
    write_kernel(directory, chip, name, meta, source)
    return name


def offsets_of(groups, offset=4096 * 1024, **kwargs):
    """A fake int32 offsets tensor of ``groups`` elements."""
    return FakeTensor((groups,), "int32", offset=offset, **kwargs)


# -- kernel sources ---------------------------------------------------------------


EXAMPLE_SOURCE = """\
tile.kernel @gemm_grouped_bf16_bf16_bcol(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, \
%C: !tile.ptr<bf16>, %offsets: !tile.ptr<i32>, %groups: i32, %M: i32, %N: i32, %K: i32, \
%lda: i32, %ldb: i32, %ldc: i32, %sb: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%groups, %K, %N] strides [%sb, 1, %ldb] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  %o = tile.make_view %offsets[%groups] strides [1] : !tile.ptr<i32>
  tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>) : \
!tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?x?xbf16, strides = [?, 1, ?]>, \
!tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
"""


def test_grouped_source():
    """examples/gemm_grouped_bf16.mlir's kernel, with B's strides and the
    row strides as parameters."""
    name, src = gemm_source(b_layout="col", grouped=True)
    assert name == gemm_name(b_layout="col", grouped=True) == "gemm_grouped_bf16_bf16_bcol"
    assert src == EXAMPLE_SOURCE


def test_grouped_source_row_major_b_epilogue_and_config():
    name, src = gemm_source("f16", out_dtype="f32", bias=True, alpha=True, beta=True,
                            activation="silu", grouped=True, config={"aligned": 0})
    assert name == "gemm_grouped_f16_f32_brow_alpha_beta_bias_silu"
    assert ("(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>, "
            "%bias: !tile.ptr<f32>, %alpha: f32, %beta: f32, %offsets: !tile.ptr<i32>, "
            "%groups: i32, %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32, "
            "%sb: i32) {") in src
    assert "%b = tile.make_view %B[%groups, %K, %N] strides [%sb, %ldb, 1] : !tile.ptr<f16>" in src
    assert "%bv = tile.make_view %bias[%N] strides [1] : !tile.ptr<f32>" in src
    assert ("tile.gemm %a, %b, %c group_offsets(%o : !tile.view<?xi32, strides = [1]>) "
            "alpha(%alpha) beta(%beta) bias(%bv) activation(silu) config <aligned = 0> : "
            "!tile.view<?x?xf16, strides = [?, 1]>, "
            "!tile.view<?x?x?xf16, strides = [?, ?, 1]>, "
            "!tile.view<?x?xf32, strides = [?, 1]>, "
            "!tile.view<?xf32, strides = [1]>\n") in src


#: What the 2-D and batched kernels were before grouped GEMMs (byte for byte).
UNGROUPED_SOURCES = {
    "gemm_bf16_bf16_brow": """\
tile.kernel @gemm_bf16_bf16_brow(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, \
%C: !tile.ptr<bf16>, %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32) {
  %a = tile.make_view %A[%M, %K] strides [%lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%K, %N] strides [%ldb, 1] : !tile.ptr<bf16>
  %c = tile.make_view %C[%M, %N] strides [%ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<?x?xbf16, strides = [?, 1]>, \
!tile.view<?x?xbf16, strides = [?, 1]>, !tile.view<?x?xbf16, strides = [?, 1]>
  tile.return
}
""",
    "gemm_batched_bf16_bf16_bcol": """\
tile.kernel @gemm_batched_bf16_bf16_bcol(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, \
%C: !tile.ptr<bf16>, %batch: i32, %M: i32, %N: i32, %K: i32, %lda: i32, %ldb: i32, %ldc: i32, \
%sa: i32, %sb: i32, %sc: i32) {
  %a = tile.make_view %A[%batch, %M, %K] strides [%sa, %lda, 1] : !tile.ptr<bf16>
  %b = tile.make_view %B[%batch, %K, %N] strides [%sb, 1, %ldb] : !tile.ptr<bf16>
  %c = tile.make_view %C[%batch, %M, %N] strides [%sc, %ldc, 1] : !tile.ptr<bf16>
  tile.gemm %a, %b, %c : !tile.view<?x?x?xbf16, strides = [?, ?, 1]>, \
!tile.view<?x?x?xbf16, strides = [?, 1, ?]>, !tile.view<?x?x?xbf16, strides = [?, ?, 1]>
  tile.return
}
""",
}


def test_ungrouped_sources_are_unchanged():
    assert gemm_source() == ("gemm_bf16_bf16_brow", UNGROUPED_SOURCES["gemm_bf16_bf16_brow"])
    assert gemm_source(b_layout="col", batched=True) == (
        "gemm_batched_bf16_bf16_bcol", UNGROUPED_SOURCES["gemm_batched_bf16_bf16_bcol"])
    for variant in ({}, {"b_layout": "col", "bias": True}, {"batched": True, "dtype": "f16"},
                    {"dtype": "f8e4m3", "b_layout": "col", "scale_a": True, "scale_b": True}):
        assert gemm_source(**variant, grouped=False) == gemm_source(**variant)
        assert "group" not in gemm_source(**variant)[1]


def test_grouped_source_refusals():
    with pytest.raises(ValueError, match=r"a GEMM is batched or grouped, not both"):
        gemm_source(batched=True, grouped=True)
    for scales in ({"scale_a": True}, {"scale_b": True},
                   {"scale_a": True, "scale_b": True, "block_scales": True}):
        with pytest.raises(ValueError, match="a grouped GEMM takes no scale_a / scale_b"):
            gemm_source("f8e4m3", b_layout="col", grouped=True, **scales)


COMPILED_VARIANTS = [
    {},
    {"b_layout": "col"},
    {"dtype": "f16", "b_layout": "col", "bias": True, "activation": "silu"},
    {"out_dtype": "f32", "bias": True, "activation": "gelu"},
    {"dtype": "f32", "b_layout": "col", "precision": "tf32x3"},
    {"dtype": "i8", "b_layout": "col"},
]


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("variant", COMPILED_VARIANTS, ids=lambda v: gemm_name(**v))
def test_grouped_sources_compile(library, chip, variant):
    """The compiler takes every grouped variant tilec.grouped_gemm
    generates: the grid bounds the tiles of every group (each adds at most
    one partial row tile); on sm_90a A's TMA map is 2-D and B's 3-D over
    the groups."""
    name, src = gemm_source(grouped=True, **variant)
    meta = compiled(src, chip)[name].metadata
    block_n = 128 if variant.get("dtype") == "f32" else 256
    assert meta["grid"] == [f"(ceildiv(M, 128) + groups) * ceildiv(N, {block_n})"]
    names = [p["name"] for p in meta["params"]]
    assert names[-9:] == ["offsets", "groups", "M", "N", "K", "lda", "ldb", "ldc", "sb"]
    params = {p["name"]: p for p in meta["params"]}
    assert params["offsets"] == {"name": "offsets", "kind": "pointer", "dtype": "i32"}
    assert params["A"].get("align") == params["B"].get("align") == 16
    assert all(params[s].get("divisibility") for s in ("lda", "ldb", "sb"))
    # C anything: a grouped GEMM stores it without TMA (masked rows).
    assert not any(params[p].get("align") or params[p].get("divisibility")
                   for p in ("C", "ldc", "M", "N", "K", "groups"))
    maps = {m["base"]: m["strides"] for m in meta["tensor_maps"]}
    if chip == "sm_90a" and variant.get("dtype") != "f32":
        assert maps == {"A": [1, "lda"], "B": [1, "ldb", "sb"]}
    else:
        assert maps == {}


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_grouped_any_strides_variant_compiles(library, chip):
    """aligned = 0: no requirement on any pointer or stride, no TMA."""
    name = gemm_name(grouped=True, b_layout="col") + "_aligned0"
    _, src = gemm_source(grouped=True, b_layout="col", config={"aligned": 0}, name=name)
    meta = compiled(src, chip)[name].metadata
    assert not any(p.get("align") or p.get("divisibility") for p in meta["params"])
    assert not meta["tensor_maps"]


@pytest.mark.parametrize("config,error", [
    ({"cluster_m": 2}, "a grouped GEMM takes no clusters"),
    ({"tma_store": 1}, "tma_store needs"),
])
def test_grouped_refuses_clusters_and_tma_store(library, config, error):
    """What tilec.grouped_gemm never asks for (the shape rule's tma_store
    is dropped, clusters are never passed)."""
    _, src = gemm_source(grouped=True, config=config)
    with pytest.raises(tilec.CompileError, match=error):
        tilec.compile(src, chip="sm_90a", emit="cubin")


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_fake_metadata_is_the_compilers(library, chip):
    """What these tests' fake artifacts say is what the compiler says."""
    for variant, config in ((COMPILED_VARIANTS[0], None), (COMPILED_VARIANTS[1], None),
                            (COMPILED_VARIANTS[3], None), (COMPILED_VARIANTS[1], {"block_n": 64}),
                            (COMPILED_VARIANTS[1], {"aligned": 0})):
        name = gemm_name(grouped=True, **variant) + gemm_config_suffix(config)
        _, src = gemm_source(grouped=True, config=config, name=name, **variant)
        real = compiled(src, chip)[name].metadata
        aligned = not config or config.get("aligned", 1)
        fake = grouped_metadata(name, chip, out_dtype=variant.get("out_dtype"),
                                bias=variant.get("bias", False), aligned=aligned,
                                b_layout=variant.get("b_layout", "row"),
                                block_n=(config or {}).get("block_n", 256))
        for field in ("params", "grid", "persistent", "block"):
            assert real[field] == fake[field], field
        assert ([(m["base"], m["sizes"], m["strides"], m["box"]) for m in real["tensor_maps"]]
                == [(m["base"], m["sizes"], m["strides"], m["box"])
                    for m in fake["tensor_maps"]])


# -- launch values ------------------------------------------------------------------


@pytest.fixture
def grouped_artifacts(tmp_path):
    """An artifacts directory with the plain grouped bf16 kernels for sm_90a."""
    for config in (None, {"aligned": 0}):
        write_grouped(str(tmp_path), config=config)
        write_grouped(str(tmp_path), config=config, b_layout="col")
    return str(tmp_path)


def test_grouped_launch_values(launches, grouped_artifacts):
    a, b, offsets = FakeTensor((100, 72)), FakeTensor((3, 72, 40)), offsets_of(3)
    out = tilec.grouped_gemm(a, b, offsets, artifacts=grouped_artifacts)
    assert out.shape == (100, 40) and out.dtype == "torch.bfloat16"
    assert len(launches) == 1 and launches[0][0].name == "gemm_grouped_bf16_bf16_brow"
    p = params_of(launches[0])
    assert (p["groups"], p["M"], p["N"], p["K"]) == (3, 100, 40, 72)
    assert (p["lda"], p["ldb"], p["ldc"], p["sb"]) == (72, 40, 40, 72 * 40)
    assert (p["A"], p["B"], p["C"], p["offsets"]) == (
        a.data_ptr(), b.data_ptr(), out.data_ptr(), offsets.data_ptr())


def test_grouped_column_major_b_of_a_weight_stack(launches, grouped_artifacts):
    """b = w.transpose(1, 2) of an [E, N, K] stack of nn.Linear weights;
    a and out with padded rows keep their strides."""
    b = FakeTensor((8, 64, 48), strides=(48 * 64, 1, 64))  # w: [8, 48, 64]
    a = FakeTensor((30, 64), strides=(72, 1))
    out = FakeTensor((30, 48), strides=(50, 1))
    assert tilec.grouped_gemm(a, b, offsets_of(8), out=out, artifacts=grouped_artifacts) is out
    assert launches[0][0].name == "gemm_grouped_bf16_bf16_bcol"
    p = params_of(launches[0])
    assert (p["lda"], p["ldb"], p["ldc"], p["sb"], p["groups"]) == (72, 64, 50, 48 * 64, 8)


def test_grouped_single_group_and_shared_matrix(launches, grouped_artifacts):
    """One group: its matrix stride (never followed) is a whole number of
    16-byte chunks; an expanded b (matrix stride 0) shares one matrix."""
    tilec.grouped_gemm(FakeTensor((5, 32)), FakeTensor((1, 32, 24), strides=(3, 24, 1)),
                       offsets_of(1), artifacts=grouped_artifacts)
    tilec.grouped_gemm(FakeTensor((5, 32)), FakeTensor((4, 32, 24), strides=(0, 24, 1)),
                       offsets_of(4), artifacts=grouped_artifacts)
    assert [params_of(call)["sb"] for call in launches] == [32 * 24, 0]
    assert {launcher.name for launcher, _ in launches} == {"gemm_grouped_bf16_bf16_brow"}


def test_grouped_single_row(launches, grouped_artifacts):
    """One row of a: its row stride (never followed) is rounded to 16 bytes."""
    tilec.grouped_gemm(FakeTensor((1, 33), strides=(5, 1)), FakeTensor((2, 33, 64)),
                       offsets_of(2), artifacts=grouped_artifacts)
    p = params_of(launches[0])
    assert launches[0][0].name == "gemm_grouped_bf16_bf16_brow" and p["lda"] == 40


@pytest.mark.parametrize("a,b", [
    (FakeTensor((64, 64), offset=2), FakeTensor((2, 64, 64))),  # a's base 2 bytes off
    (FakeTensor((64, 33)), FakeTensor((2, 33, 64))),  # rows of a 66 bytes apart
    (FakeTensor((64, 64)), FakeTensor((2, 64, 60))),  # rows of b 120 bytes apart
    (FakeTensor((64, 64)), FakeTensor((2, 64, 64), strides=(64 * 64 + 4, 64, 1))),  # sb
    (FakeTensor((64, 64)), FakeTensor((2, 64, 64), offset=8)),  # b's base 8 bytes off
], ids=["a_base", "lda", "ldb", "sb", "b_base"])
def test_grouped_unaligned_operands_take_the_any_strides_variant(launches, grouped_artifacts,
                                                                 a, b):
    """(C needs nothing: a grouped GEMM stores it without TMA.)"""
    tilec.grouped_gemm(a, b, offsets_of(2), artifacts=grouped_artifacts)
    # The same sizes with rows padded to 16 bytes: the fast kernel.
    k, n = b.shape[1:]
    tilec.grouped_gemm(FakeTensor((64, k), strides=(72, 1)),
                       FakeTensor((2, k, n), strides=(k * 64, 64, 1)), offsets_of(2),
                       out=FakeTensor((64, n), strides=(n + 1, 1)), artifacts=grouped_artifacts)
    names = [launcher.name for launcher, _ in launches]
    assert names == ["gemm_grouped_bf16_bf16_brow_aligned0", "gemm_grouped_bf16_bf16_brow"]


def test_grouped_unaligned_with_explicit_config_is_refused(launches, tmp_path):
    """With config given there is no variant switch: the kernel's
    requirements are checked and named."""
    write_grouped(str(tmp_path), config={"stages": 3})
    b = FakeTensor((2, 64, 64), strides=(64 * 64 + 4, 64, 1))
    with pytest.raises(tilec.ArgumentError,
                       match=r"tilec.grouped_gemm: the matrix stride of b \(b.stride\(0\)\) = "
                             r"4100 must be a multiple of 8"):
        tilec.grouped_gemm(FakeTensor((64, 64)), b, offsets_of(2), config={"stages": 3},
                           artifacts=str(tmp_path))
    with pytest.raises(tilec.ArgumentError, match="tilec.grouped_gemm: a must be 16-byte aligned"):
        tilec.grouped_gemm(FakeTensor((64, 64), offset=8), FakeTensor((2, 64, 64)),
                           offsets_of(2), config={"stages": 3}, artifacts=str(tmp_path))
    assert launches == []


def test_grouped_compiles_when_no_artifact(launches, library):
    """Without artifacts the kernels are compiled and their real metadata
    checks the values: the fast kernel, then the any-strides one."""
    tilec.grouped_gemm(FakeTensor((8, 16)), FakeTensor((3, 16, 8)), offsets_of(3), chip="sm_80")
    tilec.grouped_gemm(FakeTensor((8, 12)), FakeTensor((3, 12, 8)), offsets_of(3), chip="sm_80")
    assert [launcher.name for launcher, _ in launches] == [
        "gemm_grouped_bf16_bf16_brow", "gemm_grouped_bf16_bf16_brow_aligned0"]
    assert launches[0][0].meta["chip"] == "sm_80" and launches[0][0].cubin[:4] == b"\x7fELF"
    assert launches[0][0].meta["params"][-1] == {"name": "sb", "kind": "scalar", "dtype": "i32",
                                                 "divisibility": 8}
    assert params_of(launches[1])["lda"] == 12 and params_of(launches[1])["sb"] == 96


@pytest.mark.parametrize("chip", ["sm_90a", "sm_80"])
def test_grouped_decode_config_compiles_and_launches(launches, library, chip):
    """A grouped GEMM runs transposed (swap_ab) when its config asks: the
    experts' weights ride the MMA's M, each group's few tokens its N; the
    grid bounds the groups' token tiles."""
    config = {"block_k": 128, "block_m": 16, "block_n": 64, "swap_ab": 1, "warps": 4}
    # w.transpose(1, 2) of an [E, N, K] = [3, 64, 128] weight stack
    b = FakeTensor((3, 128, 64), strides=(64 * 128, 1, 128))
    tilec.grouped_gemm(FakeTensor((8, 128)), b, offsets_of(3), chip=chip, config=config)
    launcher, _ = launches[-1]
    assert launcher.name.endswith("_bcol" + gemm_config_suffix(config))
    assert launcher.meta["grid"] == ["(ceildiv(M, 16) + groups) * ceildiv(N, 64)"]


def test_grouped_epilogue_variant(launches, tmp_path):
    variant = dict(out_dtype="f32", bias=True, activation="relu", b_layout="col")
    name = write_grouped(str(tmp_path), **variant)
    bias = FakeTensor((32,), "float32", offset=4096)
    b = FakeTensor((2, 64, 32), strides=(64 * 32, 1, 64))
    out = tilec.grouped_gemm(FakeTensor((16, 64)), b, offsets_of(2), bias=bias,
                             activation="relu", out_dtype="float32", artifacts=str(tmp_path))
    assert out.dtype == "torch.float32" and out.shape == (16, 32)
    assert launches[0][0].name == name == "gemm_grouped_bf16_f32_bcol_bias_relu"
    assert params_of(launches[0])["bias"] == bias.data_ptr()


_DECODE = "_block_k128_block_m16_block_n64_swap_ab1_warps4"


@pytest.mark.parametrize("shape,b_layout,expected", [
    # The MoE up projection (8192 rows = 4096 tokens x top-2): the default.
    ((8, 8192, 14336, 4096), "col", ""),
    # 64 experts of 128 rows each, 1024 columns: 64 x 8 tiles of the M rows.
    ((64, 8192, 1024, 512), "col", ""),
    ((64, 1024, 1024, 512), "row", "_block_n64"),
    ((4, 512, 4096, 64), "col", "_block_n128"),
    # N not a multiple of 8: the rule's tma_store = 0 is dropped.
    ((3, 4096, 4001, 64), "col", ""),
    # Decode steps (at most 64 tokens per expert on average) run transposed
    # where B is column-major, on 16-, 32- or 64-token tiles.
    ((64, 1024, 1024, 512), "col", _DECODE),
    ((8, 128, 14336, 4096), "col", _DECODE),
    ((8, 256, 14336, 4096), "col", _DECODE.replace("m16", "m32")),
    ((8, 512, 14336, 4096), "col", "_block_k64_block_m64_block_n64_swap_ab1_warps4"),
    ((8, 1024, 14336, 4096), "col", ""),
    ((8, 128, 14336, 4096), "row", "_block_n128"),
])
def test_grouped_shape_class_dispatch(launches, tmp_path, shape, b_layout, expected):
    """sm_90a: the compiler's grouped rule (the shape class of the M rows,
    as the compiler sees a static grouped GEMM, never a tma_store field;
    the transposed class for a few rows per group)."""
    groups, m, n, k = shape
    config = kernels.grouped_gemm_shape_config(m, groups, n, k, "sm_90a",
                                           can_swap_ab=b_layout == "col")
    assert "tma_store" not in (config or {}) and gemm_config_suffix(config) == expected
    name = write_grouped(str(tmp_path), config=config, b_layout=b_layout)
    b = (FakeTensor((groups, k, n), strides=(k * n, 1, k)) if b_layout == "col"
         else FakeTensor((groups, k, n)))
    tilec.grouped_gemm(FakeTensor((m, k)), b, offsets_of(groups), chip="sm_90a",
                       artifacts=str(tmp_path))
    prefix = "gemm_grouped_bf16_bf16_b" + b_layout
    assert launches[0][0].name == name == prefix + expected


def test_grouped_decode_dispatch_falls_back_untransposed(launches, tmp_path, monkeypatch):
    """Artifacts without the transposed class and no compiler: the
    untransposed class of the stacked rows runs (it computes the same)."""
    from tilec import _capi
    groups, m, n, k = 8, 128, 14336, 4096
    assert gemm_config_suffix(kernels.grouped_gemm_shape_config(m, groups, n, k, "sm_90a",
                                                            can_swap_ab=True)) == _DECODE
    name = write_grouped(str(tmp_path), config={"block_n": 128}, b_layout="col")
    monkeypatch.setenv("TILEC_LIBRARY", str(tmp_path / "missing.so"))
    _capi.reset_library()
    try:
        b = FakeTensor((groups, k, n), strides=(k * n, 1, k))
        tilec.grouped_gemm(FakeTensor((m, k)), b, offsets_of(groups), chip="sm_90a",
                           artifacts=str(tmp_path))
        assert [launcher.name for launcher, _ in launches] == [name]
    finally:
        monkeypatch.undo()
        _capi.reset_library()


# -- zero sizes -------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(0, 16, 16, 16), (3, 0, 16, 16), (3, 16, 0, 16),
                                   (0, 0, 16, 0)])
def test_grouped_empty_problem_writes_nothing(launches, shape):
    """No groups, rows or columns: no launch, out left as it is."""
    groups, m, n, k = shape
    a, b, offsets = FakeTensor((m, k)), FakeTensor((groups, k, n)), offsets_of(groups)
    out = tilec.grouped_gemm(a, b, offsets)
    assert out.shape == (m, n) and launches == []
    given = FakeTensor((m, n))
    assert tilec.grouped_gemm(a, b, offsets, out=given) is given
    assert given.filled is None and launches == []


def test_grouped_zero_k_writes_the_groups_rows_without_a_launch(launches, monkeypatch):
    """K = 0: activation(bias) (zeros without a bias) in the rows before
    offsets[-1], compared on the device (through torch), no kernel."""
    written = []
    monkeypatch.setattr(op_batched, "_write_without_products", lambda O, BIAS, activation, device,
                        row_ends=None: written.append((O.ptr, BIAS, activation, row_ends.ptr)))
    offsets = offsets_of(4)
    out = tilec.grouped_gemm(FakeTensor((5, 0)), FakeTensor((4, 0, 7)), offsets,
                             activation="silu")
    assert out.shape == (5, 7)
    bias = FakeTensor((7,), "float32", offset=512)
    given = FakeTensor((5, 7), "float32")
    assert tilec.grouped_gemm(FakeTensor((5, 0)), FakeTensor((4, 0, 7)), offsets, out=given,
                              bias=bias) is given
    assert [(w[2], w[3]) for w in written] == [("silu", offsets.data_ptr()),
                                               (None, offsets.data_ptr())]
    assert written[1][0] == given.data_ptr() and written[1][1].ptr == bias.data_ptr()
    assert launches == []


# -- refusals ---------------------------------------------------------------------


def test_grouped_shapes(launches):
    a, b, offsets = FakeTensor((4, 8)), FakeTensor((2, 8, 4)), offsets_of(2)
    with pytest.raises(tilec.ArgumentError,
                       match=r"tilec.grouped_gemm: a must be 2-D \[M, K\] \(every group's "
                             r"rows\) and b 3-D \[groups, K, N\] \(one matrix per group\), got "
                             r"shapes \[2, 4, 8\] and \[2, 8, 4\]"):
        tilec.grouped_gemm(FakeTensor((2, 4, 8)), b, offsets)
    with pytest.raises(tilec.ArgumentError, match=r"and b 3-D .* got shapes \[4, 8\] and \[8, 4\]"):
        tilec.grouped_gemm(a, FakeTensor((8, 4)), offsets)
    with pytest.raises(tilec.ArgumentError, match="inner dimensions differ: a is 4x8, b is 2x9x4"):
        tilec.grouped_gemm(a, FakeTensor((2, 9, 4)), offsets)
    with pytest.raises(tilec.ArgumentError,
                       match=r"offsets must have shape \[2\] \(one row end per group: b holds 2 "
                             r"matrices\), got \[3\]"):
        tilec.grouped_gemm(a, b, offsets_of(3))
    with pytest.raises(tilec.ArgumentError, match=r"offsets must have shape \[2\] .* got \[2, 1\]"):
        tilec.grouped_gemm(a, b, FakeTensor((2, 1), "int32"))
    with pytest.raises(tilec.ArgumentError,
                       match=r"offsets must be contiguous, got stride 2 -- pass "
                             r"offsets.contiguous\(\)"):
        tilec.grouped_gemm(a, b, offsets_of(2, strides=(2,)))
    with pytest.raises(tilec.ArgumentError, match=r"out must be 4x4, got \[4, 5\]"):
        tilec.grouped_gemm(a, b, offsets, out=FakeTensor((4, 5)))
    with pytest.raises(tilec.ArgumentError,
                       match=r"bias must have shape \[4\] \(shared by all groups\), got \[2, 4\]"):
        tilec.grouped_gemm(a, b, offsets, bias=FakeTensor((2, 4)))
    assert launches == []


def test_grouped_offsets_dtype(launches):
    a, b = FakeTensor((4, 8)), FakeTensor((2, 8, 4))
    for dtype, name in (("int64", "i64"), ("float32", "f32")):
        with pytest.raises(tilec.DTypeError,
                           match=rf"tilec.grouped_gemm: offsets must be int32 \(the groups' "
                                 rf"cumulative row ends, as torch._grouped_mm's offs\), got "
                                 rf"{name} -- pass offsets.to\(torch.int32\)"):
            tilec.grouped_gemm(a, b, FakeTensor((2,), dtype))
    with pytest.raises(TypeError, match="offsets must be a tensor"):
        tilec.grouped_gemm(a, b, [2, 4])
    assert launches == []


def test_grouped_layouts(launches):
    a, b, offsets = FakeTensor((64, 64)), FakeTensor((2, 64, 64)), offsets_of(2)
    with pytest.raises(tilec.ArgumentError,
                       match=r"a must be row-major with unit stride along its last dimension "
                             r"\(K\); got strides \(1, 64\) -- pass a.contiguous\(\)"):
        tilec.grouped_gemm(FakeTensor((64, 64), strides=(1, 64)), b, offsets)
    with pytest.raises(tilec.ArgumentError,
                       match=r"b's matrices must have unit stride along one dimension \(row- or "
                             r"column-major\); got strides \(8192, 128, 2\) -- pass "
                             r"b.contiguous\(\)"):
        tilec.grouped_gemm(a, FakeTensor((2, 64, 64), strides=(8192, 128, 2)), offsets)
    with pytest.raises(tilec.ArgumentError,
                       match=r"out must be row-major with unit stride along its last dimension "
                             r"\(N\)"):
        tilec.grouped_gemm(a, b, offsets, out=FakeTensor((64, 64), strides=(1, 64)))
    with pytest.raises(tilec.ArgumentError, match="bias must be contiguous, got stride 2"):
        tilec.grouped_gemm(a, b, offsets, bias=FakeTensor((64,), strides=(2,)))
    assert launches == []


def test_grouped_dtypes(launches):
    a, b, offsets = FakeTensor((4, 8)), FakeTensor((2, 8, 4)), offsets_of(2)
    with pytest.raises(tilec.DTypeError,
                       match=r"tilec.grouped_gemm: a must be bf16, f16, f32, float8 \(e4m3, "
                             r"e5m2\) or int8, got f64"):
        tilec.grouped_gemm(FakeTensor((4, 8), "float64"), FakeTensor((2, 8, 4), "float64"),
                           offsets)
    with pytest.raises(tilec.DTypeError, match="a and b must have the same dtype, got bf16 and f16"):
        tilec.grouped_gemm(a, FakeTensor((2, 8, 4), "float16"), offsets)
    with pytest.raises(tilec.DTypeError, match="out is bf16 but out_dtype=f32"):
        tilec.grouped_gemm(a, b, offsets, out=FakeTensor((4, 4)), out_dtype="f32")
    with pytest.raises(tilec.DTypeError, match=r"bias must be f32 \(the output dtype\), got bf16"):
        tilec.grouped_gemm(a, b, offsets, out_dtype="f32", bias=FakeTensor((4,)))
    assert launches == []


def test_grouped_k_major_dtypes(launches):
    """f32, float8 and int8 inputs need a column-major b (read K-major);
    int8 takes no epilogue."""
    offsets = offsets_of(2)
    for dtype, name in (("float32", "f32"), ("float8_e4m3fn", "f8e4m3"), ("int8", "i8")):
        with pytest.raises(tilec.ArgumentError,
                           match=rf"an {name} b must be column-major \(unit stride along K, e.g. "
                                 rf"w.transpose\(1, 2\) of an \[E, N, K\] weight stack\)"):
            tilec.grouped_gemm(FakeTensor((64, 64), dtype), FakeTensor((2, 64, 64), dtype),
                               offsets)
    i8 = FakeTensor((64, 64), "int8")
    with pytest.raises(tilec.ArgumentError, match="int8 inputs take no bias or activation"):
        tilec.grouped_gemm(i8, FakeTensor((2, 64, 64), "int8"), offsets, activation="relu")
    assert launches == []


def test_grouped_epilogue_arguments_and_devices(launches):
    a, b, offsets = FakeTensor((4, 8)), FakeTensor((2, 8, 4)), offsets_of(2)
    with pytest.raises(tilec.ArgumentError,
                       match="activation must be None, 'relu', 'gelu' or 'silu', not 'tanh'"):
        tilec.grouped_gemm(a, b, offsets, activation="tanh")
    with pytest.raises(tilec.ArgumentError, match="offsets is on cpu; tilec kernels need CUDA"):
        tilec.grouped_gemm(a, b, offsets_of(2, device="cpu"))
    with pytest.raises(tilec.ArgumentError, match="offsets is on cuda:1 but a is on cuda:0"):
        tilec.grouped_gemm(a, b, offsets_of(2, device="cuda:1"))
    with pytest.raises(tilec.ArgumentError, match="b is on cuda:1 but a is on cuda:0"):
        tilec.grouped_gemm(a, FakeTensor((2, 8, 4), device="cuda:1"), offsets)
    assert launches == []


def test_grouped_cuda_array_interface_objects(launches, tmp_path):
    """CuPy-style arrays take the checked path (no plan)."""
    name = write_grouped(str(tmp_path), dtype="f16")
    a, b = FakeCupyArray((16, 32)), FakeCupyArray((3, 32, 8), ptr=BASE + 4096)
    offsets = FakeCupyArray((3,), typestr="<i4", ptr=BASE + 8192)
    out = FakeTensor((16, 8), "float16", offset=16384)
    tilec.grouped_gemm(a, b, offsets, out=out, artifacts=str(tmp_path))
    assert launches[0][0].name == name
    p = params_of(launches[0])
    assert (p["sb"], p["offsets"], p["groups"]) == (32 * 8, BASE + 8192, 3)


# -- plans ----------------------------------------------------------------------------


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
def test_grouped_plans(fakes, library, tmp_path, chip):
    """Repeated calls reuse a plan (prepared launch) and re-pack new
    pointers -- new offsets (another routing) included; a misaligned call
    takes the any-strides kernel and a plan of its own. Real compiled
    kernels (on sm_90a a 2-D map of A and a 3-D map of B), the fake
    driver."""
    torch, driver = fakes
    root = str(tmp_path / "artifacts")
    metas = {}
    for config in (None, {"aligned": 0}):
        name = gemm_name(grouped=True, b_layout="col") + gemm_config_suffix(config)
        _, src = gemm_source(grouped=True, b_layout="col", config=config, name=name)
        result = compiled(src, chip, None if chip == "sm_90a" else "sm_90")
        result.save(os.path.join(root, chip), source=src)
        metas[config is None] = result[name].metadata
    meta = metas[True]
    names = [q["name"] for q in meta["params"]]
    driver.param_formats = formats_of(meta)
    where = dict(chip=chip, artifacts=root)
    a = fake_cuda.tensor((96, 64))
    b = fake_cuda.tensor((4, 64, 80), strides=(80 * 64, 1, 64))  # an [E, N, K] stack transposed
    offsets, out = fake_cuda.tensor((4,), "int32"), fake_cuda.tensor((96, 80))
    for _ in range(3):
        assert tilec.grouped_gemm(a, b, offsets, out=out, **where) is out
    assert len(plans._tls.plans) == 1 and len(driver.launches) == 3
    launch = driver.launches[-1]
    p = dict(zip(names, launch["params"]))
    assert (p["A"], p["B"], p["C"], p["offsets"]) == (
        a.data_ptr(), b.data_ptr(), out.data_ptr(), offsets.data_ptr())
    assert (p["groups"], p["M"], p["N"], p["K"], p["lda"], p["ldb"], p["ldc"], p["sb"]) == (
        4, 96, 80, 64, 64, 64, 80, 64 * 80)
    if chip == "sm_90a":
        maps = [fake_cuda.decode_tensor_map(blob) for blob in launch["params"][len(names):]]
        # (base, dims, byte strides of the outer dims): A 2-D, B 3-D over the groups.
        assert maps[0] == (a.data_ptr(), [64, 96], [128])
        assert maps[1] == (b.data_ptr(), [64, 80, 4], [128, 64 * 80 * 2])
    else:
        assert launch["grid"] == ((1 + 4) * 1, 1, 1)
    # Other offsets (a new routing), same metadata: the plan re-packs them.
    offsets2 = fake_cuda.tensor((4,), "int32")
    tilec.grouped_gemm(a, b, offsets2, out=out, **where)
    assert dict(zip(names, driver.launches[-1]["params"]))["offsets"] == offsets2.data_ptr()
    assert len(plans._tls.plans) == 1
    # An allocated out: a plan that allocates.
    allocated = tilec.grouped_gemm(a, b, offsets, **where)
    assert allocated.shape == (96, 80) and allocated is not out
    assert dict(zip(names, driver.launches[-1]["params"]))["C"] == allocated.data_ptr()
    # A base 2 bytes off: the any-strides kernel, a plan of its own.
    driver.param_formats = formats_of(metas[False])
    shifted = fake_cuda.tensor((96, 64), offset=2)
    tilec.grouped_gemm(shifted, b, offsets, out=out, **where)
    assert driver.launches[-1]["params"][0] == shifted.data_ptr()
    driver.param_formats = formats_of(meta)
    tilec.grouped_gemm(a, b, offsets, out=out, **where)
    assert dict(zip(names, driver.launches[-1]["params"]))["A"] == a.data_ptr()
    assert len(plans._tls.plans) == 3 and len(driver.launches) == 7
    base = gemm_name(grouped=True, b_layout="col")
    assert {name for name, *_ in plans._kernels} == {base, base + "_aligned0"}
