const assert = require('assert');

async function testProcessMetrics() {
    const testFilePath = path.join(__dirname, 'testData.json');
    const testData = {
        users: [
            { name: 'Alice', age: 30, active: true },
            { name: 'Bob', age: 25, active: false },
            { name: 'Charlie', age: 35, active: true }
        ]
    };
    fs.writeFileSync(testFilePath, JSON.stringify(testData));

    let consoleOutput = [];
    const originalConsoleLog = console.log;
    console.log = (output) => consoleOutput.push(output);

    await processMetrics(testFilePath);

    // Restore original console.log function
    console.log = originalConsoleLog;

    assert(consoleOutput.includes('Total Users: 3'));
    assert(consoleOutput.includes('Active Users: 2'));
    assert(consoleOutput.includes('Average Age: 30.00'));

    // Clean up test file
    fs.unlinkSync(testFilePath);
}

testProcessMetrics().then(() => {
    console.log('All assertions passed.');
}).catch(error => {
    console.error('An assertion failed:', error);
});