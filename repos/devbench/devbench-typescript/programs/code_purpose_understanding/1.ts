import * as assert from 'assert';

// Define a type for a data entry
interface DataEntry {
    timestamp: string;
    value: number;
}

// Define a type for a dataset
interface Dataset {
    entries: DataEntry[];
}

// Function to parse CSV data into a Dataset
function parseCSV(data: string): Dataset {
    const lines = data.split('\n');
    const entries: DataEntry[] = lines.slice(1).map(line => {
        const [timestamp, value] = line.split(',');
        return { timestamp, value: parseFloat(value) };
    });
    return { entries };
}

// Function to clean dataset by removing invalid entries
function cleanDataset(dataset: Dataset): Dataset {
    const cleanedEntries = dataset.entries.filter(entry => !isNaN(entry.value));
    return { entries: cleanedEntries };
}

// Function to normalize dataset values to a range of 0 to 1
function normalizeDataset(dataset: Dataset): Dataset {
    const minValue = Math.min(...dataset.entries.map(entry => entry.value));
    const maxValue = Math.max(...dataset.entries.map(entry => entry.value));
    const normalizedEntries = dataset.entries.map(entry => ({
        ...entry,
        value: (entry.value - minValue) / (maxValue - minValue)
    }));
    return { entries: normalizedEntries };
}

// Example CSV data
const csvData = `timestamp,value
2023-01-01T00:00:00Z,10
2023-01-01T01:00:00Z,20
2023-01-01T02:00:00Z,30
2023-01-01T03:00:00Z,NaN
2023-01-01T04:00:00Z,50`;

// Parse the CSV data
const dataset = parseCSV(csvData);

// Clean the dataset
const cleanedDataset = cleanDataset(dataset);

// Expected cleaned dataset entries
const expectedCleanedEntries = [
    { timestamp: '2023-01-01T00:00:00Z', value: 10 },
    { timestamp: '2023-01-01T01:00:00Z', value: 20 },
    { timestamp: '2023-01-01T02:00:00Z', value: 30 },
    { timestamp: '2023-01-01T04:00:00Z', value: 50 }
];

// Assert that the cleaned dataset matches the expected cleaned entries
assert.deepStrictEqual(cleanedDataset.entries, expectedCleanedEntries);



// Normalize the cleaned dataset
const normalizedDataset = normalizeDataset(cleanedDataset);

// Example assertions (not actual expected values)
const expectedNormalizedEntries = [
    { timestamp: '2023-01-01T00:00:00Z', value: 0 },
    { timestamp: '2023-01-01T01:00:00Z', value: 0.25 },
    { timestamp: '2023-01-01T02:00:00Z', value: 0.5 },
    { timestamp: '2023-01-01T04:00:00Z', value: 1 }
];

// Assert that the normalized dataset matches the expected normalized entries
assert.deepStrictEqual(normalizedDataset.entries, expectedNormalizedEntries);

// Cleanup code (if any)
