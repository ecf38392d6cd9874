assert.strictEqual(mean, 5);
assert.strictEqual(median, 4.5);
assert.deepStrictEqual(mode, [4]);
assert.strictEqual(variance, 4);
assert.strictEqual(stdDev, 2);

console.log('All tests passed');