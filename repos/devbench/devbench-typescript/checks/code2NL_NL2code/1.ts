const docString = `/**
 * Validates that the portfolio is not empty and that asset values are positive.
 * @param portfolio The portfolio to validate.
 * @throws Will throw an error if the portfolio is empty or contains assets with non-positive values.
 */`;
assert(docString.toLowerCase().includes('portfolio'));
assert(docString.includes('@param'));
assert(docString.includes('@throws'));
assert(docString.includes('non-positive'));
assert(docString.includes('positive'));

const testPortfolio: Portfolio = { assets: [] };
try {
    validatePortfolio(testPortfolio);
} catch (error) {
    assert.strictEqual(error.message, 'Portfolio is empty');
}

const invalidPortfolio: Portfolio = { assets: [{ name: 'Stock D', value: -1000 }] };
try {
    validatePortfolio(invalidPortfolio);
} catch (error) {
    assert.strictEqual(error.message, 'Asset value for Stock D must be positive');
}

const validPortfolio: Portfolio = { assets: [{ name: 'Stock E', value: 1000 }] };
try {
    validatePortfolio(validPortfolio);
    assert(true);
} catch {
    assert(false);
}
