#include <iostream>
#include <vector>
#include <cmath>
#include <cassert>

// Helper function to calculate mean
double calculateMean(const std::vector<double>& data) {
    double sum = 0.0;
    for (double value : data) {
        sum += value;
    }
    return sum / data.size();
}

// Helper function to calculate variance
double calculateVariance(const std::vector<double>& data, double mean) {
    double variance = 0.0;
    for (double value : data) {
        variance += (value - mean) * (value - mean);
    }
    return variance / data.size();
}

// Function to calculate standard deviation
double calculateStandardDeviation(const std::vector<double>& data, double mean) {
    double variance = calculateVariance(data, mean);
    return std::sqrt(variance);
}
int main() {
    std::vector<double> data = {1.0, 2.0, 3.0, 4.0, 5.0};
    double mean = calculateMean(data);
    double variance = calculateVariance(data, mean);
    double stddev = calculateStandardDeviation(data, mean);

    // Assertions to verify correctness
    assert(std::abs(mean - 3.0) < 1e-9);
    assert(std::abs(variance - 2.0) < 1e-9);
    assert(std::abs(stddev - std::sqrt(2.0)) < 1e-9);

    std::cout << "All assertions passed!" << std::endl;
    return 0;
}