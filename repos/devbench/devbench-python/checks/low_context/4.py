assert 'Slept for 2 seconds' in result_slow
assert result_fast == 'Done quickly'
