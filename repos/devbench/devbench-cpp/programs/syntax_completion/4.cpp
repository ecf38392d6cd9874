#include <iostream>
#include <string>
#include <vector>
#include <memory>
#include <cassert>

// Complex C++ Syntax Features: Class inheritance and virtual function overrides

class Base {
public:
    virtual ~Base() = default;
    virtual std::string getName() const = 0;
};

class Derived1 : public Base {
public:
    std::string getName() const override {
        return "Derived1";
    }
};

class Derived2 : public Base {
public:
    std::string getName() const override {
        return "Derived2";
    }
};

void printNames(const std::vector<std::shared_ptr<Base>>& objects) {
    for (const auto& obj : objects) {
        std::cout << obj->getName() << std::endl;
    }
}

int main() {
    std::vector<std::shared_ptr<Base>> objects;
    objects.push_back(std::make_shared<Derived1>());
    objects.push_back(std::make_shared<Derived2>());

    printNames(objects);

    // Assertions to verify the behavior
    assert(objects[0]->getName() == "Derived1");
    assert(objects[1]->getName() == "Derived2");
    std::cout << "All tests passed." << std::endl;
    return 0;
}