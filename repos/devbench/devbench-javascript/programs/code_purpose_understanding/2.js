const fs = require('fs');
const path = require('path');

// This function reads a JSON file, processes the data and logs specific metrics
async function processMetrics(filePath) {
    try {
        // Read the file
        const data = await fs.promises.readFile(filePath, 'utf-8');
        const jsonData = JSON.parse(data);

        // Calculate metrics
        const totalUsers = jsonData.users.length;
        const activeUsers = jsonData.users.filter(user => user.active).length;

        // Log metrics
        console.log(`Total Users: ${totalUsers}`);
        console.log(`Active Users: ${activeUsers}`);

        // Now we need to calculate the average age of users
        const totalAge = jsonData.users.reduce((sum, user) => sum + user.age, 0);
        const averageAge = totalAge / totalUsers;
        console.log(`Average Age: ${averageAge.toFixed(2)}`);
    } catch (error) {
        console.error('Error processing metrics:', error);
    }
}

// Example JSON data for testing
const testFilePath = path.join(__dirname, 'testData.json');
const testData = {
    users: [
        { name: 'Alice', age: 30, active: true },
        { name: 'Bob', age: 25, active: false },
        { name: 'Charlie', age: 35, active: true }
    ]
};
fs.writeFileSync(testFilePath, JSON.stringify(testData));

// Run the function
processMetrics(testFilePath).then(() => {
    // Clean up test file
    fs.unlinkSync(testFilePath);
});