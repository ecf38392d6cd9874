import os
import tempfile

class FileManager:
    def __init__(self, filename: str):
        self.filename = filename

    def __enter__(self):
        self.file = open(self.filename, 'w')
        return self.file

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.file.close()
        if exc_type is not None:
            print(f"Exception: {exc_val}")

with tempfile.NamedTemporaryFile(delete=False) as tmp:
    filename = tmp.name

try:
    with FileManager(filename) as f:
        f.write('Hello, World!')
        raise ValueError('Test error')
except ValueError as e:
    print(f"Caught ValueError: {e}")
except IOError as e:
    print(f"Caught IOError: {e}")
else:
    print("No exceptions occurred.")
finally:
    os.remove(filename)
    print("File cleaned up.")
