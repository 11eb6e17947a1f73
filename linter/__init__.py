"""exlint: a configuration and policy linter for Exchange public-folder replication
and transport settings kept as YAML."""

__version__ = "0.1.0"
