#include <iostream>
#include <functional>
#include <vector>
#include <algorithm>
#include <cassert>
#include <cmath>

// A class that represents a collection of data points for scientific analysis
class DataCollection {
public:
    // Adds a data point to the collection
    void addDataPoint(double value) {
        data.push_back(value);
    }

    // Applies a given function to each data point and returns the results
    std::vector<double> applyFunction(const std::function<double(double)>& func) const {
        std::vector<double> results;
        for (double value : data) {
            results.push_back(func(value));
        }
        return results;
    }

private:
    std::vector<double> data;
};

// A utility function to generate some sample data
void generateSampleData(DataCollection& collection) {
    for (double i = 0.1; i <= 1.0; i += 0.1) {
        collection.addDataPoint(i);
    }
}

// A function that calculates the square of a number
std::function<double(double)> squareFunction = [](double x) { return x * x; };

// A function that calculates the cube of a number
std::function<double(double)> cubeFunction = [](double x) { return x * x * x; };

int main() {
    DataCollection collection;
    generateSampleData(collection);

    // Apply square function to each data point
    std::vector<double> squaredResults = collection.applyFunction(squareFunction);

    // Apply cube function to each data point
    std::vector<double> cubedResults = collection.applyFunction(cubeFunction);

    // Expected results for squared values
    std::vector<double> expectedSquaredResults = {0.01, 0.04, 0.09, 0.16, 0.25, 0.36, 0.49, 0.64, 0.81, 1.0};

    // Expected results for cubed values
    std::vector<double> expectedCubedResults = {0.001, 0.008, 0.027, 0.064, 0.125, 0.216, 0.343, 0.512, 0.729, 1.0};

    // Verify squared results
    for (size_t i = 0; i < squaredResults.size(); ++i) {
        assert(std::abs(squaredResults[i] - expectedSquaredResults[i]) < 1e-9);
    }
    // Verify cubed results
    for (size_t i = 0; i < cubedResults.size(); ++i) {
        assert(std::abs(cubedResults[i] - expectedCubedResults[i]) < 1e-9);
    }

    // Cleanup resources and exit
    return 0;
}