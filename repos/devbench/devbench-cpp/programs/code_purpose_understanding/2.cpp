#include <iostream>
#include <string>
#include <fstream>
#include <sstream>
#include <vector>
#include <regex>
#include <cassert>
#include <cstdio>

class DataCleaner {
public:
    DataCleaner(const std::string& filename) : filename_(filename) {}

    void loadData() {
        std::ifstream file(filename_);
        if (!file.is_open()) {
            throw std::runtime_error("Could not open file");
        }
        std::string line;
        while (std::getline(file, line)) {
            data_.push_back(line);
        }
    }

    void cleanData() {
        for (auto& line : data_) {
            line = std::regex_replace(line, std::regex("[^\\w\\s]"), ""); // Remove special characters
            line = std::regex_replace(line, std::regex("\\s+"), " "); // Normalize whitespace
        }
    }

    std::vector<std::string> getData() const {
        return data_;
    }

private:
    std::string filename_;
    std::vector<std::string> data_;
};

int main() {
    try {
        // Create a test file with sample data
        std::ofstream testFile("data.txt");
        testFile << "Hello, World!\n";
        testFile << "  Test   data  with  spaces  \n";
        testFile << "Special#$%characters@!\n";
        testFile.close();
        
        DataCleaner cleaner("data.txt");
        cleaner.loadData();
        cleaner.cleanData();
        auto data = cleaner.getData();

        // Assertions to verify data cleaning
        assert(!data.empty());
        assert(data[0].find_first_not_of(" \t\n\r") != std::string::npos); // Ensure not empty or whitespace only
        assert(std::regex_match(data[0], std::regex("^[\\w\\s]*$"))); // Ensure no special characters
        assert(std::regex_match(data[0], std::regex("^[^\\s].*[^\\s]$"))); // Ensure no leading/trailing spaces
        assert(std::regex_match(data[0], std::regex("^.*[^\\s]{2,}.*$"))); // Ensure no multiple spaces
        
        // Clean up the test file
        std::remove("data.txt");
    } catch (const std::exception& e) {
        std::cerr << "Error: " << e.what() << std::endl;
        std::remove("data.txt"); // Clean up even on error
        return 1;
    }

    return 0;
}