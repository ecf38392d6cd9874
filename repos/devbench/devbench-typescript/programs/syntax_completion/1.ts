import fs from 'fs';
import path from 'path';

interface User {
    id: number;
    name: string;
    email: string;
}

interface Response<T> {
    data: T;
    status: number;
    error?: string;
}

function fetchDataFromFile(filePath: string): Promise<Response<User[]>> {
    return new Promise((resolve, reject) => {
        fs.readFile(filePath, 'utf8', (err, data) => {
            if (err) {
                reject({ data: [], status: 500, error: err.message });
                return;
            }
            try {
                const users: User[] = JSON.parse(data);
                resolve({ data: users, status: 200 });
            } catch (parseErr) {
                reject({ data: [], status: 500, error: parseErr.message });
            }
        });
    });
}

async function processUserData(filePath: string): Promise<void> {
    try {
        const response = await fetchDataFromFile(filePath);
        if (response.status === 200) {
            for (const user of response.data) {
                console.log(`Processing user: ${user.name}`);
                if (user.email.endsWith('@example.com')) {
                    console.log(`User ${user.name} has a valid email.`);
                } else {
                    console.log(`User ${user.name} has an invalid email.`);
                }
            }
        } else {
            console.error(`Failed to fetch data: ${response.error}`);
        }
    } catch (err) {
        console.error(`Error processing user data: ${err}`);
    }
}

// Example usage
const filePath = path.join(__dirname, 'users.json');
processUserData(filePath)

    .then(() => console.log('User data processing complete.'))
    .catch(err => console.error(`Failed to process user data: ${err.message}`));

console.log('User data processing complete.');
fs.unlink(filePath, (err) => {
    if (err) {
        console.error(`Error deleting file: ${err.message}`);
    } else {
        console.log('Temporary file deleted successfully.');
    }
});
