import java.util.HashMap;
import java.util.Map;

/**
 * Represents a portfolio of financial assets and provides methods to calculate the total value and risk.
 */
public class Portfolio {
    private Map<String, Double> assets;
    private Map<String, Double> risks;

    public Portfolio() {
        assets = new HashMap<>();
        risks = new HashMap<>();
    }

    /**
     * Adds an asset to the portfolio.
     *
     * @param name the name of the asset
     * @param value the value of the asset
     * @param risk the risk associated with the asset
     */
    public void addAsset(String name, double value, double risk) {
        assets.put(name, value);
        risks.put(name, risk);
    }

    /**
     * Calculates the total value of the portfolio.
     *
     * @return the total value of the portfolio
     */
    public double calculateTotalValue() {
        double totalValue = 0.0;
        for (double value : assets.values()) {
            totalValue += value;
        }
        return totalValue;
    }

    /**
     * Calculates the total risk of the portfolio based on individual asset risks.
     *
     * @return the total risk of the portfolio
     */
    public double calculateTotalRisk() {
        double totalRisk = 0.0;
        for (double risk : risks.values()) {
            totalRisk += risk;
        }
        return totalRisk;
    }

    public static void main(String[] args) {
        Portfolio portfolio = new Portfolio();
        portfolio.addAsset("Stock A", 1000.0, 0.1);
        portfolio.addAsset("Stock B", 2000.0, 0.2);
        portfolio.addAsset("Bond C", 3000.0, 0.05);

        double totalValue = portfolio.calculateTotalValue();
        double totalRisk = portfolio.calculateTotalRisk();

        assert totalValue == 6000.0 : "Total value should be 6000.0";
        assert Math.abs(totalRisk - 0.35) < 1e-9 : "Total risk should be 0.35";
    }
}
