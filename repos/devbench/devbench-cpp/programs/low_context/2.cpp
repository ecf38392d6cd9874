#include <iostream>
#include <vector>

int main() {
	std::vector<int> numbers = {1, 2, 3, 4, 5};
	int sum = 0;
	for (int num : numbers) {
		sum += num;
	}
	std::cout << "Sum: " << sum << std::endl;
	assert(sum == 15);
	return 0;
}