class Person {
	name: string;
	age: number;

	constructor(name: string, age: number) {
		this.name = name;
		this.age = age;
	}

	getDetails(): string {
		return `Name: ${this.name}, Age: ${this.age}`;
	}
}

const person = new Person('Alice', 30);
console.assert(person.getDetails() === 'Name: Alice, Age: 30', 'Assertion failed: person.getDetails() should return correct details');