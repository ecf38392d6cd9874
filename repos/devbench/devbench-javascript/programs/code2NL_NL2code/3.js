const assert = require('assert');

/**
 * Class representing a simple financial portfolio.
 */
class Portfolio {
    /**
     * Create a portfolio.
     * @param {Array} investments - An array of investment objects.
     */
    constructor(investments) {
        this.investments = investments;
    }

    /**
     * Calculate the total value of the portfolio.
     * @return {number} The total value of all investments.
     */
    totalValue() {
        let total = 0;
        for (const investment of this.investments) {
            total += investment.value;
        }
        return total;
    }

    /**
     * Calculate the average return rate of the portfolio.
     * @return {number} The average return rate of the investments.
     */
    averageReturnRate() {
        let totalReturnRate = 0;
        for (const investment of this.investments) {
            totalReturnRate += investment.returnRate;
        }
        return totalReturnRate / this.investments.length;
    }

    /**
     * Get the investment with the highest value.
     * @return {Object} The investment object with the highest value.
     */
    highestValueInvestment() {
        return this.investments.reduce((max, investment) => investment.value > max.value ? investment : max, this.investments[0]);
    }
}

// Example usage:
const investments = [
    { name: 'Stock A', value: 1000, returnRate: 0.05 },
    { name: 'Stock B', value: 1500, returnRate: 0.07 },
    { name: 'Bond A', value: 500, returnRate: 0.03 }
];
const portfolio = new Portfolio(investments);

// Assertions:
assert.strictEqual(portfolio.totalValue(), 3000);
assert.strictEqual(portfolio.highestValueInvestment().name, 'Stock B');
assert(Math.abs(portfolio.averageReturnRate() - 0.05) < 0.0001);