"""tilec.attention_varlen: the varlen kernels it writes (they compile,
ptxas included), the kernel and launch values a call passes (fake driver),
and the refusals."""

import pytest

import tilec
from test_ops import FakeTensor, launches, write_artifact  # noqa: F401 - the fixture
from tilec.serving_kernels import attention_varlen_name, attention_varlen_source


@pytest.mark.parametrize("chip", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("causal,used", [(True, False), (False, True)])
def test_varlen_sources_compile(library, tmp_path, chip, causal, used):
    name, source = attention_varlen_source("bf16", 128, causal, seqused_k=used)
    assert name == attention_varlen_name("bf16", 128, causal, seqused_k=used)
    result = tilec.compile(source, chip=chip, cache_dir=tmp_path, keep="all")
    kernel = result[name]
    assert ("wgmma.mma_async" in kernel.ptx) == (chip == "sm_90a")
    assert kernel.cubin[:4] == b"\x7fELF"
    # One program per (query block of the longest sequence, head, sequence);
    # on sm_90a without the mask, persistent programs walk those tiles.
    grid = kernel.metadata["grid"]
    if chip == "sm_90a" and not causal:
        assert kernel.metadata["persistent"]
        assert grid == ["ceildiv(MAXQ, 128) * H * (NCU - 1)"]
    else:
        assert grid[1:] == ["H", "NCU - 1"] and grid[0].startswith("ceildiv(MAXQ, ")


def _write_varlen_artifacts(directory, chip, causal, used=False):
    """The varlen kernel compiled for real (its metadata) and stored as a
    prebuilt artifact."""
    name, source = attention_varlen_source("bf16", 128, causal, seqused_k=used)
    result = tilec.compile(source, chip=chip)
    write_artifact(directory, name, source, result[name].metadata, chip)
    return name, [p["name"] for p in result[name].metadata["params"]]


def test_varlen_launch(library, launches, tmp_path):  # noqa: F811
    """q [total_q, H, D] and k/v [total_k, HK, D] (here every other head_dim
    chunk of a wider buffer) passed as packed views with their token and
    head strides; the sequences and max_seqlen_q size the grid."""
    name, params = _write_varlen_artifacts(str(tmp_path), "sm_90a", True)
    q = FakeTensor((1000, 32, 128))
    k = FakeTensor((3000, 8, 128), strides=(8 * 256, 256, 1))
    cu = FakeTensor((5,), "int32")
    tilec.attention_varlen(q, k, k, cu, cu, 700, 2000, causal=True, chip="sm_90a",
                           artifacts=str(tmp_path))
    assert [launcher.name for launcher, _ in launches] == [name]
    values = dict(zip(params, launches[0][1]))
    assert (values["NCU"], values["MAXQ"], values["H"], values["HK"]) == (5, 700, 32, 8)
    assert (values["TQ"], values["TK"]) == (1000, 3000)
    assert (values["q_tok"], values["q_head"]) == (32 * 128, 128)
    assert (values["k_tok"], values["k_head"], values["v_tok"]) == (8 * 256, 256, 8 * 256)
    assert (values["o_tok"], values["o_head"]) == (32 * 128, 128)


def test_varlen_seqused_launch(library, launches, tmp_path):  # noqa: F811
    name, params = _write_varlen_artifacts(str(tmp_path), "sm_90a", False, used=True)
    assert name.endswith("_used")
    q = FakeTensor((100, 16, 128))
    cu = FakeTensor((4,), "int32")
    tilec.attention_varlen(q, q, q, cu, cu, 64, seqused_k=FakeTensor((3,), "int32"),
                           chip="sm_90a", artifacts=str(tmp_path))
    values = dict(zip(params, launches[0][1]))
    assert (values["B"], values["NCU"]) == (3, 4)


def test_varlen_nothing_to_do(launches):  # noqa: F811
    """No sequence, or max_seqlen_q = 0: no launch."""
    q = FakeTensor((10, 4, 64))
    tilec.attention_varlen(q, q, q, FakeTensor((1,), "int32"), FakeTensor((1,), "int32"), 8)
    tilec.attention_varlen(q, q, q, FakeTensor((3,), "int32"), FakeTensor((3,), "int32"), 0)
    assert launches == []


def test_varlen_refusals(launches):  # noqa: F811
    q = FakeTensor((100, 32, 128))
    cu = FakeTensor((3,), "int32")
    with pytest.raises(tilec.ArgumentError, match=r"must be 3-D \[total_tokens"):
        tilec.attention_varlen(FakeTensor((1, 100, 32, 128)), q, q, cu, cu, 50)
    with pytest.raises(tilec.ArgumentError, match="incompatible shapes"):
        tilec.attention_varlen(q, FakeTensor((100, 6, 128)), FakeTensor((100, 6, 128)), cu,
                               cu, 50)
    with pytest.raises(tilec.ArgumentError, match="head_dim must be 64, 128 or 256"):
        x = FakeTensor((100, 4, 96))
        tilec.attention_varlen(x, x, x, cu, cu, 50)
    with pytest.raises(tilec.DTypeError, match="must be bf16 or f16"):
        x = FakeTensor((100, 4, 64), "float32")
        tilec.attention_varlen(x, x, x, cu, cu, 50)
    with pytest.raises(tilec.ArgumentError, match="contiguous along head_dim"):
        x = FakeTensor((100, 4, 64), strides=(256, 64 * 100, 2))
        tilec.attention_varlen(x, x, x, cu, cu, 50)
    with pytest.raises(tilec.ArgumentError, match=r"contiguous int32 tensor \[batch \+ 1\]"):
        tilec.attention_varlen(q, q, q, FakeTensor((3,), "int64"), cu, 50)
    with pytest.raises(tilec.ArgumentError, match="the same length"):
        tilec.attention_varlen(q, q, q, cu, FakeTensor((4,), "int32"), 50)
    with pytest.raises(tilec.ArgumentError, match=r"seqused_k must be an int32 tensor \[2\]"):
        tilec.attention_varlen(q, q, q, cu, cu, 50, seqused_k=FakeTensor((3,), "int32"))
    with pytest.raises(tilec.ArgumentError, match="max_seqlen_q must be an int"):
        tilec.attention_varlen(q, q, q, cu, cu, -1)
    with pytest.raises(tilec.ArgumentError, match="out must have q's shape"):
        tilec.attention_varlen(q, q, q, cu, cu, 50, out=FakeTensor((99, 32, 128)))
    assert launches == []
