from functools import wraps
import time

# Decorator to measure the execution time of a function

def timeit(func):
    @wraps(func)
    def wrapper(*args, **kwargs):
        start_time = time.time()
        result = func(*args, **kwargs)
        end_time = time.time()
        print(f"Function {func.__name__} took {end_time - start_time:.4f} seconds")
        return result
    return wrapper

@timeit
def slow_function(seconds):
    time.sleep(seconds)
    return f"Slept for {seconds} seconds"

@timeit
def fast_function():
    return "Done quickly"

# Testing the decorators
result_slow = slow_function(2)
result_fast = fast_function()
# Check the results
assert 'Slept for 2 seconds' in result_slow
assert result_fast == 'Done quickly'
# Clean up resources if any (not needed in this example)
print("All assertions passed.")
