"""Scheduling test runs: how many go at once, on which executor (threads or Ray), how long each may
take (the time-limit policy), the reference
runs of untouched code, and verdicts shared between runs.
"""
