assert find_max([1, 2, 3, 4, 5]) == 5
assert find_max([-10, -5, -1, -3]) == -1
assert find_max([-10, 5, 0, 3]) == 5
try:
    find_max([])
except ValueError as e:
    assert str(e) == 'The list is empty'