console.assert(person.getName() === "Alice");
console.assert(person.getAge() === 30);