assert.strictEqual(stdDev.stdDevX, Math.sqrt(8/3));
assert.strictEqual(stdDev.stdDevY, Math.sqrt(8/3));
