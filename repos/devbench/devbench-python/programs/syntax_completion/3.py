def process_data(data):
    try:
        result = []
        for item in data:
            try:
                if item < 0:
                    raise ValueError("Negative value")
                elif item == 0:
                    raise ZeroDivisionError("Zero value")
                else:
                    result.append(10 / item)
            except ValueError as ve:
                print(f"ValueError occurred: {ve}")
            except ZeroDivisionError as ze:
                print(f"ZeroDivisionError occurred: {ze}")
            else:
                print(f"Processed item: {item}")
            finally:
                print(f"Finished processing item: {item}")
        return result
    finally:
        print("Processing complete")

# Example usage:
data = [10, -1, 0, 5]
processed_data = process_data(data)
print(processed_data)
