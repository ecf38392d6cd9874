"""Scoring: similarity of an answer to the ground truth, DevBench's metrics, pass@k and the statistics
behind every comparison. Pure functions of stored records.
"""
