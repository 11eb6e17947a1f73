"""``exlint import``: input-model YAML documents from what Exchange admins export.

Sources: PowerShell CLIXML (``Get-… | Export-Clixml``), ``EdgeTransport.exe.config``
and regedit ``.reg`` exports. See ``docs/importers.md``.

This package is imported by the CLI at start-up (for ``import_command``), so the
modules it imports eagerly stay light: the XML, YAML and merging code is imported
only when an import runs.
"""
