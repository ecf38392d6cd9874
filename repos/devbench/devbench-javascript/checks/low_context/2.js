console.assert(calc.add(5, 3) === 8, 'Add method failed');
console.assert(calc.subtract(9, 4) === 5, 'Subtract method failed');
console.assert(calc.multiply(4, 5) === 20, 'Multiply method failed');