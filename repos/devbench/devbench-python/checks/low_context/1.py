assert read_file('non_existent.txt') == '', 'Should return empty string if file does not exist'
try:
    with open('example.txt', 'w') as f:
        f.write('Example content')
    content = read_file('example.txt')
    assert content == 'Example content', 'Content should match written content'
except Exception as e:
    assert False, f'Exception occurred: {e}'
finally:
    if os.path.exists('example.txt'):
        os.remove('example.txt')