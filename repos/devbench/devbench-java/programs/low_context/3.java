import java.util.List;
import java.util.ArrayList;

public class StringManipulator {
	public List<String> processStrings(List<String> input) {
		List<String> result = new ArrayList<>();
		for (String str : input) {
			result.add(str.toUpperCase());
		}
		return result;
	}

	public static void main(String[] args) {
		StringManipulator sm = new StringManipulator();
		List<String> input = List.of("hello", "world");
		List<String> output = sm.processStrings(input);
		assert output.size() == 2;
		assert output.get(0).equals("HELLO");
		assert output.get(1).equals("WORLD");
	}
}