"""scripts/common: modules shared by scripts of several folders, bench/ and the tests (scripts/README.md)."""
