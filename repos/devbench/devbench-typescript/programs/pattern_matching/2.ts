interface DataPoint {
    x: number;
    y: number;
}

class LinearRegression {
    private data: DataPoint[] = [];

    addDataPoint(point: DataPoint): void {
        this.data.push(point);
    }

    private calculateMean(values: number[]): number {
        const sum = values.reduce((acc, val) => acc + val, 0);
        return sum / values.length;
    }

    private calculateVariance(values: number[], mean: number): number {
        return values.reduce((acc, val) => acc + (val - mean) ** 2, 0) / values.length;
    }

    private calculateCovariance(xValues: number[], yValues: number[], xMean: number, yMean: number): number {
        let covariance = 0;
        for (let i = 0; i < xValues.length; i++) {
            covariance += (xValues[i] - xMean) * (yValues[i] - yMean);
        }
        return covariance / xValues.length;
    }

    private extractXValues(): number[] {
        return this.data.map(point => point.x);
    }

    private extractYValues(): number[] {
        return this.data.map(point => point.y);
    }

    public calculateCoefficients(): { slope: number; intercept: number } {
        const xValues = this.extractXValues();
        const yValues = this.extractYValues();
        const xMean = this.calculateMean(xValues);
        const yMean = this.calculateMean(yValues);
        const varianceX = this.calculateVariance(xValues, xMean);
        const covarianceXY = this.calculateCovariance(xValues, yValues, xMean, yMean);
        const slope = covarianceXY / varianceX;
        const intercept = yMean - slope * xMean;
        return { slope, intercept };
    }
}

const model = new LinearRegression();
model.addDataPoint({ x: 1, y: 2 });
model.addDataPoint({ x: 2, y: 3 });
model.addDataPoint({ x: 3, y: 4 });
const coefficients = model.calculateCoefficients();
console.log(`Slope: ${coefficients.slope}`);
console.log(`Intercept: ${coefficients.intercept}`);

// Validate the correctness of the model
const expectedSlope = 1;
const expectedIntercept = 1;
console.assert(coefficients.slope === expectedSlope, `Expected slope to be ${expectedSlope}, but got ${coefficients.slope}`);
console.assert(coefficients.intercept === expectedIntercept, `Expected intercept to be ${expectedIntercept}, but got ${coefficients.intercept}`);
// Cleanup code if any (none needed in this case)
