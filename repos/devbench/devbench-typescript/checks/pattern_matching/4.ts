assert.strictEqual(filteredData.length, 3);
assert.strictEqual(average, 30);
assert.strictEqual(maxValue, 40);
assert.strictEqual(minValue, 20);