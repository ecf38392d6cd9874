class Calculator {
  add(a, b) {
    return a + b;
  }

  subtract(a, b) {
    return a - b;
  }

  multiply(a, b) {
    return a * b;
  }
}

const calc = new Calculator();
console.assert(calc.add(5, 3) === 8, 'Add method failed');
console.assert(calc.subtract(9, 4) === 5, 'Subtract method failed');
console.assert(calc.multiply(4, 5) === 20, 'Multiply method failed');