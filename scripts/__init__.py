"""The helper scripts of tilec as one package (scripts/README.md).

Every script runs from the repository root as a module,
``python3 -m scripts.<folder>.<name> ...`` (``bench/``'s as
``python3 -m bench.<name>``), and imports the others by their package
names (``from scripts.harness import timing``, ``from bench import
block_programs``): no script edits ``sys.path`` and no script needs a
``PYTHONPATH``.

This file is the one bootstrap: importing the package puts ``python/`` (the
tilec package of this checkout) first on ``sys.path``, so that ``import
tilec`` finds the checkout's package and not an installed one. ``ROOT`` is
the repository root. Nothing else happens on import.
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON_DIR = os.path.join(ROOT, "python")
if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)
