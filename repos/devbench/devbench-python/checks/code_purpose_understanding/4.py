assert filtered_data == [30, 40, 50], f"Expected [30, 40, 50], got {filtered_data}"
assert average == 30.0, f"Expected 30.0, got {average}"
assert transformed_data == [20, 40, 60, 80, 100], f"Expected [20, 40, 60, 80, 100], got {transformed_data}"
