const assert = require('assert');
const capturedLogs = [];
const originalLog = console.log;
console.log = (msg) => capturedLogs.push(msg);

const testDog = new Dog('Mitzie');
testDog.speak();

assert.strictEqual(capturedLogs[0], 'Mitzie barks.');

console.log = originalLog;