# -*- Python -*-
# lit configuration of the tilec regression tests.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILEC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tilec_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP", "CUDA_HOME"])
llvm_config.use_default_substitutions()

# Keep captured FileCheck variables local to each CHECK-LABEL block.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

# `make sanitize`: ASan/UBSan findings fail the test (the tool exits with an
# error); the ASan runtime is preloaded so that instrumented libraries load
# into uninstrumented hosts. Leak checking is off: LLVM's and MLIR's
# process-lifetime registries are never freed.
if getattr(config, "tilec_sanitize", False):
    import subprocess
    libasan = subprocess.run(["gcc", "-print-file-name=libasan.so"],
                             capture_output=True, text=True).stdout.strip()
    config.environment["LD_PRELOAD"] = libasan
    # use_sigaltstack=0: LLVM's crash handler installs its own alternate
    # signal stack in tilec's worker thread, which ASan then fails to unmap.
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs when
    # its inline code is built with ASan (ours) but not unpoisons them in
    # libMLIR.so (uninstrumented), which reads as use-after-poison.
    config.environment["ASAN_OPTIONS"] = (
        "detect_leaks=0:detect_container_overflow=0:abort_on_error=1:"
        "allocator_may_return_null=1:use_sigaltstack=0:"
        "allow_user_poisoning=0")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    config.available_features.add("sanitize")

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tilec_tools_dir, append_path=True)

# ptxas: every PTX the tests generate is assembled, so a missing ptxas is a
# configuration error, not a reason to skip (set TILEC_PTXAS to point at one).
def find_ptxas():
    explicit = os.environ.get("TILEC_PTXAS")
    if explicit:
        return explicit
    home = os.environ.get("CUDA_HOME")
    if home and os.access(os.path.join(home, "bin", "ptxas"), os.X_OK):
        return os.path.join(home, "bin", "ptxas")
    found = shutil.which("ptxas")
    if found:
        return found
    default = "/usr/local/cuda/bin/ptxas"
    return default if os.access(default, os.X_OK) else None

ptxas = find_ptxas()
if not ptxas:
    lit_config.fatal("ptxas not found: install the CUDA toolkit, set CUDA_HOME "
                     "or TILEC_PTXAS")
config.substitutions.append(("%ptxas", ptxas))
config.substitutions.append(("%cuda_root", os.path.dirname(os.path.dirname(ptxas))))
config.substitutions.append(("%examples", os.path.join(config.tilec_src_root, "examples")))
config.substitutions.append(("%docs_built", os.path.join(config.tilec_obj_root, "docs")))
config.substitutions.append(("%docs_reference",
                             os.path.join(config.tilec_src_root, "docs", "reference")))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%cc", shutil.which("gcc") or shutil.which("cc") or "cc"))
config.substitutions.append(("%tilec_lib", os.path.join(config.tilec_obj_root, "lib")))
config.substitutions.append(("%tilec_include", os.path.join(config.tilec_src_root, "include")))
# The stock mlir-opt of the LLVM installation and the tilec plugin it loads.
config.substitutions.append(("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(
    ("%tilec_plugin", os.path.join(config.tilec_obj_root, "lib", "libtilec-plugin.so")))

tool_dirs = [config.tilec_tools_dir, config.llvm_tools_dir]
tools = ["tilec", "tilec-opt", "mlir-opt"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
