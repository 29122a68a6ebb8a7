"""``python -m tilec``: the compilation cache from the command line.

    python -m tilec cache info  [--cache-dir DIR] [--json]
    python -m tilec cache clear [--cache-dir DIR]
    python -m tilec cache prune [--cache-dir DIR]
    python -m tilec --version

``info`` prints the cache's path, entry count, size and size limit; ``clear``
removes every entry; ``prune`` removes the entries of other compiler builds
(when the compiler library can be loaded) and damaged ones, then brings the
cache under its limit. The cache is ``--cache-dir``, else
``$TILEC_CACHE_DIR``, else ``$XDG_CACHE_HOME/tilec`` or ``~/.cache/tilec``;
its limit ``$TILEC_CACHE_MAX_BYTES`` (default 1 GiB, 0: none).
"""

import argparse
import json
import sys

from . import __version__, cache


def _size(n):
    """``n`` bytes, readable: ``3.4 MiB (3565158 bytes)``."""
    value, unit = float(n), "bytes"
    for next_unit in ("KiB", "MiB", "GiB", "TiB"):
        if value < 1024:
            break
        value, unit = value / 1024, next_unit
    shown = f"{int(value)} bytes" if unit == "bytes" else f"{value:.1f} {unit} ({n} bytes)"
    return shown


def _info(args):
    store = cache.FileCache(args.cache_dir or cache.default_cache_dir())
    info = store.info()
    if args.json:
        print(json.dumps(info, sort_keys=True))
        return 0
    print(f"path:    {info['path']}")
    print(f"entries: {info['entries']}")
    print(f"size:    {_size(info['bytes'])}")
    limit = _size(info["max_bytes"]) if info["max_bytes"] else "none"
    print(f"limit:   {limit} (${cache.MAX_BYTES_VARIABLE})")
    return 0


def _clear(args):
    root = args.cache_dir or cache.default_cache_dir()
    removed, freed = cache.clear(root)
    print(f"removed {removed} entries ({_size(freed)}) from {cache.FileCache(root, 0).root}")
    return 0


def _prune(args):
    store = cache.FileCache(args.cache_dir or cache.default_cache_dir())
    from . import _capi
    try:
        fingerprint = _capi.load_library().fingerprint
    except _capi.CompilerNotFoundError:
        fingerprint = None
        print("note: no compiler library, so entries of other compiler builds are kept "
              "(set TILEC_LIBRARY to remove them)", file=sys.stderr)
    removed, freed = store.prune(compiler=fingerprint)
    print(f"removed {removed} entries ({_size(freed)}) from {store.root}")
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tilec",
                                     description="tilec's compilation cache.")
    parser.add_argument("--version", action="version", version=f"tilec {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="cache")
    cache_parser = commands.add_parser("cache", help="the on-disk compilation cache")
    actions = cache_parser.add_subparsers(dest="action", metavar="{info,clear,prune}")
    for name, fn, text in (("info", _info, "path, entry count, size and limit"),
                           ("clear", _clear, "remove every entry"),
                           ("prune", _prune, "remove stale and damaged entries, then "
                                             "enforce the size limit")):
        p = actions.add_parser(name, help=text, description=text)
        p.add_argument("--cache-dir", help="the cache (default: $TILEC_CACHE_DIR, else "
                                           "~/.cache/tilec)")
        if name == "info":
            p.add_argument("--json", action="store_true", help="print a JSON object")
        p.set_defaults(run=fn)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if getattr(args, "run", None) is None:
        cache_parser.print_help()
        return 2
    try:
        return args.run(args)
    except (OSError, ValueError) as e:
        print(f"python -m tilec: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
