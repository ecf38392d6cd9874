assert validator.validate({'name': 'Jane Doe', 'age': 25, 'email': 'jane.doe@example.com'}) is None
try:
    validator.validate({'name': 'Jane Doe', 'age': 'twenty-five', 'email': 'jane.doe@example.com'})
except TypeError as e:
    assert str(e) == 'Incorrect type for key: age'
try:
    validator.validate({'name': 'Jane Doe', 'email': 'jane.doe@example.com'})
except ValueError as e:
    assert str(e) == 'Missing key: age'
