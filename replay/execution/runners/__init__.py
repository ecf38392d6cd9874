"""Runners: warm, sandboxed test servers per language (pytest, JUnit) that run many test runs each."""
