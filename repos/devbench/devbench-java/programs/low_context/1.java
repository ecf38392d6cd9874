import java.util.ArrayList;
import java.util.List;

public class ListExample {
	public static void main(String[] args) {
		List<String> list = new ArrayList<>();
		list.add("apple");
		list.add("banana");
		// Add more elements to the list
		list.add("cherry");
		// Verify the list contents
		assert list.size() == 3 : "Size should be 3";
		assert list.contains("cherry") : "List should contain 'cherry'";
		System.out.println("All assertions passed.");
	}
}