assert manager.get_user('001') == {'name': 'Alice', 'age': 30}
assert manager.get_user('002') is None  # User '002' was removed
assert manager.get_user('003') == {'name': 'Charlie', 'age': 35}

# Clean up
manager = None