import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
const readFileAsync = promisify(fs.readFile);
const writeFileAsync = promisify(fs.writeFile);

// Define a structure to hold log data
interface LogData {
  timestamp: string;
  level: string;
  message: string;
}

// Utility function to get current timestamp
function getCurrentTimestamp(): string {
  return new Date().toISOString();
}

// Function to log a message
async function logMessage(level: string, message: string, filePath: string): Promise<void> {
  const logEntry: LogData = {
    timestamp: getCurrentTimestamp(),
    level,
    message
  };
  const logString = JSON.stringify(logEntry) + '\n';
  await writeFileAsync(filePath, logString, { flag: 'a' });
}

// Function to read and parse log file
async function readLogFile(filePath: string): Promise<LogData[]> {
  try {
    const data = await readFileAsync(filePath, 'utf-8');
    return data.split('\n').filter(line => line.trim() !== '').map(line => JSON.parse(line));
  } catch (err) {
    console.error('Failed to read log file:', err);
    return [];
  }
}

// Sample usage of the logging functions
const logFilePath = path.join(__dirname, 'logs.txt');

// Function to filter logs by level
async function filterLogsByLevel(filePath: string, level: string): Promise<LogData[]> {
  const logs = await readLogFile(filePath);
  return logs.filter(log => log.level === level);
}
async function countLogEntries(filePath: string): Promise<number> {
  const logs = await readLogFile(filePath);
  return logs.length;
}
async function clearLogFile(filePath: string): Promise<void> {
  try {
    await writeFileAsync(filePath, '');
    console.log('Log file cleared');
  } catch (err) {
    console.error('Failed to clear log file:', err);
  }
}