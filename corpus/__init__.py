"""The corpus of user programs (corpus/README.md): each entry is a module of
this package, imported by bench/corpus.py (``python3 -m bench.corpus``)."""
