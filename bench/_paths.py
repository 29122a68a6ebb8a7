"""Where the repository is, for the scripts and benchmarks run from a checkout
(scripts/README.md). Each script of scripts/gpu, scripts/build, scripts/dev
and bench/ starts with

    from _paths import ROOT  # noqa: E402  (puts the checkout on sys.path)

(or `import _paths` where it needs no ROOT).
Python finds this file beside the script (the script's directory is
sys.path[0]); the four copies are identical (python/tests/test_script_paths.py
checks it). ROOT is the repository root: the nearest directory above this file
that holds python/tilec. The import puts on sys.path, in this order, ahead of
what was there: python/ (the tilec package of this checkout), bench/ (the
benchmark modules), scripts/common/ (helpers shared by scripts, benchmarks and
tests), scripts/gpu/, scripts/build/, scripts/dev/, then examples/ (its
Python checks), so that a script imports any of their modules by its plain
name (import attention_check, import block_programs, from artifact_record
import stamp_commit) wherever it is run from. corpus/ is not among them: its
entries' names (bmm, rope, ...) would shadow bench's; bench/corpus.py puts it
first itself. Nothing else happens on import.
"""

import os
import sys


def _find_root():
    here = os.path.dirname(os.path.abspath(__file__))
    directory = here
    while not os.path.isdir(os.path.join(directory, "python", "tilec")):
        parent = os.path.dirname(directory)
        if parent == directory:
            raise ImportError(f"no python/tilec in a directory above {here}")
        directory = parent
    return directory


ROOT = _find_root()
PATHS = [os.path.join(ROOT, *sub.split("/")) for sub in
         ("python", "bench", "scripts/common", "scripts/gpu", "scripts/build", "scripts/dev",
          "examples")]
sys.path[:0] = [p for p in PATHS if p not in sys.path]
