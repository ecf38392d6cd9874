const fs = require('fs');

class Logger {
    constructor(filePath) {
        this.filePath = filePath;
    }

    logInfo(message) {
        const logMessage = `[INFO] ${new Date().toISOString()} - ${message}\n`;
        fs.appendFileSync(this.filePath, logMessage);
    }

    logWarning(message) {
        const logMessage = `[WARNING] ${new Date().toISOString()} - ${message}\n`;
        fs.appendFileSync(this.filePath, logMessage);
    }

logError(message) {
        const logMessage = `[ERROR] ${new Date().toISOString()} - ${message}\n`;
        fs.appendFileSync(this.filePath, logMessage);
    }
}

// Example usage
const logger = new Logger('app.log');
logger.logInfo('Application started');
logger.logWarning('Low disk space');
logger.logError('Unhandled exception');

const logs = fs.readFileSync('app.log', 'utf8');
console.log(logs);