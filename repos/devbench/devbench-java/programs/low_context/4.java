import java.util.ArrayList;
import java.util.List;

public class DataManipulation {
    public static List<String> filterStrings(List<String> input) {
        List<String> result = new ArrayList<>();
        for (String str : input) {
            if (str.contains("test")) {
                result.add(str);
            }
        }
        return result;
    }

    public static void main(String[] args) {
        List<String> input = List.of("test1", "example", "test2");
        List<String> output = filterStrings(input);
        assert output.size() == 2;
        assert output.contains("test1");
        assert output.contains("test2");
    }
}