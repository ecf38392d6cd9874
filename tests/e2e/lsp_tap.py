"""A transparent stdio proxy for a language server that records what the server sends.

Usage: python lsp_tap.py LOG -- SERVER_COMMAND...  Used by the tests to prove that answers travel
over JSON-RPC from the server process.
"""

import os
import subprocess
import sys
import threading


def pump(src: int, dst: int, log=None) -> None:
    while chunk := os.read(src, 65536):
        if log is not None:
            log.write(chunk)
            log.flush()
        os.write(dst, chunk)


def main() -> None:
    log_path, sep, *command = sys.argv[1:]
    assert sep == "--"
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    with open(log_path, "wb") as log:
        inbound = threading.Thread(target=lambda: (pump(0, server.stdin.fileno()), server.stdin.close()), daemon=True)
        inbound.start()
        pump(server.stdout.fileno(), 1, log)
    sys.exit(server.wait())


if __name__ == "__main__":
    main()
