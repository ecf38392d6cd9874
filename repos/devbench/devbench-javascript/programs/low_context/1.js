class Person {
  constructor(name, age) {
    this.name = name;
    this.age = age;
  }

  greet() {
    return `Hello, my name is ${this.name}`;
  }
}

class Employee extends Person {
  constructor(name, age, jobTitle) {
    super(name, age);
    this.jobTitle = jobTitle;
  }
  greet() {
    return `Hello, my name is ${this.name} and I am an ${this.jobTitle}`;
  }
  getJobTitle() {
    return this.jobTitle;
  }
}

const emp = new Employee('Alice', 30, 'Engineer');
console.assert(emp.getJobTitle() === 'Engineer', 'Job title should be Engineer');
console.assert(emp.greet() === 'Hello, my name is Alice', 'Greeting should mention name');