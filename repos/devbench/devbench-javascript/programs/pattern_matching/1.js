const crypto = require('crypto');

function encrypt(text, algorithm, password) {
    const cipher = crypto.createCipher(algorithm, password);
    let encrypted = cipher.update(text, 'utf8', 'hex');
    encrypted += cipher.final('hex');
    return encrypted;
}

function decrypt(encryptedText, algorithm, password) {
    const decipher = crypto.createDecipher(algorithm, password);
    let decrypted = decipher.update(encryptedText, 'hex', 'utf8');
    decrypted += decipher.final('utf8');
    return decrypted;
}

function hash(text, algorithm) {
    const hash = crypto.createHash(algorithm);
    hash.update(text);
    return hash.digest('hex');
}

// Function to generate a random salt
function generateSalt(length) {
    return crypto.randomBytes(length).toString('hex');
}

// Function to hash a password with a salt
function hashPasswordWithSalt(password, salt, algorithm) {
    const hash = crypto.createHash(algorithm);
    hash.update(salt + password);
    return `${salt}:${hash.digest('hex')}`;
}

// Test the functionality
const assert = require('assert');
const password = 'mysecretpassword';
const salt = generateSalt(16);
const algorithm = 'sha256';

const hashedPassword = hashPasswordWithSalt(password, salt, algorithm);
const [saltPart, hashPart] = hashedPassword.split(':');

assert.strictEqual(saltPart, salt);
assert.strictEqual(hashPart.length, 64);
console.log('All assertions passed.');