#!/usr/bin/env python3
"""hostile_redis.py - a fake Redis server that answers the import's first
command (SCAN) with a hostile reply, for tests/e2e/import-redis.sh

Usage: hostile_redis.py ADDRESS PORT MODE READYFILE

Listens on ADDRESS:PORT, writes READYFILE once listening, serves
connections one at a time until killed.  Each connection reads one
command (RESP, as hiredis sends it) and answers by MODE:

  bigbulk    "$600000000" and then bytes as fast as the client takes them
  hugearray  "*2000000000" and then "$1 x" elements
  wide       a valid array of 70000 elements (over the 65536 bound)
  deep       arrays nested 100 deep
  garbage    an HTTP response
  truncated  half a SCAN reply, then the connection closed
  drip       a SCAN reply of one huge key, one byte every 0.2 s
  longline   "+" and 10 MB without CRLF
  extra      a valid SCAN reply followed by another reply
  badlen     "$12abc"
  ok         a valid, empty SCAN reply (the control case)
"""

import socket
import sys
import time


def read_command(c):
    """read until one RESP array command is complete (good enough: the
    import's commands are short)"""
    data = b""
    c.settimeout(5)
    while True:
        try:
            chunk = c.recv(4096)
        except socket.timeout:
            return data
        if not chunk:
            return data
        data += chunk
        if data.startswith(b"*"):
            lines = data.split(b"\r\n")
            try:
                n = int(lines[0][1:])
            except ValueError:
                return data
            if len(lines) >= 1 + 2 * n + 1:
                return data


def send_all(c, b):
    try:
        c.sendall(b)
        return True
    except OSError:
        return False


def serve(c, mode):
    read_command(c)
    if mode == "bigbulk":
        if not send_all(c, b"*2\r\n$1\r\n0\r\n*1\r\n$600000000\r\n"):
            return
        block = b"a" * 65536
        for _ in range(600000000 // 65536):
            if not send_all(c, block):
                return
    elif mode == "hugearray":
        if not send_all(c, b"*2000000000\r\n"):
            return
        for _ in range(2000000):
            if not send_all(c, b"$1\r\nx\r\n" * 64):
                return
    elif mode == "wide":
        body = b"*2\r\n$1\r\n0\r\n*70000\r\n" + b"$1\r\nx\r\n" * 70000
        send_all(c, body)
    elif mode == "deep":
        send_all(c, b"*1\r\n" * 100 + b":1\r\n")
    elif mode == "garbage":
        send_all(c, b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
    elif mode == "truncated":
        send_all(c, b"*2\r\n$1\r\n0\r\n*3\r\n$11\r\nexample.com\r\n$5\r\nab")
        return      # and close
    elif mode == "drip":
        reply = b"*2\r\n$1\r\n0\r\n*1\r\n$100000\r\n" + b"d" * 100000 + \
            b"\r\n"
        for i in range(len(reply)):
            if not send_all(c, reply[i:i + 1]):
                return
            time.sleep(0.2)
    elif mode == "longline":
        if not send_all(c, b"+"):
            return
        for _ in range(160):
            if not send_all(c, b"a" * 65536):
                return
    elif mode == "extra":
        send_all(c, b"*2\r\n$1\r\n0\r\n*0\r\n+OK\r\n")
    elif mode == "badlen":
        send_all(c, b"$12abc\r\n")
    elif mode == "ok":
        send_all(c, b"*2\r\n$1\r\n0\r\n*0\r\n")
    # let the client see the end (or wait for it to hang up)
    try:
        c.settimeout(15)
        while c.recv(4096):
            pass
    except OSError:
        pass


def main():
    addr, port, mode, ready = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
        sys.argv[4]
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    s.listen(4)
    with open(ready, "w") as fp:
        fp.write("ready\n")
    while True:
        c, _ = s.accept()
        try:
            serve(c, mode)
        finally:
            c.close()


if __name__ == "__main__":
    main()
