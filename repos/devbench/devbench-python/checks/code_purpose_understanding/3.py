user_manager.add_user(user1)

try:
    user_manager.add_user(user1)
except ValueError as e:
    assert str(e) == "User already exists"
else:
    assert False, "Expected ValueError was not raised"