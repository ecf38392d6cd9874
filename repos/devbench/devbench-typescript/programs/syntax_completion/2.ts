import * as assert from 'assert';

interface User {
    id: number;
    name: string;
    email: string;
}

interface Admin extends User {
    role: 'admin';
}

interface Guest extends User {
    role: 'guest';
}

type Person = Admin | Guest;

function isAdmin(person: Person): person is Admin {
    return person.role === 'admin';
}

function isGuest(person: Person): person is Guest {
    return person.role === 'guest';
}

const people: Person[] = [
    { id: 1, name: 'Alice', email: 'alice@example.com', role: 'admin' },
    { id: 2, name: 'Bob', email: 'bob@example.com', role: 'guest' },
    { id: 3, name: 'Charlie', email: 'charlie@example.com', role: 'admin' },
    { id: 4, name: 'Dave', email: 'dave@example.com', role: 'guest' }
];

function getEmailsOfAdmins(people: Person[]): string[] {
    return people
        .filter(isAdmin)
        .map((admin) => admin.email);
}

function getEmailsOfGuests(people: Person[]): string[] {
    return people
        .filter(isGuest)
        .map((guest) => guest.email);
}

// Usage
const adminEmails = getEmailsOfAdmins(people);
const guestEmails = getEmailsOfGuests(people);

// Assertions
assert.deepStrictEqual(adminEmails, ['alice@example.com', 'charlie@example.com']);
assert.deepStrictEqual(guestEmails, ['bob@example.com', 'dave@example.com']);

// Mock console.log to capture output
const logCalls: string[] = [];
const originalConsoleLog = console.log;
console.log = (message: string) => {
    logCalls.push(message);
};

// Now, we will add a nested control structure that processes both admins and guests differently
function processPeople(people: Person[]): void {
    for (const person of people) {
        if (isAdmin(person)) {
            console.log(`Processing admin: ${person.name}`);
        } else if (isGuest(person)) {
            console.log(`Processing guest: ${person.name}`);
        }
    }
}

// Call the function
processPeople(people);

// Restore console.log
console.log = originalConsoleLog;

// Assertions to verify the nested control structures work as expected
assert.strictEqual(logCalls.includes('Processing admin: Alice'), true);
assert.strictEqual(logCalls.includes('Processing guest: Bob'), true);
assert.strictEqual(logCalls.includes('Processing admin: Charlie'), true);
assert.strictEqual(logCalls.includes('Processing guest: Dave'), true);