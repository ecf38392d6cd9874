#include <vector>
#include <cassert>

std::vector<int> doubleElements(const std::vector<int>& input) {
    std::vector<int> result;
    for (int elem : input) {
        result.push_back(elem * 2);
    }
    return result;
}

int main() {
    std::vector<int> data = {1, 2, 3, 4};
    std::vector<int> doubled = doubleElements(data);
    assert(doubled.size() == 4);
    assert(doubled[0] == 2);
    assert(doubled[1] == 4);
    assert(doubled[2] == 6);
    assert(doubled[3] == 8);
    return 0;
}