"""Rule engines: ``local`` (Python, for hooks and CI) and ``spark`` (estates)."""
