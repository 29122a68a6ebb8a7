"""Training support without a GPU: the attention backward block programs
compile to the expected instructions on both paths, tilec.attention's
``scale=`` picks its kernel, and the routing to the torch operators
(tilec.torch_ops) happens only when a gradient or torch.compile needs it.
The numerics run on the GPU (scripts/gpu/attention_backward_check.py,
scripts/gpu/training_check.py)."""

import re
import sys
import types

import pytest

import tilec
from tilec import api, op_attention
from tilec.kernels import attention_name, attention_source

from scripts.common import backward_kernels  # (conftest puts the repository root on sys.path)
from test_ops import FakeTensor


@pytest.mark.parametrize("chip,expected,absent", [
    ("sm_90a", ("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
                "cp.async.bulk.tensor.4d.shared::cluster.global", "setmaxnreg.inc"),
     "mma.sync.aligned"),
    ("sm_80", ("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "cp.async.cg.shared.global",
               "ldmatrix.sync.aligned"), "wgmma"),
])
def test_backward_kernels_compile_per_path(library, tmp_path, chip, expected, absent):
    for make in (backward_kernels.dq_source, backward_kernels.dkdv_source):
        name, source = make("bf16", 64, True)
        result = tilec.compile(source, chip=chip, emit="ptx", cache_dir=tmp_path)
        ptx = result[name].ptx
        for text in expected:
            assert text in ptx, (name, text)
        assert absent not in ptx, name
        params = [p["name"] for p in result[name].metadata["params"]]
        assert params[:6] == ["Q", "K", "V", "dO", "L2", "DELTA"]
        assert params[-2:] == ["qk_scale", "sm_scale"]


def test_backward_kernel_variants_compile(library, tmp_path):
    """f16 at head dim 128, not causal; the shared-load variant, whose
    operands the threads stage in shared memory for wgmma (they fell back to
    mma.sync before staged operands)."""
    for shared in (False, True):
        names, source = backward_kernels.source("f16", 128, False, shared_loads=shared)
        result = tilec.compile(source, chip="sm_90a", emit="ptx", cache_dir=tmp_path)
        assert result.names == list(names)
        ptx = result[names[2]].ptx
        assert "wgmma" in ptx and "mma.sync" not in ptx


def test_backward_share_tiles_variant(library, tmp_path):
    """Tiles(share_tiles=True) writes schedule<share_tiles = true>: on
    sm_90a each tile two products read is one TMA copy, so the dK/dV loop
    releases two ring stages per step, not four (Q and Qᵀ, dO and dOᵀ
    share theirs), and the atomic kernel on two warpgroups of keys (dS K on
    wgmma, the warpgroups splitting dQ's columns), whose four loads per
    step did not fit a ring, gets one."""
    T = backward_kernels.Tiles

    def ptx(tiles, atomic):
        if atomic:
            kernels = backward_kernels.atomic_sources("bf16", 128, False, tiles=tiles)
            name, source = kernels[1][0], "\n".join(s for _, s in kernels)
        else:
            name, source = backward_kernels.dkdv_source("bf16", 128, False, tiles=tiles)
        assert ("share_tiles = true" in source) == tiles.share_tiles
        text = tilec.compile(source, chip="sm_90a", emit="ptx", cache_dir=tmp_path)[name].ptx
        assert "mma.sync" not in text and "wgmma.mma_async" in text
        return text

    def releases(text):
        return text.count("mbarrier.arrive.shared.b64")

    dkdv = T(dkv_consumer_regs=240)
    shared = dkdv._replace(share_tiles=True)
    assert "_share" in shared.tag() and "_share" not in dkdv.tag()
    assert (releases(ptx(dkdv, False)), releases(ptx(shared, False))) == (4, 2)
    atomic = T(dq_add_cols=128)
    assert releases(ptx(atomic, True)) == 0
    assert releases(ptx(atomic._replace(share_tiles=True), True)) == 2


@pytest.mark.parametrize("chip,dot,add", [
    ("sm_90a", "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16",
     "cp.reduce.async.bulk.tensor.4d.global.shared::cta.add.tile"),
    ("sm_80", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "atom.global.add.f32"),
    # 99 KB of shared memory per block: 64-key programs (the 128-key ones
    # need 102912 bytes and did not compile).
    ("sm_89", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "atom.global.add.f32"),
])
def test_atomic_mode_kernels(library, tmp_path, chip, dot, add):
    """The atomic mode: the dK/dV kernel's fifth product (dS K, with dS the
    transposed dSᵀ) adds into the f32 accumulator (bulk TMA reductions on
    sm_90a, per-element atomics on sm_80); the pre kernel zeroes it and
    dq_scale converts it."""
    tiles = backward_kernels.atomic_tiles_for(chip, 128)
    kernels = backward_kernels.atomic_sources("bf16", 128, True, tiles=tiles)
    assert [n for n, _ in kernels] == list(backward_kernels.atomic_names("bf16", 128, True))
    result = tilec.compile("\n".join(s for _, s in kernels), chip=chip, emit="ptx",
                           cache_dir=tmp_path)
    pre, dkdv, scale = (result[n] for n, _ in kernels)
    assert add in dkdv.ptx and dot in dkdv.ptx
    assert "atom.global" not in pre.ptx + scale.ptx
    params = [[p["name"] for p in k.metadata["params"]] for k in (pre, dkdv, scale)]
    assert params[0][5] == "DQA" and params[1][8] == "DQA"
    assert params[2] == ["DQA", "dQ", "B", "H", "SQ", "dq_batch", "dq_head", "sm_scale",
                         "dqa_batch", "dqa_head"]
    assert params[0][-2:] == params[1][-2:] == ["dqa_batch", "dqa_head"]


@pytest.mark.parametrize("atomic,expanded", [(False, True), (True, False), (False, False)])
def test_backward_op_kernels(library, tmp_path, atomic, expanded):
    """tile.attention_backward (tilec.backward_op): one kernel per stage,
    each with the op kernel's parameters, which launch_values fills by
    name; with expanded views dK and dV have K's heads and dkdv_sum adds up
    each group's."""
    from tilec import backward_op
    name, source = backward_op.source("bf16", 128, True, atomic, expanded)
    result = tilec.compile(source, chip="sm_90a", emit="ptx", cache_dir=tmp_path)
    names = backward_op.stage_names("bf16", 128, True, atomic, expanded)
    assert result.names == names
    assert [n[len(name) + 1:] for n in names] == backward_op.stages(atomic, expanded)
    b, h, hk, sq, sk, d = 2, 8, 2, 300, 500, 128
    q, out, grad_out, dq = (FakeTensor((b, h, sq, d)) for _ in range(4))
    k, v = FakeTensor((b, hk, sk, d)), FakeTensor((b, hk, sk, d))
    lse, l2, delta = (FakeTensor((b, h, sq), "float32") for _ in range(3))
    heads = hk if expanded else h
    dk, dv = FakeTensor((b, heads, sk, d)), FakeTensor((b, heads, sk, d))
    extra = {}
    if atomic:
        extra["dqa"] = FakeTensor((b, h, sq, d), "float32")
    if expanded:
        extra["dkh"], extra["dvh"] = FakeTensor((b, h, sk, d)), FakeTensor((b, h, sk, d))
    values = backward_op.launch_values(q, k, v, out, grad_out, lse, l2, delta, dq, dk, dv, 0.1,
                                       **extra)
    params = result[names[0]].metadata["params"]
    for n in names:  # (each stage records the alignment its own copies need)
        assert [p["name"] for p in result[n].metadata["params"]] == [p["name"] for p in params]
    args = backward_op.launch_args(params, values)
    by_name = dict(zip((p["name"] for p in params), args))
    assert by_name["dK"] is dk and by_name["HK"] == hk and by_name["scale"] == 0.1
    assert by_name["k_head"] == sk * d and by_name["rows_batch"] == h * sq
    assert ("DQA" in by_name) == atomic and ("dKH" in by_name) == expanded
    assert "wgmma.mma_async" in result[names[1]].ptx
    if expanded:
        summed = result[names[-1]]
        assert "wgmma" not in summed.ptx
        assert summed.metadata["grid"] == ["ceildiv(SK, 64)", "HK", "B"]
    with pytest.raises(KeyError, match="dKH"):
        backward_op.launch_args([{"name": "dKH"}], {})


@pytest.mark.parametrize("chip", ["sm_90a", "sm_80"])
def test_backward_op_builds_the_text_kernels(library, tmp_path, chip):
    """tile.attention_backward without expanded views (one dK/dV per query
    head) expands into the block programs tilec.training launches as text:
    the dQ and dK/dV kernels' PTX has the same memory, barrier and
    tensor-core instructions and exponentials, in the same numbers, and
    the same TMA geometry (the scalar set-up may differ by an instruction:
    the op derives the log2-scaled softmax scale in the kernel).
    (On the H200 the op's kernels measured 0.96-1.01x the text ones,
    bench/results/2026-12-05_attention_backward_op_h200.json.)"""
    from collections import Counter

    from tilec import backward_op

    heavy = ("wgmma", "mma", "ldmatrix", "cp.", "mbarrier", "bar", "ex2", "fma", "st.",
             "ld.global", "ld.shared", "setmaxnreg", "red.", "atom.", "shfl")

    def instructions(ptx):
        # (Inline assembly, such as wgmma's, starts at the line's start.)
        found = re.findall(r"^\s*(?:@!?%p\d+\s+)?([a-z][\w.:]*)", ptx, flags=re.M)
        return Counter(i for i in found if i.startswith(heavy))

    def maps(meta):
        return [(m["box"], m["swizzle"], m["elem_bytes"], len(m["sizes"]))
                for m in meta.get("tensor_maps") or []]

    tiles = backward_kernels.tiles_for(chip, 128)
    _, text_source = backward_kernels.source("bf16", 128, True, tiles=tiles)
    text = tilec.compile(text_source, chip=chip, emit="ptx", cache_dir=tmp_path)
    _, op_source = backward_op.source("bf16", 128, True)
    op = tilec.compile(op_source, chip=chip, emit="ptx", cache_dir=tmp_path)
    for stage in ("dq", "dkdv"):
        (mine,) = [n for n in op.names if n.endswith("_" + stage)]
        (theirs,) = [n for n in text.names if n.endswith("_" + stage)]
        ours = instructions(op[mine].ptx)
        assert ours == instructions(text[theirs].ptx), stage
        assert any(i.startswith("mma" if chip == "sm_80" else "wgmma.mma_async") for i in ours)
        assert maps(op[mine].metadata) == maps(text[theirs].metadata)


def test_backward_kernels_refuse_what_they_lack():
    with pytest.raises(ValueError, match="head dims 64/128, not bf16 at 256"):
        backward_kernels.source("bf16", 256)
    with pytest.raises(ValueError, match="not f32 at 64"):
        backward_kernels.dq_source("f32", 64)


def test_attention_scale_is_a_kernel_constant():
    assert op_attention._attention_scale("op", 0.125) == "3e000000"
    assert attention_name("bf16", 128, True, scale="3e000000") == \
        "attention_bf16_d128_causal_scale3e000000"
    name, source = attention_source("bf16", 128, scale="3e000000")
    assert name == "attention_bf16_d128_scale3e000000"
    assert " scale(0x3E000000) " in source
    for bad in (0.0, float("inf"), float("nan")):
        with pytest.raises(tilec.ArgumentError, match="scale must be finite and nonzero"):
            op_attention._attention_scale("tilec.attention", bad)


class _Tensor:
    def __init__(self, requires_grad):
        self.requires_grad = requires_grad


def _fake_torch(compiling=False, grad=True):
    torch = types.ModuleType("torch")
    torch.compiler = types.SimpleNamespace(is_compiling=lambda: compiling)
    torch.is_grad_enabled = lambda: grad
    torch.Tensor = _Tensor
    return torch


def test_torch_operator_route(monkeypatch):
    """The direct path unless torch.compile traces or a gradient is needed
    (and never without torch)."""
    monkeypatch.delitem(sys.modules, "torch", raising=False)
    assert not api._torch_op_route(_Tensor(True))
    monkeypatch.setitem(sys.modules, "torch", _fake_torch())
    assert not api._torch_op_route(_Tensor(False), None)
    assert api._torch_op_route(_Tensor(False), _Tensor(True))
    assert not api._torch_op_route(FakeTensor((2, 2)))  # not a torch tensor
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(grad=False))
    assert not api._torch_op_route(_Tensor(True))
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(compiling=True, grad=False))
    assert api._torch_op_route(_Tensor(False))
    # A stand-in torch without these attributes (tests' fakes): direct.
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))
    assert not api._torch_op_route(_Tensor(True))


class _Named:
    """A tensor stand-in: a name, a shape and contiguous strides."""

    def __init__(self, name, shape):
        from fake_cuda import contiguous_strides
        self.name, self.shape, self._strides = name, shape, contiguous_strides(shape)

    def stride(self, dim=None):
        return self._strides if dim is None else self._strides[dim]


def test_launch_args_follow_the_kernels_parameters(library, tmp_path):
    """backward_kernels.launch_args gives each kernel its tensors, sizes,
    strides and scales in the order of the parameters it was compiled
    with (GQA 4:1, seq_q != seq_k)."""
    b, h, hk, sq, sk, d = 2, 8, 2, 100, 300, 64
    t = {n: _Named(n, s) for n, s in [
        ("q", (b, h, sq, d)), ("k", (b, hk, sk, d)), ("v", (b, hk, sk, d)),
        ("out", (b, h, sq, d)), ("grad_out", (b, h, sq, d)), ("lse", (b, h, sq)),
        ("l2", (b, h, sq)), ("delta", (b, h, sq)), ("dq", (b, h, sq, d)),
        ("dk", (b, h, sk, d)), ("dv", (b, h, sk, d))]}
    args = backward_kernels.launch_args(*t.values(), scale=0.125)
    expected = {"O": "out", "dO": "grad_out", "LSE": "lse", "L2": "l2", "DELTA": "delta",
                "Q": "q", "K": "k", "V": "v", "dQ": "dq", "dK": "dk", "dV": "dv",
                "B": b, "H": h, "HK": hk, "SQ": sq, "SK": sk, "lse_batch": h * sq,
                "o_batch": h * sq * d, "o_head": sq * d, "do_batch": h * sq * d,
                "do_head": sq * d, "q_batch": h * sq * d, "q_head": sq * d,
                "kv_batch": hk * sk * d, "kv_head": sk * d, "dq_batch": h * sq * d,
                "dq_head": sq * d, "dkv_batch": h * sk * d, "dkv_head": sk * d,
                "qk_scale": pytest.approx(0.125 * 1.4426950408889634), "sm_scale": 0.125}
    _, source = backward_kernels.source("bf16", d, causal=True)
    result = tilec.compile(source, chip="sm_90a", emit="ptx", cache_dir=tmp_path)
    atomic = backward_kernels.atomic_sources("bf16", d, causal=True)
    atomic_result = tilec.compile("\n".join(s for _, s in atomic), chip="sm_90a", emit="ptx",
                                  cache_dir=tmp_path)
    dqa = _Named("dqa", (b, h, sq, d))
    expected.update(DQA="dqa", dqa_batch=h * sq * d, dqa_head=sq * d)
    atomic_args = backward_kernels.atomic_launch_args(
        *list(t.values())[:8], dqa, *list(t.values())[8:], scale=0.125)
    for compiled, arg_lists in ((result, args), (atomic_result, atomic_args)):
        for name, values in zip(compiled.names, arg_lists):
            params = [p["name"] for p in compiled[name].metadata["params"]]
            assert len(params) == len(values), name
            for param, value in zip(params, values):
                got = value.name if isinstance(value, _Named) else value
                assert got == expected[param], (name, param)


@pytest.fixture
def fakes():
    import fake_cuda
    torch, driver = fake_cuda.install()
    yield torch, driver
    fake_cuda.uninstall()


@pytest.mark.parametrize("deterministic,kv_heads,d,stages", [
    (True, 8, 64, ["pre", "dq", "dkdv"]),
    (True, 2, 64, ["pre", "dq", "dkdv", "dkdv_sum"]),
    (False, 2, 64, ["pre_zero_dq", "dkdv_dq", "dq_scale"]),
    # Head dim 256 has no atomic mode: the deterministic stages run.
    (False, 8, 256, ["pre", "dq", "dkdv"])])
def test_attention_backward_launches_the_op_stages(library, tmp_path, monkeypatch, fakes,
                                                   deterministic, kv_heads, d, stages):
    """tilec.attention_backward launches tile.attention_backward's stage
    kernels in order, each given its parameters by name (the fake driver
    reads them back): deterministic grouped-query K/V through the op's
    expanded form (dK / dV of K's heads from its dkdv_sum stage, one per
    query head in scratch), the atomic mode with an f32 dQ accumulator and
    each group's dK / dV summed afterwards; a gradient on lse shifts Delta
    after the first stage."""
    import fake_cuda
    from tilec import backward_op, runtime, training
    torch, driver = fakes
    compiled, resolved = {}, []

    def resolve(op, name, make_source, chip, cubin_arch, directory, device_index, kernel):
        resolved.append(kernel)
        if name not in compiled:
            compiled[name] = tilec.compile(make_source(), chip=chip, emit="ptx",
                                           cache_dir=tmp_path)
        meta = compiled[name][kernel].metadata
        return runtime.Kernel.from_artifacts(meta, b"\x7fELF fake cubin"), meta

    monkeypatch.setattr(training, "_resolve", resolve)
    b, h, sq, sk = 2, 8, 300, 500
    atomic = not deterministic and d != 256
    q, out, grad_out = (fake_cuda.tensor((b, h, sq, d)) for _ in range(3))
    k, v = fake_cuda.tensor((b, kv_heads, sk, d)), fake_cuda.tensor((b, kv_heads, sk, d))
    lse, grad_lse = (fake_cuda.tensor((b, h, sq), "float32") for _ in range(2))
    # (The same parameters in every stage of a form.)
    _, source = backward_op.source("bf16", d, True, atomic, kv_heads != h and not atomic)
    params = tilec.compile(source, chip="sm_90a", emit="ptx",
                           cache_dir=tmp_path)[0].metadata["params"]
    names = [p["name"] for p in params]
    driver.param_formats = ["Q" if p["kind"] == "pointer" else {"i32": "i", "f32": "f"}[p["dtype"]]
                            for p in params]
    dq, dk, dv = tilec.attention_backward(q, k, v, out, lse, grad_out, causal=True,
                                          scale=0.25, grad_lse=grad_lse,
                                          deterministic=deterministic, chip="sm_90a")
    expected = backward_op.stage_names("bf16", d, True, atomic, kv_heads != h and not atomic)
    assert [n[-len(s):] for n, s in zip(expected, stages)] == stages
    assert resolved == expected and len(driver.launches) == len(stages)
    assert len({launch["function"] for launch in driver.launches}) == len(stages)
    first = {n: driver.launches[0]["params"][i] for i, n in enumerate(names)}
    for launch in driver.launches:  # every stage: the same values
        assert dict(zip(names, launch["params"])) == first
    assert first["Q"] == q.data_ptr() and first["dQ"] == dq.data_ptr()
    assert first["scale"] == 0.25
    assert (first["H"], first["HK"], first["SK"]) == (h, kv_heads, sk)
    assert ("sub", first["DELTA"], 1) in fake_cuda.state.tensor_ops
    assert dk.shape == dv.shape == (b, kv_heads, sk, d)
    if atomic:
        assert first["DQA"] not in (first["dQ"], first["Q"])
        assert fake_cuda.state.tensor_ops.count(("sum", (b, kv_heads, h // kv_heads, sk, d),
                                                 2)) == 2
    elif kv_heads != h:
        assert (first["dK"], first["dV"]) == (dk.data_ptr(), dv.data_ptr())
        assert first["dkh_head"] == sk * d and first["dk_head"] == sk * d
        assert first["dkh_batch"] == h * sk * d and first["dk_batch"] == kv_heads * sk * d
        assert not any(op[0] == "sum" for op in fake_cuda.state.tensor_ops)
    else:
        assert (first["dK"], first["dV"]) == (dk.data_ptr(), dv.data_ptr())
        assert "dKH" not in first


def test_backward_op_head_dim_256(library, tmp_path):
    """The op takes head dim 256 in the deterministic mode (wgmma on sm_90a,
    mma.sync elsewhere); its atomic mode and the text programs refuse it."""
    from tilec import backward_op
    for chip, dot in (("sm_90a", "wgmma.mma_async.sync.aligned.m64n128k16"),
                      ("sm_80", "mma.sync.aligned.m16n8k16")):
        name, source = backward_op.source("bf16", 256, False)
        result = tilec.compile(source, chip=chip, emit="ptx", cache_dir=tmp_path)
        assert [n[len(name) + 1:] for n in result.names] == ["pre", "dq", "dkdv"]
        assert dot in result[name + "_dkdv"].ptx and dot in result[name + "_dq"].ptx
        assert result[name + "_pre"].metadata["grid"][0] == "ceildiv(SQ, 64)"
    with pytest.raises(ValueError, match="the atomic mode of tile.attention_backward takes "
                                         "bf16/f16 at head dims 64/128, not bf16 at 256"):
        backward_op.source("bf16", 256, atomic=True)
    with pytest.raises(ValueError, match="head dims 64/128/256, not bf16 at 96"):
        backward_op.source("bf16", 96)
    with pytest.raises(ValueError, match="not bf16 at 256"):
        backward_kernels.source("bf16", 256)
