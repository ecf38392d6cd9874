// Ensure the fetchLatestTransactions function is properly documented and implemented
const docString = fetchLatestTransactions.toString();
assert(docString.includes('async function fetchLatestTransactions'), 'Function name and async keyword should be present');
assert(docString.includes('Mocking an API call with a delay'), 'Internal function comment should mention mocking');
assert(docString.includes('transactions.push'), 'Function should push new transaction');
assert(docString.includes('new Date()'), 'Function should use new Date()');
assert(docString.includes('resolve();'), 'Function should resolve the promise');