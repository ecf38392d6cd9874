class Animal {
	constructor(name) {
		this.name = name;
	}

	speak() {
		console.log(`${this.name} makes a noise.`);
	}
}

class Dog extends Animal {
	constructor(name, breed) {
		super(name);
		this.breed = breed;
	}

	speak() {
		console.log(`${this.name} barks.`);
	}
}

class Cat extends Animal {
	constructor(name, color) {
		super(name);
		this.color = color;
	}

	speak() {
		console.log(`${this.name} meows.`);
	}
}

// Utility function to create animals
function createAnimal(type, name, attribute) {
	switch(type) {
		case 'dog':
			return new Dog(name, attribute);
		case 'cat':
			return new Cat(name, attribute);
		default:
			throw new Error('Unknown animal type');
	}
}

// Example usage
const animals = [
	createAnimal('dog', 'Rex', 'Labrador'),
	createAnimal('cat', 'Whiskers', 'Tabby'),
	createAnimal('dog', 'Buddy', 'Golden Retriever'),
	createAnimal('cat', 'Mittens', 'Siamese')
];

animals.forEach(animal => animal.speak());

// Implementing a class to handle a collection of animals
class AnimalShelter {
	constructor() {
		this.animals = [];
	}

	addAnimal(animal) {
		this.animals.push(animal);
	}

	removeAnimalByName(name) {
		this.animals = this.animals.filter(animal => animal.name !== name);
	}

	getAnimalNames() {
		return this.animals.map(animal => animal.name);
	}

	getAllAnimals() {
		return this.animals;
	}

	findAnimalsByType(type) {
		return this.animals.filter(animal => animal instanceof type);
	}
}

const shelter = new AnimalShelter();
animals.forEach(animal => shelter.addAnimal(animal));

// Testing the AnimalShelter class
console.log('Animal names in the shelter:', shelter.getAnimalNames());
console.log('All animals in the shelter:', shelter.getAllAnimals());
console.log('Dogs in the shelter:', shelter.findAnimalsByType(Dog));
console.log('Cats in the shelter:', shelter.findAnimalsByType(Cat));
shelter.removeAnimalByName('Rex');
console.log('All animals in the shelter after removing Rex:', shelter.getAllAnimals());