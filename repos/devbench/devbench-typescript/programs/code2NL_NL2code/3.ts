import assert from 'assert';

/**
 * Interface representing a financial asset in a portfolio
 */
interface Asset {
	name: string;
	quantity: number;
	pricePerUnit: number;
}

/**
 * Interface representing a portfolio
 */
interface Portfolio {
	assets: Asset[];
}

/**
 * Function to calculate the total value of a portfolio
 * @param portfolio - The portfolio containing various assets
 * @returns The total value of the portfolio
 */
function calculatePortfolioValue(portfolio: Portfolio): number {
	let totalValue = 0;
	for (const asset of portfolio.assets) {
		totalValue += asset.quantity * asset.pricePerUnit;
	}
	return totalValue;
}

/**
 * Function to assess the risk level of a portfolio based on asset allocation
 * @param portfolio - The portfolio to assess
 * @returns The risk level as a string
 */
function assessPortfolioRisk(portfolio: Portfolio): string {
	let totalValue = calculatePortfolioValue(portfolio);
	let stockValue = 0;
	let bondValue = 0;
	for (const asset of portfolio.assets) {
		if (asset.name === 'Stock') {
			stockValue += asset.quantity * asset.pricePerUnit;
		} else if (asset.name === 'Bond') {
			bondValue += asset.quantity * asset.pricePerUnit;
		}
	}
	const stockPercentage = stockValue / totalValue;
	if (stockPercentage > 0.7) {
		return 'High Risk';
	} else if (stockPercentage > 0.4) {
		return 'Moderate Risk';
	} else {
		return 'Low Risk';
	}
}

/**
 * Example portfolio
 */
const portfolio: Portfolio = {
	assets: [
		{name: 'Stock', quantity: 50, pricePerUnit: 200},
		{name: 'Bond', quantity: 100, pricePerUnit: 100},
	]
};

// Calculate and assert the total portfolio value
const totalValue = calculatePortfolioValue(portfolio);
assert.strictEqual(totalValue, 20000);

// Assess and assert the portfolio risk level
const riskLevel = assessPortfolioRisk(portfolio);
assert.strictEqual(riskLevel, 'Moderate Risk');

/**
 * Function to evaluate the portfolio based on various criteria
 * @param portfolio - The portfolio to evaluate
 * @returns An object with the total value and risk level
 */

function evaluatePortfolio(portfolio: Portfolio): { totalValue: number; riskLevel: string } {
	const totalValue = calculatePortfolioValue(portfolio);
	const riskLevel = assessPortfolioRisk(portfolio);
	return { totalValue, riskLevel };
}
const evaluation = evaluatePortfolio(portfolio);
assert.strictEqual(evaluation.totalValue, 20000);
assert.strictEqual(evaluation.riskLevel, 'Moderate Risk');

console.log('All assertions passed.');