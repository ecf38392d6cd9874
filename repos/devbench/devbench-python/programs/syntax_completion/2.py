import os
import tempfile

# Function to demonstrate nested control structures

def nested_control_example(value):
    with tempfile.TemporaryDirectory() as tempdir:
        try:
            if value > 0:
                for i in range(value):
                    if i % 2 == 0:
                        with open(os.path.join(tempdir, f'tempfile_{i}.txt'), 'w') as f:
                            f.write(f'even_{i}')
                    else:
                        with open(os.path.join(tempdir, f'tempfile_{i}.txt'), 'w') as f:
                            f.write(f'odd_{i}')
            else:
                raise ValueError('Value must be positive')
        except ValueError as e:
            print(f'Error: {e}')
        except Exception as e:
            print(f'Unexpected error: {e}')
        else:
            print('Successfully processed all files')
        finally:
            print('Cleanup if needed')

# Test cases
nested_control_example(3)
nested_control_example(-1)

assert os.path.exists(tempfile.gettempdir()), 'Temp directory should exist'
