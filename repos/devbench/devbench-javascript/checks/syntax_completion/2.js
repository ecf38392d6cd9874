const assert = require('assert');

// Assertions for regular animals - use already declared variables
let testSounds = [];
for (const animal of animals) {
    testSounds.push(animal.speak());
}
assert.deepStrictEqual(testSounds, ['Rex barks.', 'Whiskers meows.']);

// Assertions for robot animals - use already declared variables
assert.strictEqual(robotDog.speak(), 'Bolt the RX-78 robot dog beeps.');
assert.strictEqual(robotCat.speak(), 'Shadow the TX-99 robot cat whirrs.');
