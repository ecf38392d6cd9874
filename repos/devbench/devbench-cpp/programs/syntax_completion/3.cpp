#include <iostream>
#include <memory>
#include <string>
#include <vector>
#include <cassert>

class Base {
public:
    virtual std::string getName() const {
        return "Base";
    }
    virtual ~Base() = default;
};

class Derived : public Base {
public:
    std::string getName() const override {
        return "Derived";
    }
};

class AnotherDerived : public Base {
public:
    std::string getName() const override {
        return "AnotherDerived";
    }
};

void printNames(const std::vector<std::shared_ptr<Base>>& objects) {
    for (const auto& obj : objects) {
        std::cout << obj->getName() << std::endl;
    }
}

int main() {
    std::vector<std::shared_ptr<Base>> objects;
    objects.push_back(std::make_shared<Base>());
    objects.push_back(std::make_shared<Derived>());
    objects.push_back(std::make_shared<AnotherDerived>());
    printNames(objects);

    assert(objects.size() == 3);
    assert(objects[0]->getName() == "Base");
    assert(objects[1]->getName() == "Derived");
    assert(objects[2]->getName() == "AnotherDerived");

    return 0;
}
