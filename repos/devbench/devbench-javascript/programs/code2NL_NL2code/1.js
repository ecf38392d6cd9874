const assert = require('assert');

/**
 * Validates if the provided user data complies with business rules.
 * The function checks if the user is over a certain age and has accepted the terms and conditions.
 * 
 * @param {Object} user - The user data object.
 * @param {number} user.age - The age of the user.
 * @param {boolean} user.acceptedTerms - Whether the user has accepted the terms and conditions.
 * @returns {boolean} Returns true if the user data is valid, otherwise false.
 * @throws {Error} If the user data is missing required properties or if the validation fails.
 */
function validateUserData(user) {
  if (!user || typeof user.age !== 'number' || typeof user.acceptedTerms !== 'boolean') {
    throw new Error('Invalid user data');
  }
  if (user.age < 18) {
    return false;
  }
  if (!user.acceptedTerms) {
    return false;
  }
  return true;
}

try {
  // Valid user data
  assert.strictEqual(validateUserData({ age: 25, acceptedTerms: true }), true);
  // Invalid user data: underage
  assert.strictEqual(validateUserData({ age: 15, acceptedTerms: true }), false);
  // Invalid user data: terms not accepted
  assert.strictEqual(validateUserData({ age: 25, acceptedTerms: false }), false);
  // Invalid user data: missing properties
  assert.throws(() => validateUserData({ age: 25 }), Error);
  assert.throws(() => validateUserData({ acceptedTerms: true }), Error);
} catch (error) {
  console.error('Validation failed:', error);
}
