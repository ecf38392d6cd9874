#include <iostream>
#include <vector>
#include <string>
#include <algorithm>
#include <cassert>

/**
 * @brief Represents a financial instrument in a portfolio.
 */
class FinancialInstrument {
public:
    FinancialInstrument(const std::string &name, double price)
        : name(name), price(price) {}

    const std::string &getName() const { return name; }
    double getPrice() const { return price; }

private:
    std::string name;
    double price;
};

/**
 * @brief Portfolio class to manage multiple financial instruments.
 */
class Portfolio {
public:
    void addInstrument(const FinancialInstrument &instrument) {
        instruments.push_back(instrument);
    }

    double calculateTotalValue() const {
        double total = 0.0;
        for (const auto &instrument : instruments) {
            total += instrument.getPrice();
        }
        return total;
    }

private:
    std::vector<FinancialInstrument> instruments;
};

/**
 * @brief Risk assessment class for evaluating portfolio risk.
 */
class RiskAssessment {
public:
    RiskAssessment(const Portfolio &portfolio)
        : portfolio(portfolio) {}

    /**
     * @brief Calculate the risk of the portfolio based on the value and predefined risk factors.
     * @return Risk value as a percentage.
     */
    double calculateRisk() const;

private:
    const Portfolio &portfolio;
};

// Implementation of RiskAssessment::calculateRisk
double RiskAssessment::calculateRisk() const {
    double totalValue = portfolio.calculateTotalValue();
    if (totalValue == 0.0) {
        return 0.0;
    }
    double riskFactor = 0.05; // Assume a fixed risk factor for simplicity
    return (totalValue * riskFactor) / totalValue * 100;
}
int main() {
    FinancialInstrument stock1("AAPL", 150.0);
    FinancialInstrument stock2("GOOGL", 2800.0);
    FinancialInstrument bond1("US10Y", 100.0);

    Portfolio portfolio;
    portfolio.addInstrument(stock1);
    portfolio.addInstrument(stock2);
    portfolio.addInstrument(bond1);

    RiskAssessment riskAssessment(portfolio);
    double risk = riskAssessment.calculateRisk();

    assert(risk >= 0.0 && risk <= 100.0);
    std::cout << "Portfolio risk: " << risk << "%" << std::endl;

    return 0;
}
