const fs = require('fs');

class Logger {
  constructor(fileName) {
    this.fileName = fileName;
  }

  logInfo(message) {
    const logMessage = `[INFO] ${new Date().toISOString()} - ${message}`;
    this.writeToFile(logMessage);
  }

  logWarning(message) {
    const logMessage = `[WARNING] ${new Date().toISOString()} - ${message}`;
    this.writeToFile(logMessage);
  }

  // Pattern: logError method should follow the same format as logInfo and logWarning
  // logError method should be implemented here
  logError(message) {
    const logMessage = `[ERROR] ${new Date().toISOString()} - ${message}`;
    this.writeToFile(logMessage);
  }
  writeToFile(message) {
    fs.appendFileSync(this.fileName, message + '\n');
  }
}

// Test the Logger class
const logger = new Logger('log.txt');
logger.logInfo('This is an info message');
logger.logWarning('This is a warning message');
logger.logError('This is an error message');

const logContents = fs.readFileSync('log.txt', 'utf-8');
console.log(logContents);

// Cleanup
fs.unlinkSync('log.txt');