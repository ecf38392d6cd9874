const testInvestments = [
    { name: 'Stock A', value: 1000, returnRate: 0.05 },
    { name: 'Stock B', value: 1500, returnRate: 0.07 },
    { name: 'Bond A', value: 500, returnRate: 0.03 }
];
const testPortfolio = new Portfolio(testInvestments);

// Validate total value calculation
assert.strictEqual(testPortfolio.totalValue(), 3000);

// Validate highest value investment
assert.strictEqual(testPortfolio.highestValueInvestment().name, 'Stock B');

// Validate average return rate calculation
assert(Math.abs(testPortfolio.averageReturnRate() - 0.05) < 0.0001);