"""The GPU checks' harness (scripts/harness, issue 52) on this machine: the
JSON records, the alternating-round scheduler (with a fake clock instead of
CUDA events), the bundle's paths; and, where torch is installed (the GPU
machine), the references and poisoned outputs on CPU tensors."""

import json
import os

import pytest

from scripts.harness import artifacts, records, timing


# --- records ------------------------------------------------------------------

def test_record_head_and_stamp(tmp_path, monkeypatch):
    monkeypatch.delenv("TILEC_COMMIT", raising=False)
    art = tmp_path / "bundle" / "gemm"
    art.mkdir(parents=True)
    (tmp_path / "bundle" / "commit.txt").write_text("abc1234+dirty\n")
    r = records.new_record("gemm_check", artifacts=str(art), shapes=[[1, 2, 3]])
    assert r["check"] == "gemm_check" and r["shapes"] == [[1, 2, 3]]
    assert r["commit"] == "abc1234+dirty"  # the bundle's stamp, one folder up
    assert len(r["date"]) == 10 and r["date"][4] == "-"
    assert list(r)[:5] == ["date", "gpu", "commit", "torch", "check"]
    records.stamp_commit(str(art))
    assert records.read_commit(str(art)) == records.checkout_commit()


def test_record_commit_override(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_COMMIT", "feed123")
    assert records.new_record("x", artifacts=str(tmp_path))["commit"] == "feed123"


def test_write_result_status(tmp_path):
    logged = []
    result = records.new_record("x", correctness=[dict(ok=True), dict(ok=False, err=1.0)])
    assert records.write_result(result, str(tmp_path), "x.json", logged.append) == 1
    assert logged == ["correctness: 1/2 ok"]
    assert json.load(open(tmp_path / "x.json"))["correctness"][1]["err"] == 1.0
    result["correctness"] = [dict(ok=True)]
    assert records.write_result(result, str(tmp_path), "x.json", logged.append) == 0


def test_open_log_appends(tmp_path, capsys):
    log = records.open_log(str(tmp_path / "out"), "a.log")
    log("one")
    records.open_log(str(tmp_path / "out"), "a.log", "a")("two")
    assert (tmp_path / "out" / "a.log").read_text() == "one\ntwo\n"
    assert capsys.readouterr().out == "one\ntwo\n"


def test_numbers():
    assert records.ratio(3.0, 2.0) == 1.5
    assert records.ratio(None, 2.0) is None and records.ratio(1.0, 0) is None
    assert records.geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert records.geomean([None, 0, -1]) is None
    assert records.tflops(2e12, 1000.0) == pytest.approx(2.0)
    row = records.rates({"sm_90a": 500.0, "flex": 1000.0}, 2e12, "flex", ["sm_90a"], "graph_")
    assert row == {"graph_tflops": {"sm_90a": pytest.approx(4.0), "flex": pytest.approx(2.0)},
                   "graph_vs_flex": {"sm_90a": 2.0}}


# --- timing -------------------------------------------------------------------

class FakeClock:
    """ms per call: each function's own constant; records the order."""

    def __init__(self, ms):
        self.ms, self.order, self.calls = ms, [], {k: 0 for k in ms}

    def measure(self, f, calls):
        name = f()
        self.order.append(name)
        self.calls[name] += calls - 1  # f() above was one of them
        return self.ms[name]


def test_time_rounds_alternates_and_takes_medians():
    clock = FakeClock({"a": 1.0, "b": 0.5, "c": 0.1})
    fns = {k: (lambda k=k: k) for k in clock.ms}
    ms = timing.time_rounds(fns, rounds=2, sample_ms=3.0, calls=20, clock=clock, warmup=0)
    assert ms == {"a": 1.0, "b": 0.5, "c": 0.1}
    timed = clock.order[3:]  # after one probe call each
    # a: 3 calls a sample, b: 6, c: 20 -> 2 * (20 // 3) = 12 rounds.
    assert len(timed) == 12 * 3
    firsts = [timed[3 * r] for r in range(12)]
    assert firsts[:4] == ["a", "b", "c", "a"]  # every round starts at the next one
    for r in range(12):
        assert sorted(timed[3 * r:3 * r + 3]) == ["a", "b", "c"]


def test_time_rounds_samples_out():
    clock = FakeClock({"a": 1.0, "b": 0.5})
    samples = {}
    timing.time_rounds({k: (lambda k=k: k) for k in clock.ms}, rounds=2, calls=4, clock=clock,
                       warmup=0, samples_out=samples)
    assert set(samples) == {"a", "b"} and samples["a"] and set(samples["b"]) == {0.5}


def test_rotation():
    assert timing.rotation(["a", "b", "c"], 4) == ["b", "c", "a"]


# --- the bundle ---------------------------------------------------------------

def test_bundle_paths(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_BUNDLE", str(tmp_path))
    assert artifacts.bundle_part("gemm") == os.path.join(str(tmp_path), "gemm")
    (tmp_path / "gemm" / "sm_90a").mkdir(parents=True)
    for name in ("gemm_b.json", "gemm_a.json", "gemm_a.cubin", "other.json"):
        (tmp_path / "gemm" / "sm_90a" / name).write_text("{}")
    assert artifacts.kernel_names(str(tmp_path / "gemm"), "sm_90a", "gemm") == ["gemm_a", "gemm_b"]
    assert artifacts.load(str(tmp_path / "gemm"), "sm_90a", "missing") is None
    assert artifacts.kernel_path("A", None, "k") == os.path.join("A", "k.json")


def test_check_main(tmp_path, monkeypatch):
    """A check's command line: --build DIR builds, else a run from the
    part's artifacts, on the chips they hold (with their rules library)."""
    from scripts.harness import cli
    monkeypatch.setenv("TILEC_BUNDLE", str(tmp_path))
    # Set then removed: the test's own setting is undone afterwards.
    monkeypatch.setenv("TILEC_RULES_LIBRARY", "")
    monkeypatch.delenv("TILEC_RULES_LIBRARY")
    (tmp_path / "decode" / "sm_90a").mkdir(parents=True)
    seen = []
    monkeypatch.setattr("sys.argv", ["check", "--build", "DIR"])
    cli.check_main("decode", seen.append, None)
    monkeypatch.setattr("sys.argv", ["check", "--quick", "--rounds", "3"])
    cli.check_main("decode", None, seen.append)
    assert seen[0] == "DIR" and (seen[1].quick, seen[1].rounds) == (True, 3)
    assert seen[1].artifacts == str(tmp_path / "decode")
    assert cli.artifact_chips(seen[1], {"sm_90a": 0, "sm_80": 0}) == ["sm_90a"]
    assert os.environ["TILEC_RULES_LIBRARY"] == str(tmp_path / "decode" / "libtilec-rules.so")


def test_build_script_names_every_part():
    text = open(os.path.join(records.ROOT, "scripts", "build", "build_gpu_artifacts.sh")).read()
    for part in artifacts.PARTS:
        assert f"\n    {part})" in text, part


# --- references and poison (torch on CPU tensors) -------------------------------

def test_references_on_cpu():
    torch = pytest.importorskip("torch")
    from scripts.harness import references as ref
    from scripts.harness import tensors

    a, b = torch.randn(5, 7), torch.randn(7, 3)
    bias, c = torch.randn(3), torch.randn(5, 3)
    want = torch.relu(2.0 * (a.double() @ b.double()) - 0.5 * c.double() + bias.double())
    got = ref.gemm(a, b, alpha=2.0, beta=-0.5, c=c, bias=bias, act="relu", dtype=torch.float64)
    assert ref.rel_err(got, want) < 1e-12
    assert ref.rel_err(torch.full((2,), float("nan")), torch.ones(2)) == float("inf")
    assert ref.rel_err(torch.zeros(0), torch.zeros(0)) == 0.0

    out, end = ref.grouped_gemm(torch.randn(6, 4), torch.randn(2, 4, 3), [2, 3])
    assert end == 5 and torch.isnan(out[5]).all() and not torch.isnan(out[:5]).any()

    q, k, v = torch.randn(1, 4, 3, 8), torch.randn(1, 2, 5, 8), torch.randn(1, 2, 5, 8)
    o, lse = ref.attention(q, k, v, causal=True)
    sd = ref.sdpa(q, k, v, causal=True)
    assert ref.rel_err(sd, o) < 1e-5 and o.shape == q.shape and lse.shape == (1, 4, 3)
    # Sq > Sk: the first query rows see no key (bottom-right mask).
    o, lse = ref.attention(torch.randn(1, 1, 4, 8), torch.randn(1, 1, 2, 8),
                           torch.randn(1, 1, 2, 8), causal=True)
    assert (o[0, 0, :2] == 0).all() and torch.isinf(lse[0, 0, :2]).all()
    o, lse, (dq, dk, dv) = ref.attention_backward(q, k, v, torch.randn_like(q), causal=True)
    assert dq.shape == q.shape and dk.shape == k.shape and dv.shape == v.shape

    p = tensors.poisoned((3, 5), torch.float32, device="cpu", pad_to=8)
    assert p.shape == (3, 5) and p.stride(0) == 8 and tensors.unwritten(p) == 15
    p[:] = 1.0
    assert tensors.unwritten(p) == 0 and tensors.padding_intact(p, p.base)
    x = tensors.randn((1000,), torch.float32, seed=1, device="cpu")
    assert (x != 0).all()
