#include <iostream>
#include <vector>
#include <algorithm>
#include <cassert>
#include <numeric>

// Helper function to generate a vector of integers
std::vector<int> generateData(int size) {
    std::vector<int> data(size);
    for(int i = 0; i < size; ++i) {
        data[i] = rand() % 100; // Random integers between 0 and 99
    }
    return data;
}

// Helper function to print a vector
void printVector(const std::vector<int>& vec) {
    for(int num : vec) {
        std::cout << num << " ";
    }
    std::cout << std::endl;
}

// Function to find the maximum value in a vector using iterators
int findMaxValue(const std::vector<int>& vec) {
    if (vec.empty()) {
        throw std::invalid_argument("Vector is empty");
    }
    return *std::max_element(vec.begin(), vec.end());
}

// Function to sort a vector in ascending order
void sortVector(std::vector<int>& vec) {
    std::sort(vec.begin(), vec.end());
}

int main() {
    // Generate a vector of 10 random integers
    std::vector<int> data = generateData(10);
    printVector(data);

    // Find the maximum value in the vector
    int maxValue = findMaxValue(data);
    std::cout << "Max value: " << maxValue << std::endl;

    // Sort the vector in ascending order
    sortVector(data);
    printVector(data);

    // Sum of all elements in the vector
    int sum = 0;
    for(int num : data) {
        sum += num;
    }
    std::cout << "Sum of elements: " << sum << std::endl;

    // Ensure the vector is sorted
    for (size_t i = 1; i < data.size(); ++i) {
        assert(data[i-1] <= data[i]);
    }

    // Ensure the sum is correct
    assert(sum == std::accumulate(data.begin(), data.end(), 0));

    // Ensure the maximum value is correct
    assert(maxValue == *std::max_element(data.begin(), data.end()));

    return 0;
}
