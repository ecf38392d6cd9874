nested_control_example(3)
nested_control_example(-1)
assert os.path.exists(tempfile.gettempdir()), 'Temp directory should exist'
