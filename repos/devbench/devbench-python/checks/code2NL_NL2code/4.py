assert 'get the total value of a specific stock in the portfolio' in Portfolio.get_stock_value.__doc__.lower()
assert 'parameters' in Portfolio.get_stock_value.__doc__.lower()
assert 'returns' in Portfolio.get_stock_value.__doc__.lower()
assert 'name (str): the name of the stock' in Portfolio.get_stock_value.__doc__.lower()
assert 'float: the total value of the stock' in Portfolio.get_stock_value.__doc__.lower()
assert portfolio.get_stock_value('AAPL') == 1500.0
assert portfolio.total_value() == 6500.0
