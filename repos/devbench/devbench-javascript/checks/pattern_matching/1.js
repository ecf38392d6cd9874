const testHashedPassword = hashPasswordWithSalt('mypassword', 'somesalt', 'sha256');
const [testSaltPart, testHashPart] = testHashedPassword.split(':');
assert.strictEqual(testSaltPart, 'somesalt');
assert.strictEqual(testHashPart.length, 64);
console.log('All assertions passed.');