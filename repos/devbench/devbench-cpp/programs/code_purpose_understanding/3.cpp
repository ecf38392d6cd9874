#include <iostream>
#include <vector>
#include <algorithm>
#include <cassert>
#include <unordered_map>

// Class representing statistical data analysis
class DataAnalyzer {
private:
    std::vector<int> data;

public:
    // Constructor to initialize the data
    DataAnalyzer(const std::vector<int>& inputData) : data(inputData) {}

    // Function to calculate the mean of the data
    double calculateMean() const {
        if (data.empty()) {
            throw std::runtime_error("Data is empty");
        }
        int sum = 0;
        for (int value : data) {
            sum += value;
        }
        return static_cast<double>(sum) / data.size();
    }

    // Function to calculate the median of the data
    double calculateMedian() const {
        if (data.empty()) {
            throw std::runtime_error("Data is empty");
        }
        std::vector<int> sortedData = data;
        std::sort(sortedData.begin(), sortedData.end());
        size_t size = sortedData.size();
        if (size % 2 == 0) {
            return (sortedData[size / 2 - 1] + sortedData[size / 2]) / 2.0;
        } else {
            return sortedData[size / 2];
        }
    }

    // Function to calculate the mode of the data
    int calculateMode() const {
        if (data.empty()) {
            throw std::runtime_error("Data is empty");
        }
        std::unordered_map<int, int> frequency;
        for (int value : data) {
            frequency[value]++;
        }
        return std::max_element(frequency.begin(), frequency.end(), [](const std::pair<int, int>& a, const std::pair<int, int>& b) {
            return a.second < b.second;
        })->first;
    }
};

int main() {
    std::vector<int> inputData = {1, 2, 2, 3, 4};
    DataAnalyzer analyzer(inputData);

    // Calculate and assert the mean
    double mean = analyzer.calculateMean();
    std::cout << "Mean: " << mean << std::endl;
    assert(mean == 2.4);

    // Calculate and assert the median
    double median = analyzer.calculateMedian();
    std::cout << "Median: " << median << std::endl;
    assert(median == 2);

    // Calculate and assert the mode
    int mode = analyzer.calculateMode();
    std::cout << "Mode: " << mode << std::endl;

    assert(mode == 2);
    // Further analysis can be added here
    std::cout << "Further analysis complete." << std::endl;

    return 0;
}