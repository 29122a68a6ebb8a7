"""Every Python file of the repository (the package, its tests, and the
GPU-side scripts and benchmarks that only run on a GPU machine) refers to
names that exist: pyflakes' undefined-name check, so that a script CI
cannot run still fails here when it reads a variable that is not there."""

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIRECTORIES = ("python", "scripts", "bench", "examples", "corpus")


def python_files():
    for directory in DIRECTORIES:
        for base, _, files in os.walk(os.path.join(ROOT, directory)):
            yield from (os.path.join(base, f) for f in sorted(files) if f.endswith(".py"))


def test_no_undefined_names():
    api = pytest.importorskip("pyflakes.api", reason="scripts/build/setup.sh installs python3-pyflakes")
    from pyflakes import messages
    from pyflakes.reporter import Reporter

    class Collect(Reporter):
        def __init__(self):
            super().__init__(None, None)
            self.found = []

        def flake(self, message):
            if isinstance(message, (messages.UndefinedName, messages.UndefinedLocal,
                                    messages.UndefinedExport)):
                self.found.append(str(message))

        def syntaxError(self, filename, msg, lineno, offset, text):
            self.found.append(f"{filename}:{lineno}: {msg}")

        def unexpectedError(self, filename, msg):
            self.found.append(f"{filename}: {msg}")

    reporter = Collect()
    files = list(python_files())
    assert len(files) > 20
    for path in files:
        api.checkPath(path, reporter)
    assert reporter.found == []
