const docString = `/**
 * Function to evaluate the portfolio based on various criteria
 * @param portfolio - The portfolio to evaluate
 * @returns An object with the total value and risk level
 */`;
assert(docString.includes('portfolio'));
assert(docString.includes('total value'));
assert(docString.includes('risk level'));
assert(docString.includes('@param portfolio'));
assert(docString.includes('@returns An object'));