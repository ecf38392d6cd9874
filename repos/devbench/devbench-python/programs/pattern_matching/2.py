import os

class DataValidator:
    def __init__(self, schema):
        self.schema = schema

    def validate(self, data):
        for key, value in self.schema.items():
            if key not in data:
                raise ValueError(f"Missing key: {key}")
            if not isinstance(data[key], value):
                raise TypeError(f"Incorrect type for key: {key}")

# Example usage
schema = {
    'name': str,
    'age': int,
    'email': str
}

validator = DataValidator(schema)
data = {
    'name': 'John Doe',
    'age': 30,
    'email': 'john.doe@example.com'
}

# Validate the data
try:
    validator.validate(data)
    print("Data is valid")
except (ValueError, TypeError) as e:
    print(f"Data validation error: {e}")

# Assertions
assert validator.validate({'name': 'Jane Doe', 'age': 25, 'email': 'jane.doe@example.com'}) is None

# Cleanup
try:
    os.remove('tempfile.txt')
except FileNotFoundError:
    pass