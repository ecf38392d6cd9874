import java.util.Optional;
import java.util.function.Function;

class User {
    private String name;
    private String email;

    public User(String name, String email) {
        this.name = name;
        this.email = email;
    }

    public String getName() {
        return name;
    }

    public String getEmail() {
        return email;
    }

    @Override
    public String toString() {
        return "User{name='" + name + "', email='" + email + "'}";
    }
}

public class UserService {
    public Optional<User> findUserByEmail(String email) {
        // Imagine this method queries a database or external service
        if ("example@example.com".equals(email)) {
            return Optional.of(new User("John Doe", "example@example.com"));
        } else {
            return Optional.empty();
        }
    }

    public String getUserNameByEmail(String email) {
        return findUserByEmail(email)
                .map(User::getName)
                .orElse("Unknown");
    }

    public static void main(String[] args) {
        UserService userService = new UserService();
        String userName = userService.getUserNameByEmail("example@example.com");
        assert "John Doe".equals(userName) : "Test failed: Expected John Doe, got " + userName;

        userName = userService.getUserNameByEmail("nonexistent@example.com");
        assert "Unknown".equals(userName) : "Test failed: Expected Unknown, got " + userName;
    }
}
