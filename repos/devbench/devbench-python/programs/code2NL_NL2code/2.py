def calculate_factorial(n):
    """Calculates the factorial of a given number n."""
    if n < 0:
        raise ValueError("Factorial is not defined for negative numbers")
    elif n == 0:
        return 1
    else:
        return n * calculate_factorial(n - 1)


try:
    assert calculate_factorial(5) == 120
    assert calculate_factorial(0) == 1
    assert calculate_factorial(3) == 6
    assert calculate_factorial(1) == 1
    # Test for negative input
    try:
        calculate_factorial(-1)
    except ValueError as e:
        assert str(e) == "Factorial is not defined for negative numbers"
finally:
    pass  # Cleanup code can be added here if needed