import * as fs from 'fs';
import * as path from 'path';

// Utility function to read a JSON file and parse its content
function readJSONFile(filePath: string): any {
    const rawData = fs.readFileSync(filePath, 'utf-8');
    return JSON.parse(rawData);
}

// Utility function to write data to a JSON file
function writeJSONFile(filePath: string, data: any): void {
    fs.writeFileSync(filePath, JSON.stringify(data, null, 2), 'utf-8');
}

// Function to validate email format
function isValidEmail(email: string): boolean {
    const emailRegex = /^[\w-\.]+@([\w-]+\.)+[\w-]{2,4}$/;
    return emailRegex.test(email);
}

// Function to clean and normalize user data
function cleanAndNormalizeData(data: any): any {
    if (data.email && isValidEmail(data.email)) {
        data.email = data.email.toLowerCase();
    } else {
        throw new Error('Invalid email format');
    }
    return data;
}

// Main function to process user data file
function processUserDataFile(filePath: string): void {
    try {
        let userData = readJSONFile(filePath);
        userData = cleanAndNormalizeData(userData);
        writeJSONFile(filePath, userData);
    } catch (error) {
        console.error('Error processing user data file:', error);
    }
}

// Test setup
const testFilePath = path.join(__dirname, 'testUserData.json');
const validTestData = { name: 'John Doe', email: 'John.Doe@Example.com' };
const invalidTestData = { name: 'Jane Doe', email: 'Jane.Doe@Example' };

// Write test data to file for validation
writeJSONFile(testFilePath, validTestData);
// Process user data file with valid email
processUserDataFile(testFilePath);

// Read and validate the processed data
const processedData = readJSONFile(testFilePath);
console.assert(processedData.email === 'john.doe@example.com', 'Email normalization failed');

// Clean up test file
fs.unlinkSync(testFilePath);
