const assert = require('assert');
assert.deepStrictEqual(doubled, [2, 4, 6, 8, 10]);