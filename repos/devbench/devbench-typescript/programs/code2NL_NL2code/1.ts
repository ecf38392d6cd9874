import { strict as assert } from 'assert';

/**
 * Represents a financial portfolio containing multiple assets.
 */
interface Portfolio {
    assets: Asset[];
}

/**
 * Represents a financial asset with a name and value.
 */
interface Asset {
    name: string;
    value: number;
}

/**
 * Calculates the total value of a portfolio.
 * @param portfolio The portfolio for which to calculate the total value.
 * @returns The total value of all assets in the portfolio.
 */
function calculateTotalValue(portfolio: Portfolio): number {
    let totalValue = 0;
    for (const asset of portfolio.assets) {
        totalValue += asset.value;
    }
    return totalValue;
}

/**
 * Analyzes the risk of a portfolio based on asset values.
 * @param portfolio The portfolio to analyze.
 * @returns A string indicating the risk level.
 */
function analyzeRisk(portfolio: Portfolio): string {
    const totalValue = calculateTotalValue(portfolio);
    if (totalValue > 1000000) {
        return 'High Risk';
    } else if (totalValue > 500000) {
        return 'Medium Risk';
    } else {
        return 'Low Risk';
    }
}

// Example usage:
const myPortfolio: Portfolio = {
    assets: [
        { name: 'Stock A', value: 300000 },
        { name: 'Stock B', value: 700000 },
        { name: 'Bond C', value: 100000 }
    ]
};

const riskLevel = analyzeRisk(myPortfolio);
console.log(`Risk Level: ${riskLevel}`);

// Assertions to verify the correctness of the functions
assert.strictEqual(calculateTotalValue(myPortfolio), 1100000);
assert.strictEqual(analyzeRisk(myPortfolio), 'High Risk');

/**
 * Generates a summary report of the portfolio.
 * @param portfolio The portfolio to summarize.
 * @returns A string containing the summary report.
 */
function generateSummaryReport(portfolio: Portfolio): string {
    const totalValue = calculateTotalValue(portfolio);
    const riskLevel = analyzeRisk(portfolio);
    let report = `Portfolio Summary:\n`;
    report += `Total Value: $${totalValue.toLocaleString()}\n`;
    report += `Risk Level: ${riskLevel}\n`;
    report += `Assets:\n`;
    for (const asset of portfolio.assets) {
        report += ` - ${asset.name}: $${asset.value.toLocaleString()}\n`;
    }
    return report;
}

const summaryReport = generateSummaryReport(myPortfolio);
console.log(summaryReport);

/**
 * Validates that the portfolio is not empty and that asset values are positive.
 * @param portfolio The portfolio to validate.
 * @throws Will throw an error if the portfolio is empty or contains assets with non-positive values.
 */

function validatePortfolio(portfolio: Portfolio): void {
    if (portfolio.assets.length === 0) {
        throw new Error('Portfolio is empty');
    }
    for (const asset of portfolio.assets) {
        if (asset.value <= 0) {
            throw new Error(`Asset value for ${asset.name} must be positive`);
        }
    }
}
assert.strictEqual(summaryReport.includes('Total Value: $1,100,000'), true);
assert.strictEqual(summaryReport.includes('Risk Level: High Risk'), true);
assert.strictEqual(summaryReport.includes('Stock A: $300,000'), true);
assert.strictEqual(summaryReport.includes('Stock B: $700,000'), true);
assert.strictEqual(summaryReport.includes('Bond C: $100,000'), true);

// Cleanup code (none required for this example)
