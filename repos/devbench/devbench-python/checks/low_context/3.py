assert result == 8
