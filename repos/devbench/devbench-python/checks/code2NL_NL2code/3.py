result = factorial(5)
assert result == 120, f"Expected 120 but got {result}"

result = factorial(0)
assert result == 1, f"Expected 1 but got {result}"
