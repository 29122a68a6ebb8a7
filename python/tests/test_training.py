"""Training support without a GPU: the attention backward block programs
compile to the expected instructions on both paths, tilec.attention's
``scale=`` picks its kernel, and the routing to the torch operators
(tilec.torch_ops) happens only when a gradient or torch.compile needs it.
The numerics run on the GPU (scripts/attention_backward_check.py,
scripts/training_check.py)."""

import sys
import types

import pytest

import tilec
from tilec import backward_kernels, ops
from tilec.kernels import attention_name, attention_source
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
    """f16 at head dim 128, not causal; the shared-load variant."""
    for shared in (False, True):
        names, source = backward_kernels.source("f16", 128, False, shared_loads=shared)
        result = tilec.compile(source, chip="sm_90a", emit="ptx", cache_dir=tmp_path)
        assert result.names == list(names)
        assert ("wgmma" in result[names[2]].ptx) != shared


def test_backward_kernels_refuse_what_they_lack():
    with pytest.raises(ValueError, match="head dims 64/128, not bf16 at 256"):
        backward_kernels.source("bf16", 256)
    with pytest.raises(ValueError, match="not f32 at 64"):
        backward_kernels.dq_source("f32", 64)


def test_attention_scale_is_a_kernel_constant():
    assert ops._attention_scale("op", 0.125) == "3e000000"
    assert attention_name("bf16", 128, True, scale="3e000000") == \
        "attention_bf16_d128_causal_scale3e000000"
    name, source = attention_source("bf16", 128, scale="3e000000")
    assert name == "attention_bf16_d128_scale3e000000"
    assert " scale(0x3E000000) " in source
    for bad in (0.0, float("inf"), float("nan")):
        with pytest.raises(tilec.ArgumentError, match="scale must be finite and nonzero"):
            ops._attention_scale("tilec.attention", bad)


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
    assert not ops._torch_op_route(_Tensor(True))
    monkeypatch.setitem(sys.modules, "torch", _fake_torch())
    assert not ops._torch_op_route(_Tensor(False), None)
    assert ops._torch_op_route(_Tensor(False), _Tensor(True))
    assert not ops._torch_op_route(FakeTensor((2, 2)))  # not a torch tensor
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(grad=False))
    assert not ops._torch_op_route(_Tensor(True))
    monkeypatch.setitem(sys.modules, "torch", _fake_torch(compiling=True, grad=False))
    assert ops._torch_op_route(_Tensor(False))
    # A stand-in torch without these attributes (tests' fakes): direct.
    monkeypatch.setitem(sys.modules, "torch", types.ModuleType("torch"))
    assert not ops._torch_op_route(_Tensor(True))
