schema = {
    "name": str,
    "age": int,
    "email": str
}

validator = DataValidator(schema)
data = {
    "name": "",
    "age": 30,
    "email": "john.doe@example.com"
}

errors = validator.validate(data)
assert "Empty field: name" in errors, f"Expected empty field error for name, got: {errors}"
assert len(errors) == 1, f"Expected one error, got: {len(errors)}"
