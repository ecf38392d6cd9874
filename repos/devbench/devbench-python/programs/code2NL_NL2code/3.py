# This function calculates the factorial of a number recursively.
def factorial(n):
    if n == 0:
        return 1
    else:
        return n * factorial(n-1)
# Test the factorial function
result = factorial(5)
assert result == 120, f"Expected 120 but got {result}"

result = factorial(0)
assert result == 1, f"Expected 1 but got {result}"

# Cleanup code (if any) would go here
