"""The on-disk compilation cache: hits, misses, invalidation, atomicity."""

import json
import os
import shutil

import pytest

import tilec
from tilec.cache import FileCache, default_cache_dir, make_key
from conftest import SCALE_SOURCE


def entries(root):
    """Complete cache entries under ``root``."""
    return sorted(p for p in root.glob("??/*") if (p / "manifest.json").is_file())


def test_miss_then_hit(count_compiles, tmp_path):
    first = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    second = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    assert not first.from_cache and second.from_cache
    assert count_compiles == ["sm_80"]
    assert second.ptx == first.ptx and second.cubin == first.cubin
    assert second.metadata == first.metadata
    assert second.key == first.key and second.cache_path == first.cache_path
    assert entries(tmp_path) == [tmp_path / first.key[:2] / first.key]


@pytest.mark.parametrize("change", [
    dict(chip="sm_89"), dict(emit="ptx"), dict(opt_level=2), dict(cubin_arch="sm_90"),
    dict(stages=True)])
def test_flags_are_part_of_the_key(count_compiles, tmp_path, change):
    base = dict(chip="sm_80", emit="cubin")
    tilec.compile(SCALE_SOURCE, cache_dir=tmp_path, **base)
    changed = tilec.compile(SCALE_SOURCE, cache_dir=tmp_path, **dict(base, **change))
    assert not changed.from_cache
    assert len(count_compiles) == 2
    assert len(entries(tmp_path)) == 2


def test_source_change_misses(count_compiles, tmp_path):
    tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path)
    again = tilec.compile(SCALE_SOURCE + "\n// a comment\n", chip="sm_80", emit="ptx",
                          cache_dir=tmp_path)
    assert not again.from_cache and len(count_compiles) == 2


def test_version_change_invalidates(library, count_compiles, tmp_path, monkeypatch):
    tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path)
    monkeypatch.setattr(library, "version", "99.0.0")
    after = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path)
    assert not after.from_cache and len(count_compiles) == 2


def test_compiler_rebuild_invalidates(library, count_compiles, tmp_path, monkeypatch):
    tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path)
    monkeypatch.setattr(library, "_fingerprint", "0" * 64)
    after = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path)
    assert not after.from_cache and len(count_compiles) == 2


def test_stages_come_back_from_the_cache(count_compiles, tmp_path):
    first = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", stages=True, cache_dir=tmp_path)
    second = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", stages=True,
                           cache_dir=tmp_path)
    assert second.from_cache and second.stages == first.stages
    assert second["scale"].mlir == first["scale"].mlir
    assert len(count_compiles) == 1


def test_default_cache_dir_from_environment(count_compiles, tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "env-cache"))
    assert default_cache_dir() == str(tmp_path / "env-cache")
    result = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx")
    assert result.cache_path.startswith(str(tmp_path / "env-cache"))
    assert tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx").from_cache


def test_default_cache_dir_without_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("TILEC_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_cache_dir() == os.path.join(str(tmp_path), ".cache", "tilec")


def test_cache_can_be_bypassed(count_compiles, tmp_path):
    for _ in range(2):
        result = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache=False,
                               cache_dir=tmp_path)
        assert not result.from_cache and result.cache_path is None
    assert len(count_compiles) == 2 and entries(tmp_path) == []


def test_damaged_entry_is_a_miss_and_is_repaired(count_compiles, tmp_path):
    first = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    os.remove(os.path.join(first.cache_path, "scale.cubin"))
    second = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    assert not second.from_cache and second.cubin == first.cubin
    third = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    assert third.from_cache
    assert len(count_compiles) == 2


def test_corrupt_manifest_is_a_miss(count_compiles, tmp_path):
    first = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path)
    with open(os.path.join(first.cache_path, "manifest.json"), "w") as f:
        f.write("{ not json")
    assert not tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx",
                             cache_dir=tmp_path).from_cache


def test_writes_leave_no_temporary_files(count_compiles, tmp_path):
    tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    leftovers = [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp") or
                 p.name.startswith(".")]
    assert leftovers == []


def test_losing_writer_keeps_the_winner(tmp_path):
    """Two processes storing the same key: the second rename fails and the
    complete entry of the first is returned."""
    store = FileCache(tmp_path)
    key = make_key("src", "sm_80", {}, "1", "x")
    manifest = {"kernels": [{"name": "k", "files": {"json": "k.json"}}], "stages": []}
    first = store.put(key, manifest, {"k.json": '{"winner": 1}'})
    second = store.put(key, manifest, {"k.json": '{"winner": 2}'})
    assert second.path == first.path
    assert json.loads(second.read("k.json")) == {"winner": 1}
    assert [p.name for p in tmp_path.glob(f"{key[:2]}/*")] == [key]


def test_key_depends_on_every_input():
    base = ("src", "sm_80", {"emit": "ptx"}, "0.1.0", "abc")
    keys = {make_key(*base),
            make_key("src2", *base[1:]),
            make_key(base[0], "sm_90a", *base[2:]),
            make_key(*base[:2], {"emit": "cubin"}, *base[3:]),
            make_key(*base[:3], "0.2.0", base[4]),
            make_key(*base[:4], "abd")}
    assert len(keys) == 6
    assert make_key(*base) == make_key(*base)


def test_errors_are_not_cached(count_compiles, tmp_path):
    for _ in range(2):
        with pytest.raises(tilec.CompileError):
            tilec.compile("tile.kernel @broken(", chip="sm_80", cache_dir=tmp_path)
    assert len(count_compiles) == 2 and entries(tmp_path) == []


def entry_files(result):
    """Files of a result's cache entry, relative to it."""
    root = result.cache_path
    return sorted(os.path.relpath(os.path.join(d, f), root)
                  for d, _, files in os.walk(root) for f in files)


@pytest.mark.parametrize("emit, kept", [
    ("cubin", ["scale.cubin"]), ("ptx", ["scale.ptx"]), ("llvm", ["scale.ll"]),
    ("mlir", ["scale.mlir"]), ("header", ["scale.h"])])
def test_entries_keep_only_the_emitted_output(count_compiles, tmp_path, emit, kept):
    first = tilec.compile(SCALE_SOURCE, chip="sm_80", emit=emit, cache_dir=tmp_path)
    assert entry_files(first) == sorted(["manifest.json", "scale.json"] + kept)
    second = tilec.compile(SCALE_SOURCE, chip="sm_80", emit=emit, cache_dir=tmp_path)
    assert second.from_cache and len(count_compiles) == 1
    # A fresh result and a hit hold the same outputs.
    for result in (first, second):
        assert result.kept == {emit}
        for attr in ("mlir", "llvm", "ptx", "cubin", "header"):
            assert (getattr(result["scale"], attr) is not None) == (attr == emit), attr
    assert getattr(second["scale"], emit) == getattr(first["scale"], emit)


def test_an_output_not_kept_is_a_miss(count_compiles, tmp_path):
    lean = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    assert lean.ptx is None and lean.cubin[:4] == b"\x7fELF"
    # The PTX was not kept: the entry cannot answer, so the compiler runs...
    with_ptx = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path, keep=("ptx",))
    assert not with_ptx.from_cache and len(count_compiles) == 2
    assert ".entry scale" in with_ptx.ptx and with_ptx.cubin == lean.cubin
    assert with_ptx["scale"].llvm is None
    # ...and the entry now holds both, for either request.
    assert entry_files(with_ptx) == ["manifest.json", "scale.cubin", "scale.json", "scale.ptx"]
    again = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path, keep=("ptx",))
    plain = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    assert again.from_cache and plain.from_cache and len(count_compiles) == 2
    assert again.ptx == with_ptx.ptx and plain.ptx is None and plain.cubin == lean.cubin
    assert entries(tmp_path) == [tmp_path / lean.key[:2] / lean.key]
    # Everything: the LLVM IR too.
    everything = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path, keep="all")
    assert not everything.from_cache and "define" in everything["scale"].llvm
    assert tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path, keep="all").from_cache
    assert len(count_compiles) == 3


def test_stages_keep_every_output(count_compiles, tmp_path):
    result = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", stages=True,
                           cache_dir=tmp_path)
    assert result.kept == {"mlir", "llvm", "ptx"}
    assert "scale.ll" in entry_files(result) and "scale.mlir" in entry_files(result)
    assert any(f.startswith("stages") for f in entry_files(result))


@pytest.mark.parametrize("emit, keep, message", [
    ("ptx", ("cubin",), "emit='ptx' does not produce cubin"),
    ("cubin", ("mlir",), "does not produce mlir"),
    ("cubin", ("header",), "does not produce header"),
    ("mlir", "ptx", "emit='mlir' does not produce ptx"),
    ("cubin", ("sass",), r"unknown outputs \['sass'\]")])
def test_keep_is_checked_before_compiling(count_compiles, tmp_path, emit, keep, message):
    with pytest.raises(ValueError, match=message):
        tilec.compile(SCALE_SOURCE, chip="sm_80", emit=emit, keep=keep, cache_dir=tmp_path)
    assert count_compiles == []


def test_entry_removed_while_read_is_a_miss(count_compiles, tmp_path, monkeypatch):
    """Another process evicts the entry between the manifest and the files."""
    from tilec import cache
    first = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    real = cache.CacheEntry.read

    def vanishing(self, relative, binary=False):
        shutil.rmtree(self.path, ignore_errors=True)
        return real(self, relative, binary)

    monkeypatch.setattr(cache.CacheEntry, "read", vanishing)
    second = tilec.compile(SCALE_SOURCE, chip="sm_80", cache_dir=tmp_path)
    assert not second.from_cache and second.cubin == first.cubin
    assert len(count_compiles) == 2
