#include <iostream>
#include <vector>
#include <algorithm>
#include <cassert>

class Resource {
public:
    Resource() { std::cout << "Resource acquired\n"; }
    ~Resource() { std::cout << "Resource released\n"; }
};

int main() {
    std::vector<int> numbers = {1, 2, 3, 4, 5};
    int sum = 0;

    // Begin scope-based resource management
    {
        Resource res;
        for (auto it = numbers.begin(); it != numbers.end(); ++it) {
            sum += *it;
        }
        std::cout << "Sum: " << sum << std::endl;
    }
    // End of scope-based resource management

    assert(sum == 15);
    return 0;
}
