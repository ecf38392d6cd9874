"""Test environments: the interpreter that runs a repository's tests, built or found, and what it sees."""
