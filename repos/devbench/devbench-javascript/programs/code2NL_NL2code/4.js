const assert = require('assert');

/**
 * Represents a financial portfolio containing various assets.
 */
class Portfolio {
  /**
   * Creates a new portfolio.
   * @param {string} owner - The name of the portfolio owner.
   */
  constructor(owner) {
    this.owner = owner;
    this.assets = [];
  }

  /**
   * Adds an asset to the portfolio.
   * @param {string} name - The name of the asset.
   * @param {number} value - The value of the asset.
   */
  addAsset(name, value) {
    this.assets.push({ name, value });
  }

  /**
   * Calculates the total value of the portfolio.
   * @returns {number} The total value of all assets in the portfolio.
   */
  calculateTotalValue() {
    return this.assets.reduce((total, asset) => total + asset.value, 0);
  }
}

// Example usage
const myPortfolio = new Portfolio('John Doe');
myPortfolio.addAsset('Stock A', 10000);
myPortfolio.addAsset('Bond B', 5000);

// Calculate and assert the total value
assert.strictEqual(myPortfolio.calculateTotalValue(), 15000);

/**
 * Validates if the portfolio meets a certain minimum value requirement.
 * @param {Portfolio} portfolio - The portfolio to validate.
 * @param {number} minValue - The minimum value requirement.
 * @returns {boolean} True if the portfolio meets the requirement, false otherwise.
 */
function validatePortfolioValue(portfolio, minValue) {
  return portfolio.calculateTotalValue() >= minValue;

}

// Example usage
const isValid = validatePortfolioValue(myPortfolio, 12000);
assert.strictEqual(isValid, true);

const isInvalid = validatePortfolioValue(myPortfolio, 20000);
assert.strictEqual(isInvalid, false);

// Cleanup (if any resources to clean, not applicable here)
