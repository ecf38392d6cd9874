"""Reports from the store alone: strata, statistics, comparisons, the error taxonomy, similarity
metrics, noise recovery, and their terminal, JSON, CSV and HTML forms."""
