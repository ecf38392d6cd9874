import * as assert from 'assert';

// Helper function to calculate the mean of an array of numbers
function calculateMean(numbers: number[]): number {
    if (numbers.length === 0) throw new Error('Array cannot be empty');
    const sum = numbers.reduce((acc, val) => acc + val, 0);
    return sum / numbers.length;
}

// Helper function to calculate the median of an array of numbers
function calculateMedian(numbers: number[]): number {
    if (numbers.length === 0) throw new Error('Array cannot be empty');
    const sorted = numbers.slice().sort((a, b) => a - b);
    const mid = Math.floor(sorted.length / 2);
    if (sorted.length % 2 === 0) {
        return (sorted[mid - 1] + sorted[mid]) / 2;
    } else {
        return sorted[mid];
    }
}

// Helper function to calculate the mode of an array of numbers
function calculateMode(numbers: number[]): number[] {
    if (numbers.length === 0) throw new Error('Array cannot be empty');
    const frequency: { [key: number]: number } = {};
    numbers.forEach(num => {
        frequency[num] = (frequency[num] || 0) + 1;
    });
    const maxFreq = Math.max(...Object.values(frequency));
    return Object.keys(frequency).filter(key => frequency[Number(key)] === maxFreq).map(Number);
}

// Helper function to calculate the variance of an array of numbers
function calculateVariance(numbers: number[]): number {
    if (numbers.length === 0) throw new Error('Array cannot be empty');
    const mean = calculateMean(numbers);
    const squaredDiffs = numbers.map(num => Math.pow(num - mean, 2));
    return calculateMean(squaredDiffs);
}

// Helper function to calculate the standard deviation of an array of numbers
function calculateStandardDeviation(numbers: number[]): number {
    if (numbers.length === 0) throw new Error('Array cannot be empty');
    const variance = calculateVariance(numbers);
    return Math.sqrt(variance);
}

// Sample data for testing
const sampleData = [2, 4, 4, 4, 5, 5, 7, 9];

// Calculate mean, median, mode, variance, and standard deviation
const mean = calculateMean(sampleData);
const median = calculateMedian(sampleData);
const mode = calculateMode(sampleData);
const variance = calculateVariance(sampleData);
const stdDev = calculateStandardDeviation(sampleData);

// Assertions to verify the calculations
assert.strictEqual(mean, 5);
assert.strictEqual(median, 4.5);
assert.deepStrictEqual(mode, [4]);
assert.strictEqual(variance, 4);
assert.strictEqual(stdDev, 2);

console.log('All tests passed');