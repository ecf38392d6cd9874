"""Scheduling test runs: how many go at once, on which executor (threads or Ray), the reference
runs of untouched code, and verdicts shared between runs.
"""
