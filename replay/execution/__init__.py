"""Execution: putting an answer into a work copy, running the repository's tests in the sandbox,
and classifying what happened.
"""
