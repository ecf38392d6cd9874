#include <iostream>
#include <vector>
#include <cassert>

// This example demonstrates algorithm implementation with a focus on higher-order functions
// Specifically, we are implementing a simple map function and using it in a scientific computing context

// Function to apply a given function to each element of a vector
std::vector<double> map(const std::vector<double>& data, double (*func)(double)) {
    std::vector<double> result;
    result.reserve(data.size());
    for (const auto& elem : data) {
        result.push_back(func(elem));
    }
    return result;
}

// Example function to pass to map: squares a number
double square(double x) {
    return x * x;
}

// Example function to pass to map: takes the square root of a number
#include <cmath>
double sqrt_func(double x) {
    return std::sqrt(x);
}

// Example function to pass to map: negates a number
double negate(double x) {
    return -x;
}

// Main function demonstrating the usage of map function in scientific computing
int main() {
    std::vector<double> data = {1.0, 4.0, 9.0, 16.0};

    // Applying the square function
    std::vector<double> squared_data = map(data, square);
    for (const auto& elem : squared_data) {
        std::cout << elem << " ";
    }
    std::cout << std::endl;

    // Applying the square root function
    std::vector<double> sqrt_data = map(data, sqrt_func);
    for (const auto& elem : sqrt_data) {
        std::cout << elem << " ";
    }
    std::cout << std::endl;

    // Assertions to verify the correctness of the map function
    assert(squared_data[0] == 1.0);
    assert(squared_data[1] == 16.0);
    assert(squared_data[2] == 81.0);
    assert(squared_data[3] == 256.0);

    assert(sqrt_data[0] == 1.0);
    assert(sqrt_data[1] == 2.0);
    assert(sqrt_data[2] == 3.0);
    assert(sqrt_data[3] == 4.0);
    // Applying the negate function
    std::vector<double> negated_data = map(data, negate);
    for (const auto& elem : negated_data) {
        std::cout << elem << " ";
    }
    std::cout << std::endl;

    // Assertions to verify the correctness of the negate function
    assert(negated_data[0] == -1.0);
    assert(negated_data[1] == -4.0);
    assert(negated_data[2] == -9.0);
    assert(negated_data[3] == -16.0);

    return 0;
}