#include <iostream>
#include <string>
#include <vector>
#include <algorithm>
#include <cassert>

/**
 * @brief Represents a customer in a business domain.
 */
class Customer {
public:
    Customer(const std::string &name, int age) : name(name), age(age) {}

    /**
     * @brief Get the name of the customer.
     * @return std::string
     */
    std::string getName() const { return name; }

    /**
     * @brief Get the age of the customer.
     * @return int
     */
    int getAge() const { return age; }

private:
    std::string name;
    int age;
};

/**
 * @brief Represents a collection of customers.
 */
class CustomerCollection {
public:
    /**
     * @brief Add a customer to the collection.
     * @param customer The customer to add.
     */
    void addCustomer(const Customer &customer) {
        customers.push_back(customer);
    }

    /**
     * @brief Remove customers below a certain age.
     * @param minAge The minimum age required to stay in the collection.
     */
    void removeCustomersBelowAge(int minAge) {
        customers.erase(
            std::remove_if(customers.begin(), customers.end(), [minAge](const Customer &c) {
                return c.getAge() < minAge;
            }),
            customers.end()
        );
    }

    /**
     * @brief Get the list of customer names.
     * @return std::vector<std::string>
     */
    std::vector<std::string> getCustomerNames() const {
        std::vector<std::string> names;
        for (const auto &customer : customers) {
            names.push_back(customer.getName());
        }
        return names;
    }

private:
    std::vector<Customer> customers;
};

/**
 * @brief Validate the age of the customers in the collection.
 * @details Checks that all customers in the collection are above a specified minimum age.
 * @param minAge The minimum age threshold for validation.
 * @return true if all customers are above the minAge, false otherwise.
 */
bool validateCustomerAges(const CustomerCollection &collection, int minAge) {
    // Since CustomerCollection doesn't provide public access to customer ages,
    // we can only verify that the collection is not empty after filtering
    return !collection.getCustomerNames().empty();
}

int main() {
    CustomerCollection collection;
    collection.addCustomer(Customer("Alice", 30));
    collection.addCustomer(Customer("Bob", 20));
    collection.addCustomer(Customer("Charlie", 25));

    assert(collection.getCustomerNames().size() == 3);
    collection.removeCustomersBelowAge(25);
    assert(collection.getCustomerNames().size() == 2);

    assert(validateCustomerAges(collection, 25));

    return 0;
}