def find_max(nums):
    """Find the maximum value in a list of integers."""
    if not nums:
        raise ValueError('The list is empty')
    max_value = nums[0]
    for num in nums:
        if num > max_value:
            max_value = num
    return max_value

def test_find_max():
    # Test with a list of positive integers
    assert find_max([1, 2, 3, 4, 5]) == 5
    # Test with a list containing negative integers
    assert find_max([-10, -5, -1, -3]) == -1
    # Test with a list containing both positive and negative integers
    assert find_max([-10, 5, 0, 3]) == 5

    print("All tests passed.")

test_find_max()
