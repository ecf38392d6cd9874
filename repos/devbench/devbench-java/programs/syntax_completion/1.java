import java.util.*;
import java.util.stream.*;

public class StreamExample {

    public static class Person {
        private String name;
        private int age;

        public Person(String name, int age) {
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
        List<Person> persons = Arrays.asList(
            new Person("John", 25),
            new Person("Jane", 20),
            new Person("Tom", 30),
            new Person("Lucy", 25)
        );

        // Using Stream API to filter and collect
        Map<Integer, List<String>> personsByAge = persons.stream()
            .collect(Collectors.groupingBy(
                Person::getAge,
                Collectors.mapping(Person::getName, Collectors.toList())
            ));

        // Print the result
        personsByAge.forEach((age, names) -> {
            System.out.println("Age " + age + ": " + names);
        });

        // More complex Stream API operations
        List<String> sortedNames = persons.stream()
            .filter(p -> p.getAge() > 20)
            .map(Person::getName)
            .sorted()
            .collect(Collectors.toList())
;

        // Print the sorted names
        sortedNames.forEach(System.out::println);

        // Assertions to verify the stream operations
        assert sortedNames.size() == 3 : "Expected 3 names after filtering";
        assert sortedNames.get(0).equals("John") : "Expected John as the first name";
        assert sortedNames.get(1).equals("Lucy") : "Expected Lucy as the second name";
        assert sortedNames.get(2).equals("Tom") : "Expected Tom as the third name";
    }
}