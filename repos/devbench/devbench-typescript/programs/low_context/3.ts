class Person {
    private name: string;
    private age: number;

    constructor(name: string, age: number) {
        this.name = name;
        this.age = age;
    }

    public getName(): string {
        return this.name;
    }

    public getAge(): number {
        return this.age;
    }
}

const person = new Person("Alice", 30);
console.assert(person.getName() === "Alice");
console.assert(person.getAge() === 30);