import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

class DataValidator {
    // This method checks if a string is a valid email address
    public boolean isValidEmail(String email) {
        return email != null && email.contains("@") && email.contains(".");
    }

    // This method checks if a string is a valid phone number
    public boolean isValidPhoneNumber(String phoneNumber) {
        return phoneNumber != null && phoneNumber.matches("\\d{10}");
    }

    // This method validates a list of emails and returns only the valid ones
    public List<String> validateEmails(List<String> emails) {
        return emails.stream().filter(this::isValidEmail).collect(Collectors.toList());
    }

    // This method validates a list of phone numbers and returns only the valid ones
    public List<String> validatePhoneNumbers(List<String> phoneNumbers) {
        return phoneNumbers.stream().filter(this::isValidPhoneNumber).collect(Collectors.toList());
    }
}

public class Main {
    public static void main(String[] args) {
        DataValidator validator = new DataValidator();
        List<String> emails = new ArrayList<>();
        emails.add("test@example.com");
        emails.add("invalid-email");
        emails.add("user@domain.com");
        List<String> validEmails = validator.validateEmails(emails);

        List<String> phoneNumbers = new ArrayList<>();
        phoneNumbers.add("1234567890");
        phoneNumbers.add("0987654321");
        phoneNumbers.add("invalid-phone");
        List<String> validPhoneNumbers = validator.validatePhoneNumbers(phoneNumbers);

        // Validating a mixed list of emails and phone numbers
        List<String> mixedList = new ArrayList<>();
        mixedList.addAll(emails);
        mixedList.addAll(phoneNumbers);
        List<String> validMixedList = mixedList.stream()
                .filter(item -> validator.isValidEmail(item) || validator.isValidPhoneNumber(item))
                .collect(Collectors.toList());
        assert validMixedList.contains("test@example.com");
        assert validMixedList.contains("user@domain.com");
        assert validMixedList.contains("1234567890");
        assert validMixedList.contains("0987654321");
        assert !validMixedList.contains("invalid-email");
        assert !validMixedList.contains("invalid-phone");
    }
}
