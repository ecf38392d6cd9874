import * as assert from 'assert';
(async () => {
  await logMessage('info', 'Test log entry 1', logFilePath);
  await logMessage('info', 'Test log entry 2', logFilePath);
  const logCount = await countLogEntries(logFilePath);
  assert.strictEqual(logCount, 2, 'Log count should be 2');
  await clearLogFile(logFilePath);
})();