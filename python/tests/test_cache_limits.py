"""The cache's size limit (least recently used entries go first, stale ones
before them), tilec.cache.clear / info and ``python -m tilec cache``."""

import json
import multiprocessing
import os
import subprocess
import sys
import time

import pytest

import tilec
from tilec import cache
from tilec.cache import FileCache, make_key
from conftest import SCALE_SOURCE

PYTHON_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def put(store, name, size, compiler="current", when=None):
    """Stores a synthetic entry of ``size`` cubin bytes; ``when`` sets its
    last use (seconds ago)."""
    key = make_key(name, "sm_80", {}, "1", compiler)
    manifest = {"kept": ["cubin"], "stages": [],
                "kernels": [{"name": "k", "files": {"json": "k.json", "cubin": "k.cubin"}}]}
    entry = store.put(key, manifest, {"k.json": "{}", "k.cubin": b"x" * size}, compiler=compiler)
    if when is not None:
        stamp = time.time() - when
        os.utime(os.path.join(entry.path, "manifest.json"), (stamp, stamp))
    return key


def present(store, *keys):
    return [store.get(k) is not None for k in keys]


def test_least_recently_used_goes_first(tmp_path):
    store = FileCache(tmp_path, max_bytes=0)
    a = put(store, "a", 1000, when=300)
    b = put(store, "b", 1000, when=200)
    c = put(store, "c", 1000, when=100)
    # A hit makes a the most recently used.
    assert store.get(a) is not None
    store.max_bytes = 3500
    d = put(store, "d", 1000)
    # Over 3500: the least recently used (b) goes, then c, down to 90%.
    assert present(store, a, b, c, d) == [True, False, False, True]
    assert store.info()["bytes"] <= 3500 * 90 // 100


def test_size_limit_holds_after_every_write(tmp_path):
    limit = 20_000
    store = FileCache(tmp_path, max_bytes=limit)
    # Two "processes" (caches on one root) share the size ledger.
    other = FileCache(tmp_path, max_bytes=limit)
    for i in range(20):
        key = put(store if i % 3 else other, f"e{i}", 3000)
        info = store.info()
        assert info["bytes"] <= limit, (i, info)
        assert store.get(key) is not None  # the entry just written stays
    assert info["max_bytes"] == limit and 4 <= info["entries"] < 20


def test_writes_under_the_limit_do_not_scan(tmp_path, monkeypatch):
    """A write reads the ledger (usage.json + writes.log); only a write that
    takes the cache over its limit scans it."""
    scans = []
    real = FileCache._scan

    def counting(self):
        scans.append(1)
        return real(self)

    monkeypatch.setattr(FileCache, "_scan", counting)
    store = FileCache(tmp_path, max_bytes=100_000)
    for i in range(30):
        put(store, f"e{i}", 1000)
    assert len(scans) == 1  # the first write: no ledger yet
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == [
        "sweep.lock", "usage.json", "writes.log"]
    estimate = store._estimate()
    actual = real(store)[0]
    assert estimate == sum(size for _, _, _, size in actual)
    for i in range(30, 100):
        put(store, f"e{i}", 1000)
    assert 1 < len(scans) < 10 and store.info()["bytes"] <= 100_000


def test_the_entry_just_written_stays_even_when_too_large(tmp_path):
    store = FileCache(tmp_path, max_bytes=0)
    small = put(store, "small", 100)
    store.max_bytes = 1000
    big = put(store, "big", 5000)
    assert present(store, small, big) == [False, True]


def test_stale_entries_go_before_recent_ones(tmp_path):
    store = FileCache(tmp_path, max_bytes=0)
    old_build = put(store, "old-build", 1000, compiler="previous", when=10)
    recent = put(store, "recent", 1000, when=100)
    older = put(store, "older", 1000, when=200)
    store.max_bytes = 3500
    put(store, "new", 1000)
    # The other compiler's entry is the newest but goes first; then LRU.
    assert present(store, old_build, older, recent) == [False, False, True]


def test_no_limit(tmp_path):
    store = FileCache(tmp_path, max_bytes=0)
    for i in range(5):
        put(store, f"e{i}", 1000)
    assert store.info()["entries"] == 5 and store.sweep() == (0, 0)


def test_limit_from_the_environment_and_the_argument(count_compiles, tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_MAX_BYTES", "512K")
    assert FileCache(tmp_path).max_bytes == 512 << 10
    monkeypatch.setenv("TILEC_CACHE_MAX_BYTES", "2GiB")
    assert FileCache(tmp_path).max_bytes == 2 << 30
    monkeypatch.setenv("TILEC_CACHE_MAX_BYTES", "lots")
    with pytest.raises(ValueError, match="TILEC_CACHE_MAX_BYTES: invalid size 'lots'"):
        FileCache(tmp_path)
    monkeypatch.delenv("TILEC_CACHE_MAX_BYTES")
    assert FileCache(tmp_path).max_bytes == cache.DEFAULT_MAX_BYTES == 1 << 30
    with pytest.raises(ValueError, match="non-negative"):
        FileCache(tmp_path, max_bytes=-1)
    # tilec.compile(cache_max_bytes=...): a limit below two entries keeps one.
    sources = [SCALE_SOURCE.replace("@scale", f"@scale{i}") for i in range(3)]
    for source in sources:
        tilec.compile(source, chip="sm_80", emit="ptx", cache_dir=tmp_path / "c",
                      cache_max_bytes=1)
    assert FileCache(tmp_path / "c").info()["entries"] == 1
    last = tilec.compile(sources[-1], chip="sm_80", emit="ptx", cache_dir=tmp_path / "c")
    assert last.from_cache and len(count_compiles) == 3
    monkeypatch.setenv("TILEC_CACHE_MAX_BYTES", "1")
    tilec.compile(sources[0], chip="sm_80", emit="ptx", cache_dir=tmp_path / "c")
    assert FileCache(tmp_path / "c").info()["entries"] == 1


def test_compiles_sweep_stale_entries_of_other_builds(library, count_compiles, tmp_path):
    """An entry of another compiler build is found by no key; the sweep of
    a cache over its limit removes it first."""
    store = FileCache(tmp_path, max_bytes=0)
    stale = put(store, "stale", 100_000, compiler="0" * 64, when=1)
    first = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache_dir=tmp_path,
                          cache_max_bytes=100_000)
    manifest = json.load(open(os.path.join(first.cache_path, "manifest.json")))
    assert manifest["compiler"] == library.fingerprint
    assert store.peek(stale) is None and store.peek(first.key) is not None


def _writer(root, worker, limit):
    store = FileCache(root, max_bytes=limit)
    for i in range(25):
        key = put(store, f"w{worker}-{i % 10}", 2000)
        entry = store.get(key)
        if entry is not None:  # another process may have evicted it already
            try:
                assert entry.read("k.cubin", binary=True) == b"x" * 2000
            except OSError:
                pass  # removed meanwhile: a miss, never a wrong answer


def test_concurrent_writers_and_sweeps(tmp_path):
    limit = 30_000
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_writer, args=(str(tmp_path), w, limit)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    store = FileCache(tmp_path, max_bytes=limit)
    store.sweep()
    info = store.info()
    assert info["bytes"] <= limit
    # Every entry left is whole; no temporary directory is left behind.
    for key, path, _, _ in store._scan()[0]:
        assert store.peek(key) is not None, path
    assert not [p for p in tmp_path.glob("*/.*")]


def test_clear_removes_the_entries_only(count_compiles, tmp_path, monkeypatch):
    root = tmp_path / "default-cache"
    monkeypatch.setenv("TILEC_CACHE_DIR", str(root))
    first = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx")
    tilec.compile(SCALE_SOURCE, chip="sm_89", emit="ptx")
    (root / "notes.txt").write_text("not the cache's")
    info = tilec.cache.info()
    assert info["path"] == str(root) and info["entries"] == 2 and info["bytes"] > 0
    assert tilec.cache.clear() == (2, info["bytes"])
    assert tilec.cache.info()["entries"] == 0
    assert sorted(p.name for p in root.iterdir()) == ["notes.txt"]
    again = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx")
    assert not again.from_cache and again.ptx == first.ptx and len(count_compiles) == 3
    size = tilec.cache.info(str(root))["bytes"]
    assert tilec.cache.clear(str(root)) == (1, size)


def run_cli(*args, env=None):
    environment = dict(os.environ, PYTHONPATH=PYTHON_DIR, **(env or {}))
    return subprocess.run([sys.executable, "-m", "tilec", *args], capture_output=True,
                          text=True, env=environment, cwd=str(os.path.dirname(PYTHON_DIR)))


def test_cache_command_line(library, tmp_path):
    root = tmp_path / "cli-cache"
    result = tilec.compile(SCALE_SOURCE, chip="sm_80", emit="ptx", cache_dir=root)
    size = FileCache(root).info()["bytes"]
    info = run_cli("cache", "info", "--cache-dir", str(root))
    assert info.returncode == 0, info.stderr
    assert f"path:    {root}\n" in info.stdout
    assert "entries: 1\n" in info.stdout
    assert f"({size} bytes)" in info.stdout or f"{size} bytes" in info.stdout
    assert "limit:   1.0 GiB (1073741824 bytes)" in info.stdout
    as_json = run_cli("cache", "info", "--json", env={"TILEC_CACHE_DIR": str(root),
                                                      "TILEC_CACHE_MAX_BYTES": "0"})
    assert json.loads(as_json.stdout) == {"path": str(root), "entries": 1, "bytes": size,
                                          "max_bytes": 0}
    # prune keeps the entry of this compiler, removes another build's.
    put(FileCache(root, max_bytes=0), "other-build", 10, compiler="0" * 64)
    pruned = run_cli("cache", "prune", "--cache-dir", str(root),
                     env={"TILEC_LIBRARY": library.path})
    assert pruned.returncode == 0 and pruned.stdout.startswith("removed 1 entries"), pruned
    assert FileCache(root).peek(result.key) is not None
    cleared = run_cli("cache", "clear", "--cache-dir", str(root))
    assert cleared.returncode == 0 and cleared.stdout.startswith("removed 1 entries"), cleared
    assert FileCache(root).info()["entries"] == 0
    assert run_cli().returncode == 2 and run_cli("cache").returncode == 2
    bad = run_cli("cache", "info", env={"TILEC_CACHE_MAX_BYTES": "lots"})
    assert bad.returncode == 1 and "invalid size 'lots'" in bad.stderr
    assert run_cli("--version").stdout.strip() == f"tilec {tilec.__version__}"
