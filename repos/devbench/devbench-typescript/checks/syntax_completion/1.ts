import assert from 'assert';

async function testProcessUserData() {
    const filePath = path.join(__dirname, 'users.json');
    fs.writeFileSync(filePath, JSON.stringify([{ id: 1, name: 'John Doe', email: 'john@example.com' }, { id: 2, name: 'Jane Smith', email: 'jane@invalid.com' }]));

    let consoleOutput: string[] = [];
    const originalConsoleLog = console.log;
    const originalConsoleError = console.error;

    console.log = (message: string) => { consoleOutput.push(message); };
    console.error = (message: string) => { consoleOutput.push(message); };

    await processUserData(filePath);

    assert(consoleOutput.includes('Processing user: John Doe'), 'Should log processing John Doe');
    assert(consoleOutput.includes('User John Doe has a valid email.'), 'Should log valid email for John Doe');
    assert(consoleOutput.includes('Processing user: Jane Smith'), 'Should log processing Jane Smith');
    assert(consoleOutput.includes('User Jane Smith has an invalid email.'), 'Should log invalid email for Jane Smith');

    console.log = originalConsoleLog;
    console.error = originalConsoleError;

    assert(fs.existsSync(filePath), 'The file should exist before deletion');

    fs.unlinkSync(filePath);
}

testProcessUserData().then(() => console.log('All tests passed')).catch(err => console.error(`Test failed: ${err.message}`));
