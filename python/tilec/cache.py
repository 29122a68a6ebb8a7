"""On-disk cache of compilation results.

An entry is a directory ``<root>/<key[:2]>/<key>/`` holding, per kernel,
``<kernel>.json`` and the outputs the caller kept (``.cubin`` for
``emit="cubin"``, ``.ptx`` for ``emit="ptx"``, ``.h`` for ``emit="header"``,
more with ``keep=``; see :func:`tilec.compile`), the IR of every pass under
``stages/`` for ``stages=True``, and ``manifest.json`` listing all of it with
the outputs kept (``kept``) and the compiler's fingerprint. An entry that
lacks an output a request needs is a miss for that request; the compile that
follows stores an entry holding both. The key is a SHA-256 over the source
text, the chip, every flag that changes the output, the tilec version and a
fingerprint of the compiler library, so a new compiler build or version
never serves stale artifacts.

Size: after a write that takes the cache over its limit (``max_bytes``: the
argument, else ``$TILEC_CACHE_MAX_BYTES``, else 1 GiB; ``0`` means no
limit), entries are removed in least-recently-used order until the cache
holds at most 90% of the limit. A hit sets the entry's manifest mtime,
which is its last use. Entries of another compiler build (which no key
reaches any more) go first; the entry just written is never removed by its
own sweep. Writes do not scan the cache: each appends its size to
``writes.log``, and a sweep (one process at a time, under ``sweep.lock``)
scans it and records the total in ``usage.json``; a write that finds the
sum over the limit sweeps. The estimate errs high (writes racing a sweep
count twice), so the limit holds; ``info`` always scans.

Concurrency: an entry is assembled in a temporary directory next to its
final place and renamed into it, so concurrent processes see either no entry
or a complete one; a process that loses the race drops its copy. Removal
renames the entry away before deleting it. Entries that fail to read back
(removed meanwhile, or damaged by hand) count as misses.
"""

import hashlib
import json
import os
import re
import shutil
import tempfile
import time

try:
    import fcntl
except ImportError:  # not POSIX: sweeps are not serialized (still safe)
    fcntl = None

#: Extensions of the per-kernel outputs, by ``CompiledKernel`` attribute.
ARTIFACT_EXTENSIONS = {"mlir": ".mlir", "llvm": ".ll", "ptx": ".ptx", "cubin": ".cubin",
                       "header": ".h"}

#: Default size limit of a cache (``$TILEC_CACHE_MAX_BYTES`` overrides it).
DEFAULT_MAX_BYTES = 1 << 30

MAX_BYTES_VARIABLE = "TILEC_CACHE_MAX_BYTES"

#: A sweep of a cache over its limit removes entries until the cache holds
#: at most this share of the limit.
LOW_WATER_PERCENT = 90

_MANIFEST = "manifest.json"
# The size ledger at the root: ``usage.json`` holds the bytes a sweep found
# and how far into ``writes.log`` it had read; every write appends its bytes
# to ``writes.log``. Their sum estimates the cache's size without a scan.
_USAGE = "usage.json"
_WRITES = "writes.log"
_LOCK = "sweep.lock"
#: ``writes.log`` is emptied by the sweep that finds it larger than this.
_WRITES_MAX_BYTES = 1 << 20
_FORMAT = 2
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.$-]{1,200}$")
_KEY = re.compile(r"^[0-9a-f]{64}$")
_PREFIX = re.compile(r"^[0-9a-f]{2}$")
_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
#: Temporary directories of writers older than this are left-overs of a
#: process that died; sweeps remove them.
_ABANDONED_SECONDS = 3600


def default_cache_dir():
    """``$TILEC_CACHE_DIR``, else ``$XDG_CACHE_HOME/tilec``, else
    ``~/.cache/tilec``."""
    explicit = os.environ.get("TILEC_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tilec")


def parse_size(text):
    """Bytes of a size such as ``1073741824``, ``512M``, ``2GiB`` or ``0``
    (binary units K, M, G, T; case-insensitive)."""
    m = re.match(r"^\s*(\d+)\s*([kmgt]?)(?:i?b)?\s*$", str(text), re.IGNORECASE)
    if not m:
        raise ValueError(f"invalid size {text!r}: expected bytes, or a number with K, M, G or T")
    return int(m.group(1)) * _UNITS[m.group(2).lower()]


def default_max_bytes():
    """``$TILEC_CACHE_MAX_BYTES`` (see :func:`parse_size`), else 1 GiB."""
    text = os.environ.get(MAX_BYTES_VARIABLE)
    if text is None or not text.strip():
        return DEFAULT_MAX_BYTES
    try:
        return parse_size(text)
    except ValueError as e:
        raise ValueError(f"${MAX_BYTES_VARIABLE}: {e}") from None


def make_key(source, chip, flags, version, compiler):
    """Cache key of one compilation: hex SHA-256 of its inputs. ``flags`` is
    a JSON-serializable dict of everything else that changes the output."""
    payload = json.dumps({"format": _FORMAT, "chip": chip, "flags": flags, "version": version,
                          "compiler": compiler}, sort_keys=True).encode()
    h = hashlib.sha256()
    h.update(payload)
    h.update(b"\0")
    h.update(source.encode("utf-8") if isinstance(source, str) else source)
    return h.hexdigest()


def file_stem(index, name):
    """File name stem for kernel ``name``: the name itself when it is a safe
    file name, else ``kernel<index>``."""
    return name if _SAFE_NAME.match(name) and name not in (".", "..") else f"kernel{index}"


class CacheEntry:
    """A complete entry read back from the cache."""

    def __init__(self, path, manifest):
        self.path = path
        self.manifest = manifest

    @property
    def kept(self):
        """The outputs the entry holds (``{"cubin"}``, ...)."""
        return frozenset(self.manifest.get("kept", ()))

    def read(self, relative, binary=False):
        """Contents of one file of the entry (``OSError`` when it was removed
        meanwhile)."""
        with open(os.path.join(self.path, relative), "rb" if binary else "r",
                  **({} if binary else {"encoding": "utf-8"})) as f:
            return f.read()


def _tree_bytes(path):
    """Bytes of the files under ``path`` (0 for what vanished meanwhile)."""
    total = 0
    try:
        with os.scandir(path) as it:
            for item in it:
                try:
                    if item.is_dir(follow_symlinks=False):
                        total += _tree_bytes(item.path)
                    else:
                        total += item.stat(follow_symlinks=False).st_size
                except OSError:
                    pass
    except OSError:
        pass
    return total


class FileCache:
    """The cache rooted at ``root`` (created on first write), kept under
    ``max_bytes`` (``None``: :func:`default_max_bytes`; ``0``: no limit)."""

    def __init__(self, root, max_bytes=None):
        self.root = os.path.abspath(os.path.expanduser(os.fspath(root)))
        if max_bytes is None:
            max_bytes = default_max_bytes()
        elif isinstance(max_bytes, str):
            max_bytes = parse_size(max_bytes)
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
            raise ValueError(f"max_bytes must be a non-negative integer (0: no limit), "
                             f"not {max_bytes!r}")
        self.max_bytes = max_bytes

    def entry_path(self, key):
        return os.path.join(self.root, key[:2], key)

    def peek(self, key):
        """The complete entry for ``key`` whatever it holds, or ``None``."""
        path = self.entry_path(key)
        try:
            with open(os.path.join(path, _MANIFEST), encoding="utf-8") as f:
                manifest = json.load(f)
        except (OSError, ValueError):
            return None
        if (not isinstance(manifest, dict) or manifest.get("format") != _FORMAT
                or manifest.get("key") != key):
            return None
        try:
            files = [f for k in manifest["kernels"] for f in k["files"].values()]
            files += [s["file"] for s in manifest.get("stages", [])]
        except (KeyError, TypeError, AttributeError):
            return None
        if not all(os.path.isfile(os.path.join(path, f)) for f in files):
            return None
        return CacheEntry(path, manifest)

    def get(self, key, need=()):
        """The entry for ``key`` when it holds every output in ``need``
        (``{"cubin"}``, ...), else ``None`` (a miss). A hit marks the entry
        as just used."""
        entry = self.peek(key)
        if entry is None or not set(need) <= entry.kept:
            return None
        try:
            os.utime(os.path.join(entry.path, _MANIFEST))
        except OSError:
            pass  # a read-only cache still serves hits
        return entry

    def put(self, key, manifest, files, compiler=None):
        """Stores ``files`` (relative path -> str or bytes) and ``manifest``
        under ``key`` and, when the size ledger puts the cache over
        ``max_bytes``, sweeps it (:meth:`sweep`); returns the entry (an
        existing complete one holding at least the same outputs if another
        writer got there first). ``compiler`` is the fingerprint of the
        compiler that produced the entry: entries of other fingerprints are
        the first to go."""
        final = self.entry_path(key)
        parent = os.path.dirname(final)
        os.makedirs(parent, exist_ok=True)
        manifest = dict(manifest, format=_FORMAT, key=key)
        if compiler is not None:
            manifest["compiler"] = compiler
        kept = set(manifest.get("kept", ()))
        tmp = tempfile.mkdtemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=parent)
        result = None
        try:
            for relative, data in files.items():
                path = os.path.join(tmp, relative)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data.encode("utf-8") if isinstance(data, str) else data)
            with open(os.path.join(tmp, _MANIFEST), "w", encoding="utf-8") as f:
                json.dump(manifest, f, indent=1, sort_keys=True)
            try:
                os.rename(tmp, final)
            except OSError:
                # Another writer won, or an entry holding less (or a broken
                # one) is in the way.
                existing = self.peek(key)
                if existing is not None and kept <= existing.kept:
                    result = existing
                else:
                    self._replace(tmp, final)
        finally:
            if os.path.isdir(tmp):
                shutil.rmtree(tmp, ignore_errors=True)
        if result is None:
            result = CacheEntry(final, manifest)
            written = len(json.dumps(manifest, indent=1, sort_keys=True).encode())
            written += sum(len(d.encode("utf-8") if isinstance(d, str) else d)
                           for d in files.values())
            self._record_write(written)
        if self.max_bytes:
            estimate = self._estimate()
            if estimate is None or estimate > self.max_bytes:
                self.sweep(compiler=compiler, protect=key, wait=False)
        return result

    def _record_write(self, size):
        """Appends ``size`` to the ledger (one short O_APPEND write)."""
        try:
            with open(os.path.join(self.root, _WRITES), "a", encoding="ascii") as f:
                f.write(f"{size}\n")
        except OSError:
            pass

    def _estimate(self):
        """The cache's bytes by the ledger, or ``None`` without one."""
        try:
            with open(os.path.join(self.root, _USAGE), encoding="utf-8") as f:
                usage = json.load(f)
            total, offset = int(usage["bytes"]), int(usage["writes_offset"])
        except (OSError, ValueError, KeyError, TypeError):
            return None
        try:
            with open(os.path.join(self.root, _WRITES), "rb") as f:
                if os.fstat(f.fileno()).st_size < offset:
                    offset = 0  # emptied since
                f.seek(offset)
                data = f.read()
        except FileNotFoundError:
            data = b""
        except OSError:
            return None
        for line in data.split(b"\n")[:-1]:  # complete lines only
            try:
                total += int(line)
            except ValueError:
                pass
        return total

    def _write_usage(self, total, offset):
        tmp = os.path.join(self.root, f"{_USAGE}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump({"bytes": total, "writes_offset": offset}, f)
            os.replace(tmp, os.path.join(self.root, _USAGE))
        except OSError:
            try:
                os.remove(tmp)
            except OSError:
                pass

    @staticmethod
    def _replace(tmp, final):
        """Moves the entry at ``final`` aside and renames ``tmp`` into place."""
        trash = tempfile.mkdtemp(prefix=".trash.", suffix=".tmp", dir=os.path.dirname(final))
        try:
            os.rename(final, os.path.join(trash, "old"))
        except OSError:
            pass
        try:
            os.rename(tmp, final)
        except OSError:
            pass  # yet another writer put an entry back: keep theirs
        finally:
            shutil.rmtree(trash, ignore_errors=True)

    def _remove(self, path):
        """Removes the entry directory at ``path``: renamed away first, so
        that readers see it whole or not at all. False if it was gone."""
        try:
            trash = tempfile.mkdtemp(prefix=".trash.", suffix=".tmp", dir=os.path.dirname(path))
        except OSError:
            return False
        try:
            os.rename(path, os.path.join(trash, "old"))
            return True
        except OSError:
            return False
        finally:
            shutil.rmtree(trash, ignore_errors=True)

    def _scan(self):
        """``(key, path, last_use, bytes)`` of every entry directory, and
        the temporary directories of writers that died; a snapshot (other
        processes may change the cache meanwhile)."""
        entries, abandoned = [], []
        now = time.time()
        try:
            prefixes = [p for p in os.scandir(self.root)
                        if _PREFIX.match(p.name) and p.is_dir(follow_symlinks=False)]
        except OSError:
            return entries, abandoned
        for prefix in prefixes:
            try:
                items = list(os.scandir(prefix.path))
            except OSError:
                continue
            for item in items:
                try:
                    if not item.is_dir(follow_symlinks=False):
                        continue
                    if item.name.startswith(".") and item.name.endswith(".tmp"):
                        if now - item.stat(follow_symlinks=False).st_mtime > _ABANDONED_SECONDS:
                            abandoned.append(item.path)
                        continue
                    if not _KEY.match(item.name):
                        continue
                    try:
                        last_use = os.stat(os.path.join(item.path, _MANIFEST)).st_mtime
                    except OSError:  # no manifest: broken, or being replaced
                        last_use = item.stat(follow_symlinks=False).st_mtime
                    entries.append((item.name, item.path, last_use, _tree_bytes(item.path)))
                except OSError:
                    continue
        return entries, abandoned

    @staticmethod
    def _compiler_of(path):
        try:
            with open(os.path.join(path, _MANIFEST), encoding="utf-8") as f:
                manifest = json.load(f)
            return manifest.get("compiler") if isinstance(manifest, dict) else None
        except (OSError, ValueError):
            return None

    def sweep(self, compiler=None, protect=None, max_bytes=None, wait=True):
        """Scans the cache and, when it holds more than ``max_bytes``
        (default: this cache's limit; 0: none), removes entries until it
        holds at most 90% of it: entries whose compiler fingerprint differs
        from ``compiler`` (when given) first, then the least recently used.
        ``protect`` is a key that stays. One process sweeps at a time; with
        ``wait=False`` a sweep already under way elsewhere makes this one
        return at once. Returns ``(entries removed, bytes freed)``."""
        limit = self.max_bytes if max_bytes is None else max_bytes
        if not os.path.isdir(self.root):
            return 0, 0
        try:
            lock = open(os.path.join(self.root, _LOCK), "a")
        except OSError:
            lock = None
        try:
            if lock is not None and fcntl is not None:
                try:
                    fcntl.flock(lock.fileno(), fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
                except OSError:
                    return 0, 0  # another process is sweeping
            return self._sweep_locked(limit, compiler, protect)
        finally:
            if lock is not None:
                lock.close()  # releases the lock

    def _sweep_locked(self, limit, compiler, protect):
        writes = os.path.join(self.root, _WRITES)
        try:
            offset = os.stat(writes).st_size
            if offset > _WRITES_MAX_BYTES:
                os.truncate(writes, 0)  # appends go on at the new end
                offset = 0
        except OSError:
            offset = 0
        entries, abandoned = self._scan()
        for path in abandoned:
            shutil.rmtree(path, ignore_errors=True)
        total = sum(size for _, _, _, size in entries)
        if not limit or total <= limit:
            self._write_usage(total, offset)
            return 0, 0
        # Down to a low-water mark, so that a full cache is not swept (and
        # its manifests read) on every write.
        target = limit * LOW_WATER_PERCENT // 100
        candidates = [e for e in entries if e[0] != protect]
        if compiler is not None:
            # Stale entries (another compiler build, or an older format) go
            # first, oldest first; manifests are read only when over the limit.
            stale = {e[0] for e in candidates if self._compiler_of(e[1]) != compiler}
            order = sorted(candidates, key=lambda e: (e[0] not in stale, e[2]))
        else:
            order = sorted(candidates, key=lambda e: e[2])
        removed = freed = 0
        for key, path, _, size in order:
            if total <= target:
                break
            if self._remove(path):
                removed += 1
                freed += size
            total -= size  # gone either way
        self._write_usage(total, offset)
        return removed, freed

    def prune(self, compiler=None):
        """Removes the entries of other compilers (``compiler``: the current
        fingerprint; ``None`` removes none of them) and any broken ones, then
        sweeps down to the limit. Returns ``(entries removed, bytes freed)``."""
        entries, abandoned = self._scan()
        for path in abandoned:
            shutil.rmtree(path, ignore_errors=True)
        removed = freed = 0
        for key, path, _, size in entries:
            broken = self.peek(key) is None
            if broken or (compiler is not None and self._compiler_of(path) != compiler):
                if self._remove(path):
                    removed += 1
                    freed += size
        more, more_bytes = self.sweep(compiler=compiler)
        return removed + more, freed + more_bytes

    def info(self):
        """``{"path", "entries", "bytes", "max_bytes"}`` of the cache."""
        entries, _ = self._scan()
        return {"path": self.root, "entries": len(entries),
                "bytes": sum(size for _, _, _, size in entries), "max_bytes": self.max_bytes}

    def clear(self):
        """Removes every entry (only the cache's own directories: a root that
        holds other files keeps them). Returns ``(entries removed, bytes
        freed)``."""
        entries, abandoned = self._scan()
        removed = freed = 0
        for _, path, _, size in entries:
            if self._remove(path):
                removed += 1
                freed += size
        try:
            prefixes = [p for p in os.scandir(self.root)
                        if _PREFIX.match(p.name) and p.is_dir(follow_symlinks=False)]
        except OSError:
            prefixes = []
        for path in abandoned:
            shutil.rmtree(path, ignore_errors=True)
        for name in (_USAGE, _WRITES, _LOCK):
            try:
                os.remove(os.path.join(self.root, name))
            except OSError:
                pass
        for prefix in prefixes:
            try:
                os.rmdir(prefix.path)
            except OSError:
                pass  # a writer is filling it (its temporary directory stays)
        return removed, freed


def clear(cache_dir=None):
    """Removes every entry of the cache at ``cache_dir`` (default:
    :func:`default_cache_dir`); returns ``(entries removed, bytes freed)``."""
    return FileCache(cache_dir if cache_dir is not None else default_cache_dir(), max_bytes=0).clear()


def info(cache_dir=None):
    """Path, entry count, bytes and size limit of the cache at ``cache_dir``
    (default: :func:`default_cache_dir`), as a dict."""
    return FileCache(cache_dir if cache_dir is not None else default_cache_dir()).info()
