import java.util.*;
import java.util.stream.*;

public class StreamApiExample {

    static class Person {
        String name;
        int age;

        Person(String name, int age) {
            this.name = name;
            this.age = age;
        }

        public String getName() {
            return name;
        }

        public int getAge() {
            return age;
        }
    }

    public static void main(String[] args) {
        List<Person> people = Arrays.asList(
            new Person("Alice", 30),
            new Person("Bob", 25),
            new Person("Charlie", 35),
            new Person("David", 40)
        );

        // Filter out people younger than 30
        List<Person> filteredList = people.stream()
            .filter(p -> p.getAge() >= 30)

            .collect(Collectors.toList());

        // Assertions
        assert filteredList.size() == 3 : "Filtered list should contain 3 people";
        assert filteredList.get(0).getName().equals("Alice") : "First person should be Alice";
        assert filteredList.get(1).getName().equals("Charlie") : "Second person should be Charlie";
        assert filteredList.get(2).getName().equals("David") : "Third person should be David";

        System.out.println("All assertions passed.");
    }
}
