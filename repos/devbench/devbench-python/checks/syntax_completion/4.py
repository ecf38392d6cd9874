assert os.path.exists(filename) == False
