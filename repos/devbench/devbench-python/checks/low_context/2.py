waste_some_time(5)
