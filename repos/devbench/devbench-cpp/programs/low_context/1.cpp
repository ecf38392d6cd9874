#include <vector>
#include <cassert>

std::vector<int> filter_even(const std::vector<int>& input) {
    std::vector<int> result;
    for (int num : input) {
        if (num % 2 == 0) {
            result.push_back(num);
        }
    }
    return result;
}

int main() {
    std::vector<int> data = {1, 2, 3, 4, 5, 6};
    std::vector<int> result = filter_even(data);
    assert(result == std::vector<int>({2, 4, 6}));
    return 0;
}