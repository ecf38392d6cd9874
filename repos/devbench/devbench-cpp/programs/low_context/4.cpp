#include <vector>
#include <cassert>

int main() {
	std::vector<int> vec = {1, 2, 3, 4};
	// Insert code to manipulate vector
	vec[1] = 5;
	// Check if vector manipulation is correct
	assert(vec[0] == 1);
	assert(vec[1] == 5);
	assert(vec[2] == 3);
	assert(vec[3] == 4);
	return 0;
}