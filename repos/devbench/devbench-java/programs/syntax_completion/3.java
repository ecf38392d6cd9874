import java.util.*;
import java.util.stream.*;

public class ComplexStreamExample {

    private List<String> stringList;

    public ComplexStreamExample(List<String> stringList) {
        this.stringList = stringList;
    }

    public void processStrings() {
        // Prefix: Setup context for processing strings
        // Assume stringList is already populated
        System.out.println("Processing strings...");
        // Stream operation to filter, map, and collect strings
        List<String> result = stringList.stream()
            .filter(s -> s.length() > 3)
            .map(String::toUpperCase)
            .distinct()
            .sorted()
            .collect(Collectors.toList());

        // Assert the result size and content
        assert result.size() == 2 : "Expected result size to be 2";
        assert result.contains("HELLO") : "Expected result to contain 'HELLO'";
        assert result.contains("WORLD") : "Expected result to contain 'WORLD'";

        // Cleanup resources (none in this case)
        System.out.println("Completed processing strings.");
    }

    public static void main(String[] args) {
        List<String> sampleStrings = Arrays.asList("hi", "hello", "world");
        ComplexStreamExample example = new ComplexStreamExample(sampleStrings);
        example.processStrings();
    }
}
