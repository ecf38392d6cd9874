const animalNames = shelter.getAnimalNames();
console.assert(Array.isArray(animalNames), 'Animal names should be an array');
console.assert(animalNames.includes('Rex'), 'Animal names should include Rex');
console.assert(animalNames.includes('Whiskers'), 'Animal names should include Whiskers');
console.assert(animalNames.includes('Buddy'), 'Animal names should include Buddy');
console.assert(animalNames.includes('Mittens'), 'Animal names should include Mittens');