import java.util.*;
import java.util.stream.Collectors;
import java.io.*;

public class DataNormalization {

    public static List<String> normalizeData(List<String> rawData) {
        return rawData.stream()
                .map(DataNormalization::cleanString)
                .filter(Objects::nonNull)
                .collect(Collectors.toList());
    }

    private static String cleanString(String data) {
        if (data == null || data.isEmpty()) {
            return null;
        }
        String cleaned = data.trim().replaceAll("\\s+", " ");
        return cleaned.isEmpty() ? null : cleaned;
    }

    public static void main(String[] args) {
        List<String> rawData = Arrays.asList(" This  is a   test ", "  Another   test", null, " ", "Final test");
        List<String> expectedData = Arrays.asList("This is a test", "Another test", "Final test");

        List<String> normalizedData = normalizeData(rawData);

        // Assertions
        assert normalizedData.size() == expectedData.size() : "Size mismatch: expected " + expectedData.size() + " but got " + normalizedData.size();
        for (int i = 0; i < expectedData.size(); i++) {
            assert normalizedData.get(i).equals(expectedData.get(i)) : "Mismatch at index " + i + ": expected '" + expectedData.get(i) + "' but got '" + normalizedData.get(i) + "'";
        }

        // Additional test with empty data
        rawData = Arrays.asList("", " ", null);
        expectedData = Collections.emptyList();
        normalizedData = normalizeData(rawData);
        assert normalizedData.isEmpty() : "Expected empty list but got " + normalizedData;
        // Assertions for empty data
        assert normalizedData.size() == expectedData.size() : "Size mismatch: expected " + expectedData.size() + " but got " + normalizedData.size();

        System.out.println("All tests passed.");
    }
}
