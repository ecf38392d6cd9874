class User:
    def __init__(self, username, email):
        self.username = username
        self.email = email

    def __str__(self):
        return f"User(username={self.username}, email={self.email})"

class UserManager:
    def __init__(self):
        self.users = {}

    def add_user(self, user):
        if user.username in self.users:
            raise ValueError("User already exists")
        self.users[user.username] = user

    def get_user(self, username):
        if username not in self.users:
            return None
        return self.users[username]

    def remove_user(self, username):
        if username in self.users:
            del self.users[username]

# Test cases to verify the functionality
user_manager = UserManager()
user1 = User("john_doe", "john@example.com")
user2 = User("jane_doe", "jane@example.com")

# Adding users
user_manager.add_user(user1)
user_manager.add_user(user2)

# Retrieving and verifying users
retrieved_user1 = user_manager.get_user("john_doe")
retrieved_user2 = user_manager.get_user("jane_doe")

assert str(retrieved_user1) == "User(username=john_doe, email=john@example.com)"
assert str(retrieved_user2) == "User(username=jane_doe, email=jane@example.com)"

# Removing a user and verifying removal
user_manager.remove_user("john_doe")
assert user_manager.get_user("john_doe") is None

# Cleanup code (not needed in this case as there's nothing to clean up)
