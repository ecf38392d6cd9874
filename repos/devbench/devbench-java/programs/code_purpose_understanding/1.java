import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

public class DataValidator {
    public static class ValidationResult {
        private final boolean valid;
        private final List<String> errors;

        public ValidationResult(boolean valid, List<String> errors) {
            this.valid = valid;
            this.errors = errors;
        }

        public boolean isValid() {
            return valid;
        }

        public List<String> getErrors() {
            return errors;
        }
    }

    public ValidationResult validateData(List<String> data) {
        List<String> errors = new ArrayList<>();
        data.stream().forEach(d -> {
            if (d == null || d.isEmpty()) {
                errors.add("Data cannot be null or empty");
            } else if (!d.matches("^[a-zA-Z0-9]+$")) {
                errors.add("Data contains invalid characters");
            }
        });
        return new ValidationResult(errors.isEmpty(), errors);
    }

    public static void main(String[] args) {
        DataValidator validator = new DataValidator();
        List<String> inputData = new ArrayList<>();
        inputData.add("validData123");
        inputData.add("");
        inputData.add(null);
        inputData.add("invalid data!");
        ValidationResult result = validator.validateData(inputData);
        assert !result.isValid() : "Validation should be invalid";
        System.out.println("Validation errors: " + result.getErrors());
        assert result.getErrors().size() == 3 : "Expected 3 errors";
        assert result.getErrors().contains("Data cannot be null or empty") : "Expected error for empty data";
        assert result.getErrors().contains("Data cannot be null or empty") : "Expected error for null data";
        assert result.getErrors().contains("Data contains invalid characters") : "Expected error for invalid characters";
    }
}
