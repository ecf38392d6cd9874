#include <iostream>
#include <string>
#include <vector>
#include <cassert>
#include <cmath>

/**
 * @brief Represents a financial instrument in a portfolio.
 * @param name The name of the instrument.
 * @param price The price of the instrument.
 * @param risk The risk factor of the instrument.
 */

class FinancialInstrument {
public:
    FinancialInstrument(std::string name, double price, double risk) : name_(name), price_(price), risk_(risk) {}
    
    /// @brief Gets the name of the instrument.
    /// @return The name of the instrument.
    std::string getName() const { return name_; }

    /// @brief Gets the price of the instrument.
    /// @return The price of the instrument.
    double getPrice() const { return price_; }

    /// @brief Gets the risk factor of the instrument.
    /// @return The risk factor of the instrument.
    double getRisk() const { return risk_; }

private:
    std::string name_;
    double price_;
    double risk_;
};

/// @brief Calculates the total value of a portfolio of financial instruments.
/// @param portfolio A vector of financial instruments.
/// @return The total value of the portfolio.
double calculateTotalValue(const std::vector<FinancialInstrument>& portfolio) {
    double totalValue = 0.0;
    for (const auto& instrument : portfolio) {
        totalValue += instrument.getPrice();
    }
    return totalValue;
}

/// @brief Calculates the average risk of a portfolio of financial instruments.
/// @param portfolio A vector of financial instruments.
/// @return The average risk of the portfolio.
double calculateAverageRisk(const std::vector<FinancialInstrument>& portfolio) {
    double totalRisk = 0.0;
    for (const auto& instrument : portfolio) {
        totalRisk += instrument.getRisk();
    }
    return totalRisk / portfolio.size();
}
int main() {
    std::vector<FinancialInstrument> portfolio = {
        FinancialInstrument("Stock A", 100.0, 0.5),
        FinancialInstrument("Bond B", 200.0, 0.2),
        FinancialInstrument("Commodity C", 150.0, 0.7)
    };

    double totalValue = calculateTotalValue(portfolio);
    double averageRisk = calculateAverageRisk(portfolio);

    assert(totalValue == 450.0);
    assert(std::abs(averageRisk - 0.4666666666666667) < 1e-9);

    std::cout << "All tests passed!\n";
    return 0;
}
