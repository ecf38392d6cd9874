class Person {
	name: string;
	constructor(name: string) {
		this.name = name;
	}
}

class Employee extends Person {
	salary: number;
	constructor(name: string, salary: number) {
		super(name);
		this.salary = salary;
	}
}

const emp = new Employee('John Doe', 50000);
console.log(emp.name); // Expected: John Doe
console.log(emp.salary); // Expected: 50000
