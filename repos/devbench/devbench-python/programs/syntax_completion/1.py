import os

def nested_context_managers():
    try:
        with open('testfile1.txt', 'w') as f1:
            f1.write('Hello')
            with open('testfile2.txt', 'w') as f2:
                f2.write('World')
                # Begin another nested context manager
                with open('testfile3.txt', 'w') as f3:
                    f3.write('Nested')
                # End of inner with statements
            # End of outer with statement
        # Exception handling
    except IOError as e:
        print(f"IOError: {e}")
    except Exception as e:
        print(f"Exception: {e}")
    else:
        print("Files written successfully")

nested_context_managers()
