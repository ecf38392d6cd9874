class DataValidator:
    def __init__(self, schema):
        self.schema = schema

    def validate(self, data):
        """Validate data against the schema."""
        errors = []
        for field, field_type in self.schema.items():
            if field not in data:
                errors.append(f"Missing field: {field}")
            elif not isinstance(data[field], field_type):
                errors.append(f"Incorrect type for field: {field}")
            else:
                if isinstance(data[field], str) and not data[field].strip():
                    errors.append(f"Empty field: {field}")
        return errors

schema = {
    "name": str,
    "age": int,
    "email": str
}

validator = DataValidator(schema)
data = {
    "name": "John Doe",
    "age": 30,
    "email": "john.doe@example.com"
}

errors = validator.validate(data)
assert errors == [], f"Unexpected errors: {errors}"

invalid_data = {
    "name": "John Doe",
    "age": "thirty",
    "email": "john.doe@example.com"
}

errors = validator.validate(invalid_data)
assert "Incorrect type for field: age" in errors, f"Expected type error for age, got: {errors}"
assert len(errors) == 1, f"Expected one error, got: {len(errors)}"

invalid_data = {
    "age": 30,
    "email": "john.doe@example.com"
}

errors = validator.validate(invalid_data)
assert "Missing field: name" in errors, f"Expected missing field error for name, got: {errors}"
assert len(errors) == 1, f"Expected one error, got: {len(errors)}"
