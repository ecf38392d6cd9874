assert.strictEqual(typeof validateUserData, 'function');
assert.strictEqual(validateUserData({ age: 25, acceptedTerms: true }), true);
assert.strictEqual(validateUserData({ age: 15, acceptedTerms: true }), false);
assert.strictEqual(validateUserData({ age: 25, acceptedTerms: false }), false);
assert.throws(() => validateUserData({ age: 25 }), Error);
assert.throws(() => validateUserData({ acceptedTerms: true }), Error);