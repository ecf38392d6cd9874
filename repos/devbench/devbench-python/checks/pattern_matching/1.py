assert mean == 3
assert median == 3
