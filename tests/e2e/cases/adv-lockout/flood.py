"""Hold many idle and slow connections open to one endpoint, as a local
user without the token could: open IDLE connections that send nothing and
SLOW ones that send PAYLOAD, then FILLER over and over, one byte every
half second (so they are never idle), reopen (at most REOPEN a second)
whatever the server closes, write READY once the first round is open and
READY.closed once the server has closed one of them. Runs until STOP exists (or 300 s), then prints what it saw.
PAYLOAD and FILLER take Python escapes (\\r, \\x00).

usage: flood.py TARGET IDLE SLOW PAYLOAD FILLER READY STOP [REOPEN]
TARGET: tcp:PORT (on 127.0.0.1), unix:@NAME (abstract) or unix:PATH.
"""
import os
import socket
import sys
import time

target, n_idle, n_slow = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])


def unescape(text):
    return text.encode().decode("unicode_escape").encode("latin-1")


payload, filler = unescape(sys.argv[4]), unescape(sys.argv[5])
ready, stop = sys.argv[6], sys.argv[7]
reopen_rate = float(sys.argv[8]) if len(sys.argv) > 8 else 50.0


def connect():
    try:
        if target.startswith("tcp:"):
            s = socket.create_connection(("127.0.0.1", int(target[4:])), timeout=2)
        else:
            name = target[5:]
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(2)
            s.connect("\0" + name[1:] if name.startswith("@") else name)
        s.setblocking(False)
        return s
    except OSError:
        return None


def closed(s):
    try:
        return s.recv(65536) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


conns = [[connect(), False, 0] for _ in range(n_idle)]
conns += [[connect(), True, 0] for _ in range(n_slow)]
opened = sum(1 for c in conns if c[0])
with open(ready + ".tmp", "w") as f:
    f.write(str(opened))
os.rename(ready + ".tmp", ready)
closes = reopened = 0
end = time.time() + 300
while not os.path.exists(stop) and time.time() < end:
    budget = reopen_rate / 2
    for c in conns:
        if c[0] is not None and closed(c[0]):
            c[0].close()
            c[0] = None
            closes += 1
            if closes == 1:
                with open(ready + ".closed", "w") as f:
                    f.write("1")
        if c[0] is None and budget >= 1:
            budget -= 1
            c[0], c[2] = connect(), 0
            reopened += c[0] is not None
        if c[0] is not None and c[1]:
            i = c[2]
            byte = payload[i:i + 1] if i < len(payload) else \
                filler[(i - len(payload)) % len(filler):][:1]
            try:
                c[0].send(byte)
                c[2] += 1
            except OSError:
                pass
    time.sleep(0.5)
print(f"opened {opened}, closed by the server {closes}, reopened {reopened}")
