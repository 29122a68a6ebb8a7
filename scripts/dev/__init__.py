"""scripts/dev: developer tools of this machine (scripts/README.md)."""
