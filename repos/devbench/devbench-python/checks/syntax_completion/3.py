data = [10, -1, 0, 5]
processed_data = process_data(data)
assert processed_data == [1.0, 2.0], f"Expected [1.0, 2.0] but got {processed_data}"
