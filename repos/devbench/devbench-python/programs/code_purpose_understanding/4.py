class DataProcessor:
    def __init__(self, data):
        self.data = data

    def filter_data(self, threshold):
        """Filters data based on a threshold."""
        return [x for x in self.data if x > threshold]

    def compute_average(self):
        """Computes the average of the data."""
        if not self.data:
            raise ValueError("Data is empty")
        return sum(self.data) / len(self.data)

    def apply_transformation(self, transformation):
        """Applies a given transformation to the data."""
        return [transformation(x) for x in self.data]

# Example usage
processor = DataProcessor([10, 20, 30, 40, 50])
filtered_data = processor.filter_data(25)
average = processor.compute_average()
transformed_data = processor.apply_transformation(lambda x: x * 2)

# Assertions to verify correctness
assert filtered_data == [30, 40, 50], f"Expected [30, 40, 50], got {filtered_data}"
assert average == 30.0, f"Expected 30.0, got {average}"
assert transformed_data == [20, 40, 60, 80, 100], f"Expected [20, 40, 60, 80, 100], got {transformed_data}"

print("All assertions passed!")
