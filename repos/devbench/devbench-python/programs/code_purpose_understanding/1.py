import json

class UserManager:
    def __init__(self):
        self.users = {}

    def add_user(self, user_id, user_info):
        self.users[user_id] = user_info

    def remove_user(self, user_id):
        if user_id in self.users:
            del self.users[user_id]

    def get_user(self, user_id):
        return self.users.get(user_id)

    def load_users_from_json(self, json_str):
        data = json.loads(json_str)
        for user_id, user_info in data.items():
            self.add_user(user_id, user_info)

    def save_users_to_json(self):
        return json.dumps(self.users)

# Scenario: Adding and removing users, and saving/loading user data to/from JSON format.
manager = UserManager()
manager.add_user('001', {'name': 'Alice', 'age': 30})
manager.add_user('002', {'name': 'Bob', 'age': 25})
manager.add_user('003', {'name': 'Charlie', 'age': 35})

# Removing a user
manager.remove_user('002')

# Saving current users to JSON
json_data = manager.save_users_to_json()

# Loading users from JSON
manager.load_users_from_json(json_data)

# Assertions to verify business logic correctness
assert manager.get_user('001') == {'name': 'Alice', 'age': 30}
assert manager.get_user('002') is None  # User '002' was removed
assert manager.get_user('003') == {'name': 'Charlie', 'age': 35}

