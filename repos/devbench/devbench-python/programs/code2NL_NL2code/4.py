class Portfolio:
    def __init__(self):
        self.stocks = {}

    def add_stock(self, name: str, shares: int, price: float):
        """
        Add a stock to the portfolio.

        Parameters:
        name (str): The name of the stock.
        shares (int): The number of shares to add.
        price (float): The purchase price per share.
        """
        if name in self.stocks:
            current_shares, current_price = self.stocks[name]
            new_shares = current_shares + shares
            new_price = (current_price * current_shares + price * shares) / new_shares
            self.stocks[name] = (new_shares, new_price)
        else:
            self.stocks[name] = (shares, price)

    def get_stock_value(self, name: str) -> float:
        """
        Get the total value of a specific stock in the portfolio.

        Parameters:
        name (str): The name of the stock.

        Returns:
        float: The total value of the stock.
        """
        shares, price = self.stocks.get(name, (0, 0.0))
        return shares * price

    def total_value(self) -> float:
        """
        Calculate the total value of the entire portfolio.

        Returns:
        float: The total portfolio value.
        """
        total = 0.0
        for shares, price in self.stocks.values():
            total += shares * price
        return total

# Example usage
portfolio = Portfolio()
portfolio.add_stock('AAPL', 10, 150.0)
portfolio.add_stock('GOOGL', 5, 1000.0)
assert portfolio.get_stock_value('AAPL') == 1500.0
assert portfolio.total_value() == 6500.0
