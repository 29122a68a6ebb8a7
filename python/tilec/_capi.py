"""ctypes bindings of ``libtilec-c.so`` (``include/tilec-c/Compiler.h``).

Only the self-contained compile entry point is bound: source text and
options in, per-kernel artifacts, stage IR and diagnostics out. The library
is located, in order, through ``$TILEC_LIBRARY`` (the file, or a directory
holding it), next to this package, and, when the package is imported from a
source checkout, in its build directories (``build/lib``, then
``build-*/lib``); an installed package (``pip install ./python``) needs
``$TILEC_LIBRARY``. Nothing is loaded until the
first compilation, so the launch-only side of the package works on machines
without the compiler.
"""

import ctypes
import glob
import hashlib
import os
import threading

LIBRARY_NAME = "libtilec-c.so"

#: Layout version of the C structs below (``TILEC_C_API_VERSION``).
API_VERSION = 3

#: ``TilecEmit`` values by stage name.
EMIT_STAGES = {"mlir": 0, "llvm": 1, "ptx": 2, "cubin": 3, "header": 4}

# TilecArtifact values.
(_ARTIFACT_MLIR, _ARTIFACT_LLVM, _ARTIFACT_PTX, _ARTIFACT_CUBIN, _ARTIFACT_METADATA,
 _ARTIFACT_HEADER) = range(6)

# TilecStatus values.
_SUCCESS, _FAILURE, _INVALID_ARGUMENT = range(3)


class CompilerNotFoundError(RuntimeError):
    """``libtilec-c.so`` cannot be found or loaded (no compiler on this
    machine); precompiled artifacts can still be launched."""


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("length", ctypes.c_size_t)]

    def to_bytes(self):
        return ctypes.string_at(self.data, self.length) if self.length else b""

    def to_str(self):
        return self.to_bytes().decode("utf-8", errors="replace")


class _CompileOptions(ctypes.Structure):
    _fields_ = [
        ("chip", ctypes.c_char_p),
        ("emit", ctypes.c_int),
        ("optLevel", ctypes.c_uint),
        ("cudaPath", ctypes.c_char_p),
        ("cubinArch", ctypes.c_char_p),
        ("sourceName", ctypes.c_char_p),
        ("dumpStages", ctypes.c_bool),
        ("fastMath", ctypes.c_bool),
    ]


class RawKernel:
    """Artifacts of one kernel as the library returned them (``None`` for a
    stage that was not produced)."""

    __slots__ = ("name", "mlir", "llvm", "ptx", "cubin", "metadata", "header")

    def __init__(self, name, mlir, llvm, ptx, cubin, metadata, header=None):
        self.name, self.mlir, self.llvm = name, mlir, llvm
        self.ptx, self.cubin, self.metadata, self.header = ptx, cubin, metadata, header


class RawResult:
    """Outcome of one ``tilecCompile`` call, copied out of the C result."""

    def __init__(self, succeeded, diagnostics, kernels, stages):
        self.succeeded = succeeded
        self.diagnostics = diagnostics
        self.kernels = kernels
        self.stages = stages


def _package_root():
    """The directory of the ``tilec`` package."""
    return os.path.dirname(os.path.abspath(__file__))


def candidate_paths():
    """Where the library is looked for, in order."""
    paths = []
    explicit = os.environ.get("TILEC_LIBRARY")
    if explicit:
        paths.append(os.path.join(explicit, LIBRARY_NAME) if os.path.isdir(explicit) else explicit)
        return paths  # an explicit choice is never silently replaced
    return paths + checkout_paths(LIBRARY_NAME)


def source_checkout():
    """The root of the source checkout the package is imported from
    (``<root>/python/tilec``), or ``None`` for an installed package."""
    parent = os.path.dirname(_package_root())
    repo = os.path.dirname(parent)
    if (os.path.basename(parent) == "python"
            and os.path.isfile(os.path.join(repo, "include", "tilec-c", "Compiler.h"))):
        return repo
    return None


def checkout_paths(name):
    """Where a tilec library `name` lies without an explicit choice: the
    package directory, then ``build/lib`` (and ``build-*/lib``, newest
    first) of the source checkout the package is imported from, if any."""
    paths = [os.path.join(_package_root(), name)]
    repo = source_checkout()
    if repo is None:
        return paths
    paths.append(os.path.join(repo, "build", "lib", name))
    others = glob.glob(os.path.join(repo, "build-*", "lib", name))
    paths.extend(sorted(others, key=os.path.getmtime, reverse=True))
    return paths


class Library:
    """A loaded ``libtilec-c.so``."""

    def __init__(self, path):
        self.path = path
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise CompilerNotFoundError(f"cannot load the tilec compiler library {path}: {e}") from e
        lib.tilecGetAPIVersion.restype = ctypes.c_uint
        lib.tilecGetAPIVersion.argtypes = []
        api = lib.tilecGetAPIVersion()
        if api != API_VERSION:
            raise CompilerNotFoundError(
                f"{path} implements tilec C API version {api}; this package needs {API_VERSION}")
        lib.tilecGetVersion.restype = ctypes.c_char_p
        lib.tilecGetVersion.argtypes = []
        lib.tilecGetSupportedChips.restype = ctypes.c_char_p
        lib.tilecGetSupportedChips.argtypes = []
        lib.tilecCompileOptionsInit.restype = None
        lib.tilecCompileOptionsInit.argtypes = [ctypes.POINTER(_CompileOptions)]
        lib.tilecCompile.restype = ctypes.c_int
        lib.tilecCompile.argtypes = [ctypes.c_char_p, ctypes.c_size_t,
                                     ctypes.POINTER(_CompileOptions), ctypes.POINTER(ctypes.c_void_p)]
        lib.tilecResultDestroy.restype = None
        lib.tilecResultDestroy.argtypes = [ctypes.c_void_p]
        lib.tilecResultSucceeded.restype = ctypes.c_bool
        lib.tilecResultSucceeded.argtypes = [ctypes.c_void_p]
        lib.tilecResultGetDiagnostics.restype = _StringRef
        lib.tilecResultGetDiagnostics.argtypes = [ctypes.c_void_p]
        for fn in ("tilecResultGetNumKernels", "tilecResultGetNumStages"):
            getattr(lib, fn).restype = ctypes.c_size_t
            getattr(lib, fn).argtypes = [ctypes.c_void_p]
        for fn in ("tilecResultGetKernelName", "tilecResultGetStageName", "tilecResultGetStageIR"):
            getattr(lib, fn).restype = _StringRef
            getattr(lib, fn).argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        lib.tilecResultGetKernelArtifact.restype = _StringRef
        lib.tilecResultGetKernelArtifact.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        self._lib = lib
        self.version = lib.tilecGetVersion().decode()
        self.supported_chips = tuple(
            c.strip() for c in lib.tilecGetSupportedChips().decode().split(",") if c.strip())
        self._fingerprint = None

    @property
    def fingerprint(self):
        """SHA-256 of the library file: part of every cache key, so that a
        rebuilt compiler never serves artifacts of the previous build."""
        if self._fingerprint is None:
            h = hashlib.sha256()
            with open(self.path, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
            self._fingerprint = h.hexdigest()
        return self._fingerprint

    def compile(self, source, *, chip, emit, opt_level=3, cuda_path=None, cubin_arch=None,
                source_name=None, stages=False, fast_math=False):
        """Runs ``tilecCompile``; returns a :class:`RawResult` (failures
        included, with their diagnostics)."""
        data = source.encode("utf-8") if isinstance(source, str) else bytes(source)
        options = _CompileOptions()
        self._lib.tilecCompileOptionsInit(ctypes.byref(options))
        options.chip = chip.encode() if chip else None
        options.emit = EMIT_STAGES[emit]
        options.optLevel = int(opt_level)
        options.cudaPath = os.fsencode(cuda_path) if cuda_path else None
        options.cubinArch = cubin_arch.encode() if cubin_arch else None
        options.sourceName = os.fsencode(source_name) if source_name else None
        options.dumpStages = bool(stages)
        options.fastMath = bool(fast_math)
        handle = ctypes.c_void_p()
        status = self._lib.tilecCompile(data, len(data), ctypes.byref(options), ctypes.byref(handle))
        if status == _INVALID_ARGUMENT or not handle.value:
            raise RuntimeError(f"tilecCompile rejected its arguments (status {status})")
        try:
            return self._read_result(handle)
        finally:
            self._lib.tilecResultDestroy(handle)

    def _read_result(self, handle):
        lib = self._lib
        kernels = []
        for i in range(lib.tilecResultGetNumKernels(handle)):
            def artifact(kind, binary=False):
                ref = lib.tilecResultGetKernelArtifact(handle, i, kind)
                if not ref.length:
                    return None
                return ref.to_bytes() if binary else ref.to_str()
            kernels.append(RawKernel(
                name=lib.tilecResultGetKernelName(handle, i).to_str(),
                mlir=artifact(_ARTIFACT_MLIR), llvm=artifact(_ARTIFACT_LLVM),
                ptx=artifact(_ARTIFACT_PTX), cubin=artifact(_ARTIFACT_CUBIN, binary=True),
                metadata=artifact(_ARTIFACT_METADATA), header=artifact(_ARTIFACT_HEADER)))
        stages = [(lib.tilecResultGetStageName(handle, i).to_str(),
                   lib.tilecResultGetStageIR(handle, i).to_str())
                  for i in range(lib.tilecResultGetNumStages(handle))]
        return RawResult(bool(lib.tilecResultSucceeded(handle)),
                         lib.tilecResultGetDiagnostics(handle).to_str(), kernels, stages)


_lock = threading.Lock()
_library = None


def load_library():
    """The process-wide :class:`Library`; raises
    :class:`CompilerNotFoundError` if none can be loaded."""
    global _library
    with _lock:
        if _library is not None:
            return _library
        tried = candidate_paths()
        for path in tried:
            if os.path.isfile(path):
                _library = Library(path)
                return _library
        message = ("the tilec compiler library (libtilec-c.so) was not found; looked in: "
                   + ", ".join(tried) + ". ")
        if os.environ.get("TILEC_LIBRARY"):
            message += "Point TILEC_LIBRARY at an existing libtilec-c.so (or its directory)"
        elif source_checkout() is None:
            message += (f"This tilec package is installed outside a source checkout "
                        f"({_package_root()}): set TILEC_LIBRARY to the libtilec-c.so of a "
                        f"tilec build (e.g. TILEC_LIBRARY=/path/to/tilec/build/lib/libtilec-c.so)")
        else:
            message += "Build it (ninja TilecCAPI) or set TILEC_LIBRARY to its path"
        raise CompilerNotFoundError(
            message + ", or load precompiled artifacts (TILEC_ARTIFACTS / artifacts=)")


def reset_library():
    """Forgets the loaded library so that the next compilation searches
    again (tests change ``$TILEC_LIBRARY``)."""
    global _library
    with _lock:
        _library = None
