import os

def read_file(file_path):
    try:
        with open(file_path, 'r') as file:
            return file.read()
    except FileNotFoundError:
        return ''
    finally:
        if os.path.exists(file_path):
            os.remove(file_path)

# Test cases
try:
    with open('test.txt', 'w') as f:
        f.write('Hello, world!')
    content = read_file('test.txt')
    assert content == 'Hello, world!'
except Exception as e:
    assert False, f'Exception occurred: {e}'