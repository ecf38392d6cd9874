#include <iostream>
#include <vector>
#include <algorithm>
#include <numeric>
#include <functional>
#include <cassert>

class Simulation {
public:
    Simulation(int size) : size(size), data(size, 0.0) {}

    void initialize(double value) {
        std::fill(data.begin(), data.end(), value);
    }

    void applyTransformation(std::function<double(double)> func) {
        std::transform(data.begin(), data.end(), data.begin(), func);
    }

    double computeSum() const {
        return std::accumulate(data.begin(), data.end(), 0.0);
    }

    void printData() const {
        for (double d : data) {
            std::cout << d << " ";
        }
        std::cout << std::endl;
    }

private:
    int size;
    std::vector<double> data;
};

int main() {
    Simulation sim(10);
    sim.initialize(1.0);
    sim.applyTransformation([](double x) { return x * 2; });
    double sum = sim.computeSum();
    assert(sum == 20.0);
    sim.printData();

    sim.initialize(3.0);
    sim.applyTransformation([](double x) { return x + 1; });
    sum = sim.computeSum();
    assert(sum == 40.0);
    sim.printData();
    return 0;
}
