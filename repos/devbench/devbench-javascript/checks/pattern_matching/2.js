const assert = require('assert');

// Clean up the log file before running tests
if (fs.existsSync('app.log')) {
    fs.unlinkSync('app.log');
}

// Initialize logger and log messages
const testLogger = new Logger('app.log');
testLogger.logInfo('Application started');
testLogger.logWarning('Low disk space');
testLogger.logError('Unhandled exception');

// Read log file contents
const testLogs = fs.readFileSync('app.log', 'utf8');

// Assertions
assert(testLogs.includes('[INFO]'), 'Log should contain info messages');
assert(testLogs.includes('[WARNING]'), 'Log should contain warning messages');
assert(testLogs.includes('[ERROR]'), 'Log should contain error messages');
assert(testLogs.includes('Application started'), 'Log should contain the info message');
assert(testLogs.includes('Low disk space'), 'Log should contain the warning message');
assert(testLogs.includes('Unhandled exception'), 'Log should contain the error message');
