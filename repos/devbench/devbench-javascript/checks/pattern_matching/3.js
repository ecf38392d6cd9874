const assert = require('assert');

// Test the Logger class
const testLogger = new Logger('test-log.txt');
testLogger.logInfo('This is an info message');
testLogger.logWarning('This is a warning message');
testLogger.logError('This is an error message');

const testLogContents = fs.readFileSync('test-log.txt', 'utf-8');
assert(testLogContents.includes('[INFO]'));
assert(testLogContents.includes('[WARNING]'));
assert(testLogContents.includes('[ERROR]'));

// Cleanup
fs.unlinkSync('test-log.txt');