assert.strictEqual(validatePortfolioValue(myPortfolio, 12000), true);
assert.strictEqual(validatePortfolioValue(myPortfolio, 20000), false);
assert.strictEqual(validatePortfolioValue(myPortfolio, 15000), true);
assert.strictEqual(validatePortfolioValue(myPortfolio, 14999), true);
