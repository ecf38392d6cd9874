"""Configuration files and their typed schemas: ``simpilot.toml`` (a repository's manifest),
``models.toml`` (model names), and a run's configuration record.
"""
