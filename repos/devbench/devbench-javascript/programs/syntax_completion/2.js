class Animal {
    constructor(name) {
        this.name = name;
    }

    speak() {
        return `${this.name} makes a noise.`;
    }
}

class Dog extends Animal {
    constructor(name, breed) {
        super(name);
        this.breed = breed;
    }

    speak() {
        return `${this.name} barks.`;
    }
}

class Cat extends Animal {
    constructor(name, color) {
        super(name);
        this.color = color;
    }

    speak() {
        return `${this.name} meows.`;
    }
}

// Helper function to create animals
function createAnimals() {
    const animals = [];
    animals.push(new Dog('Rex', 'German Shepherd'));
    animals.push(new Cat('Whiskers', 'Tabby'));
    return animals;
}

// Example usage
const animals = createAnimals();
let sounds = [];
for (const animal of animals) {
    sounds.push(animal.speak());
}
console.log(sounds); // Output: ['Rex barks.', 'Whiskers meows.']

// New class to inherit from Dog and Cat
class RobotDog extends Dog {
    constructor(name, breed, model) {
        super(name, breed);
        this.model = model;
    }

    speak() {
        return `${this.name} the ${this.model} robot dog beeps.`;
    }
}

class RobotCat extends Cat {
    constructor(name, color, model) {
        super(name, color);
        this.model = model;
    }

    speak() {
        return `${this.name} the ${this.model} robot cat whirrs.`;
    }
}

// Example usage of robot animals
const robotDog = new RobotDog('Bolt', 'Bulldog', 'RX-78');
const robotCat = new RobotCat('Shadow', 'Black', 'TX-99');
console.log(robotDog.speak()); // Output: Bolt the RX-78 robot dog beeps.
console.log(robotCat.speak()); // Output: Shadow the TX-99 robot cat whirrs.
