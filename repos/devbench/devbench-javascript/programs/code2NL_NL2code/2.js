const assert = require('assert');

/**
 * Class representing a portfolio for financial analysis.
 */
class Portfolio {
    constructor() {
        this.assets = [];
    }

    /**
     * Add an asset to the portfolio.
     * @param {string} name - The name of the asset.
     * @param {number} value - The value of the asset.
     */
    addAsset(name, value) {
        this.assets.push({ name, value });
    }

    /**
     * Calculate the total value of the portfolio.
     * @returns {number} The total value of all assets.
     */
    calculateTotalValue() {
        return this.assets.reduce((acc, asset) => acc + asset.value, 0);
    }

    // TODO: Implement risk assessment logic

    /**
     * Assess the risk level of the portfolio.
     * Risk is determined as 'High', 'Medium', or 'Low' based on asset values.
     * @returns {string} The risk level of the portfolio.
     */
    assessRisk() {
        const totalValue = this.calculateTotalValue();
        if (totalValue > 10000) {
            return 'High';
        } else if (totalValue > 5000) {
            return 'Medium';
        } else {
            return 'Low';
        }
    }

}

// Example usage
const portfolio = new Portfolio();
portfolio.addAsset('Stock A', 1500);
portfolio.addAsset('Bond B', 500);
assert(portfolio.calculateTotalValue() === 2000);

console.log('All assertions passed.');