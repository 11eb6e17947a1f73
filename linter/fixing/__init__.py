"""Safe autofix (`exlint check --fix` / `--diff`).

A rule pack declares a fix with a small vocabulary (``spec.py``); the fixer
(``engine.py``) turns each fixable finding into one edit of the YAML text at
the exact path the finding reports (``yamltext.py``), verifies the result by
re-parsing it, re-lints, repeats for a bounded number of passes, and writes
files atomically (``files.py``). See docs/autofix.md.

This package's ``__init__`` stays import-free: ``linter.policy.packs`` imports
``linter.fixing.spec`` on every start-up.
"""
