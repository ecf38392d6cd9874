#include <iostream>
#include <memory>
#include <string>
#include <cassert>

// Base class for different types of shapes
class Shape {
public:
    virtual ~Shape() = default;
    virtual std::string name() const = 0;
};

// Derived class for Circle
class Circle : public Shape {
public:
    Circle(double radius) : radius_(radius) {}
    std::string name() const override { return "Circle"; }
    double radius() const { return radius_; }
private:
    double radius_;
};

// Derived class for Square
class Square : public Shape {
public:
    Square(double side) : side_(side) {}
    std::string name() const override { return "Square"; }
    double side() const { return side_; }
private:
    double side_;
};

// Factory function to create shapes
std::unique_ptr<Shape> createShape(const std::string& type) {
    if (type == "circle") {
        return std::make_unique<Circle>(5.0);
    } else if (type == "square") {
        return std::make_unique<Square>(4.0);
    } else {
        throw std::invalid_argument("Unknown shape type");
    }
}

// Function to print shape information
void printShapeInfo(const Shape& shape) {
    std::cout << "Shape: " << shape.name() << std::endl;
}

int main() {
    try {
        auto shape = createShape("circle");
        printShapeInfo(*shape);
        
        // Test assertions
        assert(shape->name() == "Circle");
        assert(dynamic_cast<Circle*>(shape.get()) != nullptr);
        auto shape2 = createShape("square");
        printShapeInfo(*shape2);
        
        // Test assertions
        assert(shape2->name() == "Square");
    } catch (const std::exception& e) {
        std::cerr << "Error: " << e.what() << std::endl;
    }
    return 0;
}
