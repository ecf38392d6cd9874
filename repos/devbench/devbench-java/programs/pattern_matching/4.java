import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

public class DataValidation {
    private Map<String, Function<String, Boolean>> validators;

    public DataValidation() {
        this.validators = new HashMap<>();
    }

    public void addValidator(String fieldName, Function<String, Boolean> validator) {
        this.validators.put(fieldName, validator);
    }

    public boolean validateField(String fieldName, String value) {
        if (!validators.containsKey(fieldName)) {
            throw new IllegalArgumentException("No validator for field: " + fieldName);
        }
        return validators.get(fieldName).apply(value);
    }

    public static void main(String[] args) {
        DataValidation dv = new DataValidation();

        // Adding validators
        dv.addValidator("email", value -> value.contains("@") && value.contains("."));
        dv.addValidator("phone", value -> value.matches("\\d{10}"));
        dv.addValidator("zipcode", value -> value.matches("\\d{5}"));

        // Validate some fields
        String email = "test@example.com";
        String phone = "1234567890";
        String zipcode = "12345";

        // Assertions to verify the pattern
        assert dv.validateField("email", email) == true : "Email validation failed";
        assert dv.validateField("phone", phone) == true : "Phone validation failed";
        assert dv.validateField("zipcode", zipcode) == true : "Zipcode validation failed";

        // Test invalid cases
        String invalidEmail = "testexample.com";
        String invalidPhone = "123456";
        String invalidZipcode = "12ab5";

        assert dv.validateField("email", invalidEmail) == false : "Invalid email validation failed";
        assert dv.validateField("phone", invalidPhone) == false : "Invalid phone validation failed";
        assert dv.validateField("zipcode", invalidZipcode) == false : "Invalid zipcode validation failed";


        System.out.println("All tests passed.");
    }
}