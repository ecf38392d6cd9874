#include <iostream>
#include <vector>
#include <cmath>
#include <cassert>

// Function to calculate the mean of a vector of doubles

double mean(const std::vector<double>& data) {
    double sum = 0.0;
    for (double value : data) {
        sum += value;
    }
    return sum / data.size();
}

// Function to calculate the variance of a vector of doubles

double variance(const std::vector<double>& data) {
    double mean_value = mean(data);
    double sum = 0.0;
    for (double value : data) {
        sum += (value - mean_value) * (value - mean_value);
    }
    return sum / data.size();
}

// Function to calculate the standard deviation of a vector of doubles
double standard_deviation(const std::vector<double>& data) {
    double variance_value = variance(data);
    return sqrt(variance_value);
}

int main() {
    std::vector<double> data = {1.0, 2.0, 3.0, 4.0, 5.0};
    double std_dev = standard_deviation(data);
    std::cout << "Standard Deviation: " << std_dev << std::endl;

    // Assertions to verify the calculations
    assert(std::abs(mean(data) - 3.0) < 1e-9);
    assert(std::abs(variance(data) - 2.0) < 1e-9);
    assert(std::abs(std_dev - std::sqrt(2.0)) < 1e-9);

    return 0;
}