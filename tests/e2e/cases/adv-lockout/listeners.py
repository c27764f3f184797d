"""The listening sockets of process PID, as flood.py targets, one a line:
tcp:PORT (IPv4 or IPv6), unix:@NAME (abstract) or unix:PATH. What another
local user sees of them is /proc/net/{tcp,tcp6,unix}; the process's
descriptors tell which are its own.

usage: listeners.py PID
"""
import os
import sys

pid = sys.argv[1]
inodes = set()
for fd in os.listdir(f"/proc/{pid}/fd"):
    try:
        link = os.readlink(f"/proc/{pid}/fd/{fd}")
    except OSError:
        continue
    if link.startswith("socket:["):
        inodes.add(link[8:-1])

for table in ("tcp", "tcp6"):
    with open(f"/proc/net/{table}") as f:
        next(f)
        for line in f:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                print("tcp:%d" % int(fields[1].rsplit(":", 1)[1], 16))

with open("/proc/net/unix") as f:
    next(f)
    for line in f:
        fields = line.split()
        # Flags 00010000: listening.
        if len(fields) >= 8 and int(fields[3], 16) & 0x10000 and fields[6] in inodes:
            print("unix:" + fields[7])
