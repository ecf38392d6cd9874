assert os.path.exists('testfile1.txt')
assert os.path.exists('testfile2.txt')
nested_context_managers()
