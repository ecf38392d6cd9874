import * as assert from 'assert';

type DataEntry = {
  timestamp: string;
  value: number;
};

type DataSet = DataEntry[];

class DataProcessor {
  data: DataSet;

  constructor(data: DataSet) {
    this.data = data;
  }

  filterByDate(startDate: string, endDate: string): DataSet {
    return this.data.filter(entry => entry.timestamp >= startDate && entry.timestamp <= endDate);
  }

  calculateAverage(data: DataSet): number {
    const total = data.reduce((acc, entry) => acc + entry.value, 0);
    return total / data.length;
  }

  findMaxValue(data: DataSet): number {
    return data.reduce((max, entry) => entry.value > max ? entry.value : max, data[0].value);
  }

  // Add the new method pattern here
findMinValue(data: DataSet): number {
    return data.reduce((min, entry) => entry.value < min ? entry.value : min, data[0].value);
  }
}

// Test data
const testData: DataSet = [
  { timestamp: '2023-01-01', value: 10 },
  { timestamp: '2023-01-02', value: 20 },
  { timestamp: '2023-01-03', value: 30 },
  { timestamp: '2023-01-04', value: 40 },
  { timestamp: '2023-01-05', value: 50 }
];

const processor = new DataProcessor(testData);
const filteredData = processor.filterByDate('2023-01-02', '2023-01-04');
const average = processor.calculateAverage(filteredData);
const maxValue = processor.findMaxValue(filteredData);
const minValue = processor.findMinValue(filteredData);

assert.strictEqual(filteredData.length, 3);
assert.strictEqual(average, 30);
assert.strictEqual(maxValue, 40);
assert.strictEqual(minValue, 20);

console.log('All tests passed.');