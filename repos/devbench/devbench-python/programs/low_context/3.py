import functools

def log_execution(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        print(f'Executing {func.__name__}...')
        result = func(*args, **kwargs)
        print(f'{func.__name__} executed.')
        return result
    return wrapper

@log_execution
def add(a, b):
    return a + b



result = add(3, 5)

assert result == 8
