
import * as assert from 'assert';
const logs = logger.getLogs();
assert.strictEqual(logs.length, 3);
assert.strictEqual(logs[0].message, 'User registered: John Doe');
assert.strictEqual(logs[1].message, 'User authenticated: John Doe');
assert.strictEqual(isAuthenticatedCorrect, true);
assert.strictEqual(logs[2].message, 'Authentication failed: Incorrect password');
