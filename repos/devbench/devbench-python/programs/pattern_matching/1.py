import statistics
import logging

class DataAnalyzer:
    def __init__(self, data):
        self.data = data
        self.logger = logging.getLogger(__name__)
        self.logger.setLevel(logging.DEBUG)
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter('%(asctime)s - %(name)s - %(levelname)s - %(message)s'))
        self.logger.addHandler(handler)

    def analyze_mean(self):
        try:
            mean_value = statistics.mean(self.data)
            self.logger.info(f'Mean value calculated: {mean_value}')
        except statistics.StatisticsError as e:
            self.logger.error(f'Error calculating mean: {e}')
            raise
        return mean_value

    def analyze_median(self):
        try:
            median_value = statistics.median(self.data)
            self.logger.info(f'Median value calculated: {median_value}')
        except statistics.StatisticsError as e:
            self.logger.error(f'Error calculating median: {e}')
            raise
        return median_value

# Example usage
analyzer = DataAnalyzer([1, 2, 3, 4, 5])
mean = analyzer.analyze_mean()
median = analyzer.analyze_median()

assert mean == 3
assert median == 3