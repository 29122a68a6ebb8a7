"""On-disk cache of compilation results.

An entry is a directory ``<root>/<key[:2]>/<key>/`` holding, per kernel,
``<kernel>.json`` and whichever of ``.mlir``, ``.ll``, ``.ptx``, ``.cubin``
the compilation produced (the layout the ``tilec`` driver writes), the IR of
every stage under ``stages/`` when requested, and ``manifest.json`` listing
all of it. The key is a SHA-256 over the source text, the chip, every flag
that changes the output, the tilec version and a fingerprint of the compiler
library, so a new compiler build or version never serves stale artifacts.

Writes are atomic: an entry is assembled in a temporary directory next to
its final place and renamed into it, so concurrent processes see either no
entry or a complete one; a process that loses the race drops its copy.
Entries that fail to read back (partial manual deletion) count as misses.
"""

import hashlib
import json
import os
import re
import shutil
import tempfile

#: Extensions of the per-kernel artifacts, by ``RawKernel`` attribute.
ARTIFACT_EXTENSIONS = {"mlir": ".mlir", "llvm": ".ll", "ptx": ".ptx", "cubin": ".cubin"}

_MANIFEST = "manifest.json"
_FORMAT = 1
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_.$-]{1,200}$")


def default_cache_dir():
    """``$TILEC_CACHE_DIR``, else ``$XDG_CACHE_HOME/tilec``, else
    ``~/.cache/tilec``."""
    explicit = os.environ.get("TILEC_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tilec")


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

    def read(self, relative, binary=False):
        """Contents of one file of the entry."""
        with open(os.path.join(self.path, relative), "rb" if binary else "r",
                  **({} if binary else {"encoding": "utf-8"})) as f:
            return f.read()


class FileCache:
    """The cache rooted at ``root`` (created on first write)."""

    def __init__(self, root):
        self.root = os.path.abspath(os.path.expanduser(os.fspath(root)))

    def entry_path(self, key):
        return os.path.join(self.root, key[:2], key)

    def get(self, key):
        """The entry for ``key``, or ``None`` on a miss."""
        path = self.entry_path(key)
        try:
            with open(os.path.join(path, _MANIFEST), encoding="utf-8") as f:
                manifest = json.load(f)
        except (OSError, ValueError):
            return None
        if manifest.get("format") != _FORMAT or manifest.get("key") != key:
            return None
        files = [k["files"][ext] for k in manifest.get("kernels", []) for ext in k["files"]]
        files += [s["file"] for s in manifest.get("stages", [])]
        if not all(os.path.isfile(os.path.join(path, f)) for f in files):
            return None
        return CacheEntry(path, manifest)

    def put(self, key, manifest, files):
        """Stores ``files`` (relative path -> str or bytes) and ``manifest``
        under ``key``; returns the entry (an existing complete one if another
        writer got there first)."""
        final = self.entry_path(key)
        parent = os.path.dirname(final)
        os.makedirs(parent, exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=parent)
        try:
            for relative, data in files.items():
                path = os.path.join(tmp, relative)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as f:
                    f.write(data.encode("utf-8") if isinstance(data, str) else data)
            manifest = dict(manifest, format=_FORMAT, key=key)
            with open(os.path.join(tmp, _MANIFEST), "w", encoding="utf-8") as f:
                json.dump(manifest, f, indent=1, sort_keys=True)
            try:
                os.rename(tmp, final)
            except OSError:
                # Another writer won, or a broken entry is in the way.
                existing = self.get(key)
                if existing is not None:
                    return existing
                self._replace_broken(tmp, final)
        finally:
            if os.path.isdir(tmp):
                shutil.rmtree(tmp, ignore_errors=True)
        return CacheEntry(final, manifest)

    @staticmethod
    def _replace_broken(tmp, final):
        """Moves an unreadable entry aside and renames ``tmp`` into place."""
        trash = tempfile.mkdtemp(prefix=".trash.", dir=os.path.dirname(final))
        try:
            os.rename(final, os.path.join(trash, "old"))
        except OSError:
            pass
        try:
            os.rename(tmp, final)
        finally:
            shutil.rmtree(trash, ignore_errors=True)

    def clear(self):
        """Removes every entry."""
        shutil.rmtree(self.root, ignore_errors=True)
