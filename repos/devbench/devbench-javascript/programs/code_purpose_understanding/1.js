const fs = require('fs');
const path = require('path');

// Helper function to read JSON data from a file
function readJSONFile(filePath) {
  return new Promise((resolve, reject) => {
    fs.readFile(filePath, 'utf8', (err, data) => {
      if (err) {
        reject(err);
      } else {
        try {
          const jsonData = JSON.parse(data);
          resolve(jsonData);
        } catch (parseErr) {
          reject(parseErr);
        }
      }
    });
  });
}

// Helper function to write JSON data to a file
function writeJSONFile(filePath, jsonData) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(jsonData, null, 2);
    fs.writeFile(filePath, data, 'utf8', (err) => {
      if (err) {
        reject(err);
      } else {
        resolve();
      }
    });
  });
}

const logFilePath = path.join(__dirname, 'log.json');

// Initial log data
const initialLogData = { logs: [] };

// Write initial log data to file
writeJSONFile(logFilePath, initialLogData).then(() => {
  console.log('Initial log data written.');
}).catch(err => {
  console.error('Error writing initial log data:', err);
});

// Function to log an event
function logEvent(event) {
  return readJSONFile(logFilePath)
    .then(data => {
      data.logs.push(event);
      return writeJSONFile(logFilePath, data);
    })
    .then(() => {
      console.log('Event logged:', event);
    })
    .catch(err => {
      console.error('Error logging event:', err);
    });
}

// Example usage
logEvent({ type: 'ERROR', message: 'An error occurred', timestamp: new Date().toISOString() });

// Assertions
readJSONFile(logFilePath).then(data => {
  const lastLog = data.logs[data.logs.length - 1];
  console.assert(lastLog.type === 'ERROR', 'Expected log type to be ERROR');
  console.assert(lastLog.message === 'An error occurred', 'Expected log message to be "An error occurred"');
  console.assert(new Date(lastLog.timestamp).toString() !== 'Invalid Date', 'Expected valid timestamp');
}).catch(err => {
  console.error('Assertion error:', err);
});
