"""``tilec.compile``: tile programs to PTX, cubins and launch metadata.

Compilation goes through ``libtilec-c.so`` (see :mod:`tilec._capi`) and is
cached on disk (see :mod:`tilec.cache`). Following Triton's idea of stages,
``stages=True`` records the IR after every pass of the tilec-to-nvvm
pipeline. A result (and its cache entry) holds the emitted output and the
launch metadata; the intermediate outputs (the LLVM IR is most of the bytes)
only when asked for with ``keep=`` or ``stages=True``. ``emit="header"``
gives the AOT C header of ``tilec --emit=header`` (the library's
``TilecEmitHeader``: the same code writes both).
"""

import json
import os
import warnings

from . import _capi
from .specialize import specialize_source
from .cache import ARTIFACT_EXTENSIONS, FileCache, default_cache_dir, file_stem, make_key
from .targets import device_chip

#: What ``emit=`` takes: the last stage of the compilation.
EMITS = tuple(_capi.EMIT_STAGES)

#: The outputs of a kernel (``CompiledKernel`` attributes), in pipeline order.
OUTPUTS = tuple(ARTIFACT_EXTENSIONS)


class CompileError(RuntimeError):
    """The compiler rejected the program or the options; ``diagnostics``
    holds the compiler's messages (``file:line:col: error: ...``)."""

    #: Lines of diagnostics shown in the message; ``diagnostics`` has all.
    MAX_LINES = 24

    def __init__(self, diagnostics, source_name="<source>"):
        self.diagnostics = diagnostics
        self.source_name = source_name
        lines = diagnostics.rstrip().splitlines()
        shown = "\n".join(lines[:self.MAX_LINES])
        if len(lines) > self.MAX_LINES:
            shown += f"\n... ({len(lines) - self.MAX_LINES} more lines in .diagnostics)"
        super().__init__(f"tilec failed to compile {source_name}:\n{shown}")


class CompiledKernel:
    """One kernel of a :class:`CompileResult`.

    Attributes: ``name``; ``metadata`` (the parsed ``<kernel>.json``) and
    ``metadata_json`` (its text); ``ptx``, ``llvm``, ``mlir``, ``header``
    (text) and ``cubin`` (bytes), each ``None`` when that output was not
    emitted or not kept (see ``keep=`` of :func:`compile`).
    """

    def __init__(self, name, metadata_json, ptx=None, cubin=None, llvm=None, mlir=None,
                 header=None):
        self.name = name
        self.metadata_json = metadata_json
        self.metadata = json.loads(metadata_json)
        self.ptx, self.cubin, self.llvm, self.mlir = ptx, cubin, llvm, mlir
        self.header = header
        self._launcher = None

    def launcher(self):
        """A :class:`tilec.runtime.Kernel` for this cubin (needs a GPU,
        torch and ``cuda.bindings`` when called)."""
        if self.cubin is None:
            raise ValueError(f"kernel '{self.name}' has no cubin: compile with emit='cubin' "
                             f"(or keep=('cubin', ...))")
        if self._launcher is None:
            from .runtime import Kernel
            self._launcher = Kernel.from_artifacts(self.metadata, self.cubin)
        return self._launcher

    def __repr__(self):
        return f"CompiledKernel({self.name!r}, chip={self.metadata.get('chip')!r})"


class CompileResult:
    """The kernels of one compiled source.

    ``names`` lists them in source order; ``result[name]`` (or an index) is a
    :class:`CompiledKernel`. For a source with a single kernel, ``ptx``,
    ``cubin``, ``header`` and ``metadata`` are that kernel's. ``kept`` is
    the set of outputs the kernels hold. ``stages`` is a list of
    ``(name, ir)`` pairs when compiled with ``stages=True`` (else empty);
    ``from_cache`` says whether the result was read from the cache, ``key``
    is its cache key and ``cache_path`` the entry directory (or ``None``).
    """

    def __init__(self, kernels, stages, chip, emit, key=None, from_cache=False, cache_path=None,
                 kept=None):
        self.kernels = {k.name: k for k in kernels}
        self.names = [k.name for k in kernels]
        self.stages = list(stages)
        self.chip, self.emit = chip, emit
        self.kept = frozenset(kept) if kept is not None else frozenset(
            a for a in OUTPUTS if any(getattr(k, a) is not None for k in kernels))
        self.key, self.from_cache, self.cache_path = key, from_cache, cache_path

    def __getitem__(self, item):
        if isinstance(item, int):
            return self.kernels[self.names[item]]
        try:
            return self.kernels[item]
        except KeyError:
            raise KeyError(f"no kernel {item!r}; compiled: {', '.join(self.names)}") from None

    def __iter__(self):
        return (self.kernels[n] for n in self.names)

    def __len__(self):
        return len(self.names)

    def _single(self, what):
        if len(self.names) != 1:
            raise ValueError(f"the source has {len(self.names)} kernels ({', '.join(self.names)}); "
                             f"use result[name].{what}")
        return self.kernels[self.names[0]]

    @property
    def ptx(self):
        return self._single("ptx").ptx

    @property
    def cubin(self):
        return self._single("cubin").cubin

    @property
    def header(self):
        """The AOT C header (``emit="header"``), as ``tilec --emit=header``
        writes it to ``<kernel>.h``."""
        return self._single("header").header

    @property
    def metadata(self):
        return self._single("metadata").metadata

    def stage(self, name):
        """IR of the first stage called ``name`` (e.g. ``"input"``,
        ``"tile-assign-layouts @gemm"``); ``KeyError`` lists them."""
        for stage_name, ir in self.stages:
            if stage_name == name:
                return ir
        if not self.stages:
            raise KeyError("no stages recorded: compile with stages=True")
        raise KeyError(f"no stage {name!r}; recorded: {', '.join(n for n, _ in self.stages)}")

    def save(self, directory, source=None, stages=None):
        """Writes ``<kernel>.{json,ptx,cubin,...}`` into ``directory`` (the
        layout of the ``tilec`` driver and of ``TILEC_ARTIFACTS``), plus
        ``<kernel>.source.mlir`` when ``source`` is given, which lets the
        package check that a precompiled kernel matches what it would build.
        ``stages`` limits the compiler outputs written (of ``"mlir"``,
        ``"llvm"``, ``"ptx"``, ``"cubin"``, ``"header"`` (``.h``); default
        all the result holds): a kernel runs from its json and cubin alone."""
        if stages is not None:
            unknown = set(stages) - set(ARTIFACT_EXTENSIONS)
            if unknown:
                raise ValueError(f"unknown stages {sorted(unknown)}; expected some of "
                                 f"{sorted(ARTIFACT_EXTENSIONS)}")
        os.makedirs(directory, exist_ok=True)
        written = []
        for index, kernel in enumerate(self):
            stem = file_stem(index, kernel.name)
            if stem != kernel.name:
                raise ValueError(f"kernel name {kernel.name!r} is not a safe file name")
            files = {".json": kernel.metadata_json}
            for attr, ext in ARTIFACT_EXTENSIONS.items():
                if (stages is None or attr in stages) and getattr(kernel, attr) is not None:
                    files[ext] = getattr(kernel, attr)
            if source is not None:
                files[".source.mlir"] = source
            for ext, data in files.items():
                path = os.path.join(directory, stem + ext)
                _atomic_write(path, data)
                written.append(path)
        return written

    def __repr__(self):
        return (f"CompileResult({self.names}, chip={self.chip!r}, emit={self.emit!r}, "
                f"from_cache={self.from_cache})")


def _atomic_write(path, data):
    """Writes ``data`` to ``path`` through a temporary file and a rename."""
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
    os.replace(tmp, path)


def _read_source(source_or_path):
    """(text, name for diagnostics) of a source given as text or a path."""
    if isinstance(source_or_path, os.PathLike):
        path = os.fspath(source_or_path)
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    if isinstance(source_or_path, bytes):
        return source_or_path.decode("utf-8"), "<source>"
    if not isinstance(source_or_path, str):
        raise TypeError(f"tilec.compile expects source text or a path, not "
                        f"{type(source_or_path).__name__}")
    text = source_or_path
    looks_like_path = "\n" not in text and "{" not in text and len(text) < 4096
    if looks_like_path and (os.path.isfile(text) or text.endswith(".mlir")):
        with open(text, encoding="utf-8") as f:  # a missing .mlir file raises here
            return f.read(), text
    return text, "<source>"


def default_chip():
    """The chip of the current CUDA device (through torch), for
    ``chip=None``; ``ValueError`` when there is none."""
    try:
        return device_chip()[0]
    except Exception as e:  # no torch, no driver, no device
        raise ValueError(f"chip= is required when no CUDA device is visible ({e}); "
                         f"one of sm_80, sm_86, sm_89, sm_90, sm_90a") from e


def produced_outputs(emit, stages=False):
    """The outputs a compilation with ``emit`` produces (``stages=True``
    adds the NVVM-level MLIR of each kernel)."""
    if emit == "mlir":
        return frozenset({"mlir"})
    out = {"llvm", "ptx"}
    if emit in ("cubin", "header"):
        out.add("cubin")
    if emit == "header":
        out.add("header")
    if stages:
        out.add("mlir")
    return frozenset(out)


def _outputs_to_keep(keep, emit, stages):
    """The outputs a result holds: the emitted one, plus ``keep``."""
    produced = produced_outputs(emit, stages)
    if keep is None:
        return produced if stages else frozenset({emit})
    if isinstance(keep, str):
        if keep == "all":
            return produced
        keep = (keep,)
    wanted = set(keep)
    unknown = wanted - set(OUTPUTS)
    if unknown:
        raise ValueError(f"keep: unknown outputs {sorted(unknown)}; expected 'all' or some of "
                         f"{', '.join(OUTPUTS)}")
    missing = wanted - produced
    if missing:
        raise ValueError(f"keep: emit={emit!r}{' with stages=True' if stages else ''} does not "
                         f"produce {', '.join(sorted(missing))} (it produces "
                         f"{', '.join(o for o in OUTPUTS if o in produced)})")
    return frozenset(wanted | {emit})


def compile(source_or_path, chip=None, emit="cubin", stages=False, cache_dir=None, *,
            keep=None, opt_level=3, cubin_arch=None, cuda_path=None, cache=True, specialize=None,
            cache_max_bytes=None, fast_math=False):
    """Compiles every ``tile.kernel`` of a tile program.

    ``source_or_path``: program text, or a path (``str`` ending in ``.mlir``
    or any ``os.PathLike``). ``chip``: ``sm_80``, ``sm_86``, ``sm_89``,
    ``sm_90`` or ``sm_90a`` (default: the current CUDA device's).
    ``emit``: last stage, ``mlir``, ``llvm``, ``ptx``, ``cubin`` or
    ``header`` (the AOT C header of ``tilec --emit=header``, embedding the
    cubin). ``keep``: outputs to hold besides the emitted one, some of
    ``mlir`` (needs ``stages=True`` unless emitted), ``llvm``, ``ptx``,
    ``cubin``, ``header``, or ``"all"``; by default a result holds only the
    emitted output and the metadata. ``stages``: record the IR after every
    pass (and, without ``keep=``, keep every output). ``cache_dir``: cache root (default
    ``$TILEC_CACHE_DIR`` or ``~/.cache/tilec``); ``cache=False`` bypasses
    the cache; ``cache_max_bytes``: its size limit (default
    ``$TILEC_CACHE_MAX_BYTES`` or 1 GiB; 0: none), least recently used
    entries go first. ``opt_level``, ``cubin_arch`` (ptxas target, e.g.
    ``sm_90`` for sm_80 PTX on Hopper) and ``cuda_path`` (toolkit root) are
    passed to the compiler. ``specialize``: kernel arguments to specialize
    on, ``{name: tensor or int}`` (or the hints of
    :func:`tilec.specialization`): aligned pointers get ``tile.align``,
    integers ``tile.divisibility`` (see :mod:`tilec.specialize`); the
    assumptions go into each kernel's metadata and are checked at launch.
    ``fast_math``: approximate divides (``div.full.f32``), square roots and
    math functions in every kernel, as ``tilec --fast-math`` and a kernel's
    ``fast_math`` keyword do (default: IEEE, MLIR's semantics; see
    docs/writing-a-kernel.md, "Fast math").

    Returns a :class:`CompileResult` (the same outputs whether compiled or
    read from the cache); raises :class:`CompileError` with the compiler's
    diagnostics, or :class:`tilec.CompilerNotFoundError` when
    ``libtilec-c.so`` is not available.
    """
    if emit not in EMITS:
        raise ValueError(f"emit must be one of {', '.join(EMITS)}, not {emit!r}")
    kept = _outputs_to_keep(keep, emit, bool(stages))
    text, source_name = _read_source(source_or_path)
    if specialize:
        text = specialize_source(text, specialize)
    if chip is None:
        chip = default_chip()
    library = _capi.load_library()
    flags = {"emit": emit, "stages": bool(stages), "O": int(opt_level),
             "cubin_arch": cubin_arch or "", "cuda_path": os.fspath(cuda_path) if cuda_path else "",
             "fast_math": bool(fast_math)}
    key = make_key(text, chip, flags, library.version, library.fingerprint)

    store = None
    if cache:
        store = FileCache(cache_dir if cache_dir is not None else default_cache_dir(),
                          max_bytes=cache_max_bytes)
        cached = _cached_result(store, key, chip, emit, kept)
        if cached is not None:
            return cached

    raw = library.compile(text, chip=chip, emit=emit, opt_level=opt_level,
                          cuda_path=cuda_path, cubin_arch=cubin_arch, source_name=source_name,
                          stages=stages, fast_math=fast_math)
    if not raw.succeeded:
        raise CompileError(raw.diagnostics, source_name)
    kernels = [CompiledKernel(k.name, k.metadata, ptx=k.ptx, cubin=k.cubin, llvm=k.llvm,
                              mlir=k.mlir, header=k.header) for k in raw.kernels]
    stored = kept
    if store is not None:
        # An entry holding other outputs is replaced by one holding both.
        previous = store.peek(key)
        if previous is not None:
            stored = kept | (previous.kept & produced_outputs(emit, bool(stages)))
    full = CompileResult(kernels, raw.stages, chip, emit, key=key, kept=stored)
    cache_path = None
    if store is not None:
        try:
            cache_path = _store(store, key, full, chip, library).path
        except OSError as e:
            warnings.warn(f"tilec: cannot write the compilation cache {store.root}: {e}",
                          RuntimeWarning, stacklevel=2)
    return _trimmed(full, kept, cache_path)


def _cached_result(store, key, chip, emit, kept):
    """The result of a compilation held in ``store`` under ``key`` with the
    outputs ``kept``, or ``None`` (a miss; also an entry removed or damaged
    while it was read)."""
    entry = store.get(key, need=kept)
    if entry is None:
        return None
    try:
        return _result_from_entry(entry, chip, emit, key, kept)
    except (OSError, ValueError, KeyError, TypeError):
        return None  # removed or damaged meanwhile: a miss


def _trimmed(result, kept, cache_path):
    """``result`` holding only the outputs in ``kept``."""
    kernels = [CompiledKernel(k.name, k.metadata_json,
                              **{a: getattr(k, a) for a in OUTPUTS if a in kept})
               for k in result]
    return CompileResult(kernels, result.stages, result.chip, result.emit, key=result.key,
                         cache_path=cache_path, kept=kept)


def _store(store, key, result, chip, library):
    """Writes the outputs ``result.kept`` of ``result`` into the cache."""
    files = {}
    kernels = []
    for index, kernel in enumerate(result):
        stem = file_stem(index, kernel.name)
        entry_files = {"json": stem + ".json"}
        files[stem + ".json"] = kernel.metadata_json
        for attr, ext in ARTIFACT_EXTENSIONS.items():
            data = getattr(kernel, attr)
            if attr in result.kept and data is not None:
                entry_files[attr] = stem + ext
                files[stem + ext] = data
        kernels.append({"name": kernel.name, "files": entry_files})
    stages = []
    for index, (name, ir) in enumerate(result.stages):
        relative = os.path.join("stages", f"{index:03d}.mlir")
        files[relative] = ir
        stages.append({"name": name, "file": relative})
    manifest = {"chip": chip, "emit": result.emit, "tilec_version": library.version,
                "kept": sorted(result.kept), "kernels": kernels, "stages": stages}
    return store.put(key, manifest, files, compiler=library.fingerprint)


def _result_from_entry(entry, chip, emit, key, kept):
    """A :class:`CompileResult` holding the outputs ``kept`` of a cache entry."""
    kernels = []
    for k in entry.manifest["kernels"]:
        files = k["files"]
        artifacts = {attr: entry.read(files[attr], binary=(attr == "cubin"))
                     for attr in OUTPUTS if attr in kept and attr in files}
        kernels.append(CompiledKernel(k["name"], entry.read(files["json"]), **artifacts))
    stages = [(s["name"], entry.read(s["file"])) for s in entry.manifest.get("stages", [])]
    return CompileResult(kernels, stages, chip, emit, key=key, from_cache=True,
                         cache_path=entry.path, kept=kept)
