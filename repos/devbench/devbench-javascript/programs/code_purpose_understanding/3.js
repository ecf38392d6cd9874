const crypto = require('crypto');

class Authentication {
    constructor() {
        this.users = {};
    }

    // Function to create a new user with hashed password
    createUser(username, password) {
        if(this.users[username]) {
            throw new Error('User already exists');
        }
        const hashedPassword = this.hashPassword(password);
        this.users[username] = hashedPassword;
    }

    // Function to hash a password
    hashPassword(password) {
        const salt = crypto.randomBytes(16).toString('hex');
        const hash = crypto.pbkdf2Sync(password, salt, 1000, 64, 'sha512').toString('hex');
        return { salt, hash };
    }

    // Function to verify a user's password
    verifyPassword(username, password) {
        const user = this.users[username];
        if (!user) {
            throw new Error('User does not exist');
        }
        const { salt, hash } = user;
        const hashedInputPassword = crypto.pbkdf2Sync(password, salt, 1000, 64, 'sha512').toString('hex');
        return hashedInputPassword === hash;

    }
}

const auth = new Authentication();
auth.createUser('testuser', 'testpassword');

// Test valid login
console.assert(auth.verifyPassword('testuser', 'testpassword') === true, 'Password should be valid');

// Test invalid login
console.assert(auth.verifyPassword('testuser', 'wrongpassword') === false, 'Password should be invalid');

// Test non-existent user
try {
    auth.verifyPassword('nonuser', 'somepassword');
} catch (error) {
    console.assert(error.message === 'User does not exist', 'Error message should indicate non-existent user');
}

console.log('All assertions passed.');