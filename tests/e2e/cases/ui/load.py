"""Load test of `weir ui`: ROUNDS rounds of CONCURRENT requests at once
(each a fresh connection) over the server's routes; every one must be
answered 200 with a body. Prints the totals; exits 1 on any error.

    python3 load.py PORT TOKEN DATASET [CONCURRENT ROUNDS]
"""
import http.client
import sys
import threading
import urllib.parse

port, token, dataset = int(sys.argv[1]), sys.argv[2], sys.argv[3]
concurrent = int(sys.argv[4]) if len(sys.argv) > 4 else 100
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 20
routes = ["/", "/api/state", "/ui.js",
          "/dataset?name=" + urllib.parse.quote(dataset, safe="")]
errors = []
lock = threading.Lock()


def fetch(i):
    path = routes[i % len(routes)]
    try:
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        c.request("GET", path, headers={"Authorization": "Bearer " + token})
        r = c.getresponse()
        body = r.read()
        c.close()
        if r.status != 200 or not body:
            raise RuntimeError("%s: HTTP %d, %d bytes" % (path, r.status, len(body)))
    except Exception as e:  # noqa: BLE001 - every failure counts
        with lock:
            errors.append("%s: %s" % (path, e))


for _ in range(rounds):
    threads = [threading.Thread(target=fetch, args=(i,)) for i in range(concurrent)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
print("%d requests, %d errors" % (concurrent * rounds, len(errors)))
for e in errors[:10]:
    print(e)
sys.exit(1 if errors else 0)
