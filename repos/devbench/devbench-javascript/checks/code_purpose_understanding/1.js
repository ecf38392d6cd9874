readJSONFile(logFilePath).then(data => {
  const lastLog = data.logs[data.logs.length - 1];
  console.assert(lastLog.type === 'ERROR', 'Expected log type to be ERROR');
  console.assert(lastLog.message === 'An error occurred', 'Expected log message to be "An error occurred"');
  console.assert(new Date(lastLog.timestamp).toString() !== 'Invalid Date', 'Expected valid timestamp');
}).catch(err => {
  console.error('Assertion error:', err);
});
