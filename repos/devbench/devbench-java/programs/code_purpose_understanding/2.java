import java.util.List;
import java.util.ArrayList;
import java.util.stream.Collectors;
import java.util.Comparator;

public class DataAnalyzer {

    public static class DataPoint {
        private double value;
        private String category;

        public DataPoint(double value, String category) {
            this.value = value;
            this.category = category;
        }

        public double getValue() {
            return value;
        }

        public String getCategory() {
            return category;
        }
    }

    private List<DataPoint> dataPoints;

    public DataAnalyzer() {
        this.dataPoints = new ArrayList<>();
    }

    public void addDataPoint(double value, String category) {
        this.dataPoints.add(new DataPoint(value, category));
    }

    public List<DataPoint> getTopNDataPoints(int n) {
        return this.dataPoints.stream()
                .sorted(Comparator.comparingDouble(DataPoint::getValue).reversed())
                .limit(n)
                .collect(Collectors.toList());
    }

    public double calculateAverage() {
        return this.dataPoints.stream()
                .mapToDouble(DataPoint::getValue)
                .average()
                .orElse(0.0);
    }

    // Method to calculate the total value for a specific category
    public double calculateTotalForCategory(String category) {
        return this.dataPoints.stream()
                .filter(dataPoint -> dataPoint.getCategory().equals(category))
                .mapToDouble(DataPoint::getValue)
                .sum();
    }

    public static void main(String[] args) {
        DataAnalyzer analyzer = new DataAnalyzer();
        analyzer.addDataPoint(10.0, "A");
        analyzer.addDataPoint(20.0, "B");
        analyzer.addDataPoint(15.0, "A");
        analyzer.addDataPoint(25.0, "B");
        analyzer.addDataPoint(5.0, "C");

        // Example use of calculateTotalForCategory
        double totalForCategoryA = analyzer.calculateTotalForCategory("A");
        double totalForCategoryB = analyzer.calculateTotalForCategory("B");

        System.out.println("Total for category A: " + totalForCategoryA);
        System.out.println("Total for category B: " + totalForCategoryB);

        // Assertions to verify correctness
        assert totalForCategoryA == 25.0 : "Total for category A should be 25.0";
        assert totalForCategoryB == 45.0 : "Total for category B should be 45.0";
    }
}
