import java.util.HashMap;
import java.util.Map;
import java.util.stream.Collectors;

public class DataAnalyzer {
    private Map<String, Integer> data;

    public DataAnalyzer() {
        this.data = new HashMap<>();
    }

    // Method to add data
    public void addData(String key, int value) {
        this.data.put(key, value);
    }

    // Method to get the sum of all values
    public int getTotalValue() {
        return this.data.values().stream().mapToInt(Integer::intValue).sum();
    }

    // Method to filter data based on a threshold and return a new map
    public Map<String, Integer> filterData(int threshold) {
        return this.data.entrySet().stream()
                .filter(entry -> entry.getValue() > threshold)
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    // Method to normalize data values
    public Map<String, Double> normalizeData() {
        int totalValue = getTotalValue();
        if (totalValue == 0) {
            return new HashMap<>();
        }
        return this.data.entrySet().stream()
                .collect(Collectors.toMap(
                    Map.Entry::getKey,
                    entry -> (double) entry.getValue() / totalValue
                ));
    }

    // Method to find the maximum value
    public int getMaxValue() {
        return this.data.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    // Method to find the minimum value
    public int getMinValue() {
        return this.data.values().stream().mapToInt(Integer::intValue).min().orElse(0);
    }

    // Method to calculate the mean value
    public double getMeanValue() {
       if (this.data.isEmpty()) {
           return 0.0;
       }
       return (double) getTotalValue() / this.data.size();
}
    // Method to calculate the median value
    public double getMedianValue() {
if (this.data.isEmpty()) {
return 0.0;
}
        int[] sortedValues = this.data.values().stream().mapToInt(Integer::intValue).sorted().toArray();
        int count = sortedValues.length;
        if (count == 0) {
            return 0.0;
        }
        if (count % 2 == 0) {
            return (sortedValues[count / 2 - 1] + sortedValues[count / 2]) / 2.0;
        } else {
            return sortedValues[count / 2];
        }    
}

    // Test the DataAnalyzer class
    public static void main(String[] args) {
        DataAnalyzer analyzer = new DataAnalyzer();
        analyzer.addData("A", 10);
        analyzer.addData("B", 20);
        analyzer.addData("C", 30);

        // Assertions
        assert analyzer.getTotalValue() == 60;
        assert analyzer.getMaxValue() == 30;
        assert analyzer.getMinValue() == 10;
        assert analyzer.getMedianValue() == 20.0;
        assert Math.abs(analyzer.getMeanValue() - 20.0) < 0.0001;
        assert analyzer.filterData(15).size() == 2;
        assert analyzer.filterData(15).get("B") == 20;
        assert analyzer.filterData(15).get("C") == 30;
        assert Math.abs(analyzer.normalizeData().get("A") - (10.0 / 60)) < 0.0001;

        System.out.println("All tests passed.");
    }
}