assert.strictEqual(logCalls.includes('Processing admin: Alice'), true);
assert.strictEqual(logCalls.includes('Processing guest: Bob'), true);
assert.strictEqual(logCalls.includes('Processing admin: Charlie'), true);
assert.strictEqual(logCalls.includes('Processing guest: Dave'), true);