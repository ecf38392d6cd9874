import * as assert from 'assert';

interface DataPoint {
    x: number;
    y: number;
}

class Statistics {
    private data: DataPoint[] = [];

    public addDataPoint(x: number, y: number): void {
        this.data.push({ x, y });
    }

    public calculateMean(): { meanX: number, meanY: number } {
        const total = this.data.reduce((acc, point) => {
            acc.x += point.x;
            acc.y += point.y;
            return acc;
        }, { x: 0, y: 0 });
        return {
            meanX: total.x / this.data.length,
            meanY: total.y / this.data.length
        };
    }

    public calculateVariance(): { varianceX: number, varianceY: number } {
        const mean = this.calculateMean();
        const varianceTotal = this.data.reduce((acc, point) => {
            acc.x += Math.pow(point.x - mean.meanX, 2);
            acc.y += Math.pow(point.y - mean.meanY, 2);
            return acc;
        }, { x: 0, y: 0 });
        return {
            varianceX: varianceTotal.x / this.data.length,
            varianceY: varianceTotal.y / this.data.length
        };
    }

    public calculateStandardDeviation(): { stdDevX: number, stdDevY: number } {
        const variance = this.calculateVariance();
        return {
            stdDevX: Math.sqrt(variance.varianceX),
            stdDevY: Math.sqrt(variance.varianceY)
        };
    }
}

const stats = new Statistics();
stats.addDataPoint(1, 2);
stats.addDataPoint(3, 4);
stats.addDataPoint(5, 6);

// Calculate and assert the mean values
const mean = stats.calculateMean();
assert.strictEqual(mean.meanX, 3);
assert.strictEqual(mean.meanY, 4);

// Calculate and assert the variance values
const variance = stats.calculateVariance();
assert.strictEqual(variance.varianceX, 8/3);
assert.strictEqual(variance.varianceY, 8/3);

// Calculate and assert the standard deviation values
const stdDev = stats.calculateStandardDeviation();
assert.strictEqual(stdDev.stdDevX, Math.sqrt(8/3));
assert.strictEqual(stdDev.stdDevY, Math.sqrt(8/3));

// Clean up resources or perform any final operations if necessary
