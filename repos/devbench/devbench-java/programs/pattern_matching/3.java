import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

public class DataValidator {
    private Map<String, String> data;

    public DataValidator() {
        this.data = new HashMap<>();
    }

    public void addData(String key, String value) {
        this.data.put(key, value);
    }

    public boolean validateNotEmpty(String key) {
        String value = this.data.get(key);
        return value != null && !value.isEmpty();
    }

    public boolean validateMinLength(String key, int minLength) {
        String value = this.data.get(key);
        return value != null && value.length() >= minLength;
    }

    public boolean validateMaxLength(String key, int maxLength) {
        String value = this.data.get(key);
        return value != null && value.length() <= maxLength;
    }

    // Pattern: Validate that the value of a given key matches a regex pattern
    public boolean validatePattern(String key, String pattern) {
        String value = this.data.get(key);
        return value != null && value.matches(pattern);
    }

    // Pattern: Validate that the value of a given key is a valid email address
    public boolean validateEmail(String key) {
        String value = this.data.get(key);
        return value != null && value.matches("^[\\w-\\.+]*[\\w-\\.]\\@[\\w]+([\\.][\\w]+)+$");
    }
    public boolean validatePhoneNumber(String key) {
        String value = this.data.get(key);
        return value != null && value.matches("\\+?[0-9]{10,15}");
    }

    public static void main(String[] args) {
        DataValidator validator = new DataValidator();
        validator.addData("email", "test@example.com");
        validator.addData("phone", "+1234567890");
        validator.addData("username", "valid_user");

        // Assertions
        assert validator.validateEmail("email");
        assert !validator.validateEmail("invalid");
        assert validator.validatePhoneNumber("phone");
        assert !validator.validatePhoneNumber("short");
    }
}
