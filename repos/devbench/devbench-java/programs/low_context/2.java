import java.util.*;

public class Main {
	public static void main(String[] args) {
		List<Integer> list = new ArrayList<>();
		list.add(1);
		list.add(2);
		list.add(3);
		list.add(4);
		assert list.size() == 4 : "Size should be 4";
		assert list.get(2) == 3 : "Element at index 2 should be 3";
		assert list.get(3) == 4 : "Element at index 3 should be 4";
	}
}