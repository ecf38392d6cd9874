assert employee.salary == 55000, f"Expected salary to be 55000, but got {employee.salary}"

try:
    employee.give_raise(-1000)
except ValueError as e:
    assert str(e) == "Raise amount must be positive", f"Unexpected exception message: {str(e)}"
else:
    assert False, "Expected ValueError was not raised"

print("All assertions passed.")