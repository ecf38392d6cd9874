import java.util.List;
import java.util.ArrayList;
import java.util.stream.Collectors;

public class DataValidator {
    private List<String> data;

    public DataValidator(List<String> data) {
        this.data = data;
    }

    // Function to remove null or empty strings
    public List<String> cleanData() {
        return data.stream()
                .filter(s -> s != null && !s.isEmpty())
                .collect(Collectors.toList());
    }

    // Function to normalize the data to lowercase
    public List<String> normalizeData() {
        return data.stream()
                .map(String::toLowerCase)
                .collect(Collectors.toList());
    }

    // Function to validate email format
    public List<String> validateEmails() {
        return data.stream()
                .filter(s -> s != null && s.matches("^[A-Za-z0-9+_.-]+@(.+)$"))
                .collect(Collectors.toList());
    }

    public static void main(String[] args) {
        List<String> rawData = new ArrayList<>();
        rawData.add("test@example.com");
        rawData.add("");
        rawData.add("invalid-email");
        rawData.add("another.test@domain.com");

        DataValidator validator = new DataValidator(rawData);
        List<String> cleanedData = validator.cleanData();
        List<String> normalizedData = validator.normalizeData();
        List<String> validEmails = validator.validateEmails();
        assert cleanedData.size() == 3 : "Expected 3 cleaned items";
        assert cleanedData.contains("test@example.com") : "Missing 'test@example.com'";
        assert cleanedData.contains("invalid-email") : "Missing 'invalid-email'";

        assert normalizedData.size() == 4 : "Expected 4 normalized items";
        assert normalizedData.contains("test@example.com") : "Missing 'test@example.com'";
        assert normalizedData.contains("invalid-email") : "Missing 'invalid-email'";
        assert validEmails.size() == 2 : "Expected 2 valid emails";
        assert validEmails.contains("test@example.com") : "Missing 'test@example.com'";
        assert validEmails.contains("another.test@domain.com") : "Missing 'another.test@domain.com'";

        // Cleanup resources
        rawData.clear();
        cleanedData.clear();
        normalizedData.clear();
        validEmails.clear();
    }
}