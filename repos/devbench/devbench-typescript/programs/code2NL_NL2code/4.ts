import { strict as assert } from 'assert';

/**
 * Represents a financial transaction with an amount and a timestamp.
 */
interface Transaction {
	amount: number;
	timestamp: Date;
}

/**
 * Calculates the total value of transactions within a specific time range.
 * @param transactions - Array of transactions to be analyzed.
 * @param start - Start date of the time range.
 * @param end - End date of the time range.
 * @returns The total value of transactions within the specified time range.
 */
function calculateTotalValue(transactions: Transaction[], start: Date, end: Date): number {
	let total = 0;
	for (const transaction of transactions) {
		if (transaction.timestamp >= start && transaction.timestamp <= end) {
			total += transaction.amount;
		}
	}
	return total;
}

/**
 * Filters transactions that fall within a specific time range.
 * @param transactions - Array of transactions to be filtered.
 * @param start - Start date of the time range.
 * @param end - End date of the time range.
 * @returns A filtered array of transactions within the specified time range.
 */
function filterTransactions(transactions: Transaction[], start: Date, end: Date): Transaction[] {
	return transactions.filter(transaction => transaction.timestamp >= start && transaction.timestamp <= end);
}

const transactions: Transaction[] = [
	{ amount: 100, timestamp: new Date('2023-01-01') },
	{ amount: 200, timestamp: new Date('2023-02-01') },
	{ amount: -50, timestamp: new Date('2023-03-01') },
	{ amount: 300, timestamp: new Date('2023-04-01') }
];

const start = new Date('2023-01-01');
const end = new Date('2023-03-01');

const totalValue = calculateTotalValue(transactions, start, end);
const filteredTransactions = filterTransactions(transactions, start, end);
/**
 * Fetches the latest transactions from a hypothetical API and updates the transaction list.
 * @returns A promise that resolves when the transactions are updated.
 */
async function fetchLatestTransactions(): Promise<void> {
	// Mocking an API call with a delay
	return new Promise((resolve) => {
		setTimeout(() => {
			transactions.push({ amount: 400, timestamp: new Date() });
			resolve();
		}, 1000);
	});
}

// Call the function to fetch latest transactions
fetchLatestTransactions().then(() => {
	console.log('Transactions updated:', transactions);
});
// Example usage of the functions
console.log(`Total Value: $${totalValue}`);
console.log(`Filtered Transactions: ${JSON.stringify(filteredTransactions)}`);

// Assertions
assert(totalValue === 250, 'Total value should be 250');
assert(filteredTransactions.length === 3, 'There should be 3 transactions within the date range');
assert(filteredTransactions[0].amount === 100, 'First transaction amount should be 100');
assert(filteredTransactions[2].amount === -50, 'Third transaction amount should be -50');