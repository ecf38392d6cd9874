class Employee:
    def __init__(self, name, salary):
        self.name = name
        self.salary = salary

    def give_raise(self, amount):
        if amount < 0:
            raise ValueError("Raise amount must be positive")
        self.salary += amount

# Create an Employee instance
employee = Employee("John Doe", 50000)

# Give a raise to the employee
employee.give_raise(5000)
# Assert the new salary
assert employee.salary == 55000, f"Expected salary to be 55000, but got {employee.salary}"

# Negative raise should raise an exception
try:
    employee.give_raise(-1000)
except ValueError as e:
    assert str(e) == "Raise amount must be positive", f"Unexpected exception message: {str(e)}"
else:
    assert False, "Expected ValueError was not raised"

print("All assertions passed.")