"""Load pages in headless Firefox and write their DOM, as Chromium's
--dump-dom does, through Firefox's own WebDriver BiDi endpoint (no
geckodriver): one browser, one session, each URL navigated to until its load
event, its document serialized after its scripts ran (to OUT) and a
screenshot of the whole document taken (to OUT.png). Run it with the
system Python, which has the websocket client (Debian python3-websocket,
installed by scripts/bootstrap.sh).

    /usr/bin/python3 firefox.py FIREFOX PROFILE_DIR URL OUT [URL OUT]...

Exit status 0 when every page was written; 1 with a message otherwise.
"""
import base64
import json
import os
import signal
import socket
import subprocess
import sys
import time

import websocket


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Bidi:
    def __init__(self, url):
        # Firefox refuses a handshake that carries an Origin header.
        self.ws = websocket.create_connection(url, timeout=60,
                                               suppress_origin=True)
        self.next_id = 0

    def call(self, method, params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method,
                                 "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") != self.next_id:
                continue  # an event
            if msg.get("type") == "error":
                raise RuntimeError("%s: %s %s" % (method, msg.get("error"),
                                                  msg.get("message")))
            return msg["result"]


def main():
    # A timeout's SIGTERM still stops Firefox (through the finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    firefox, profile = sys.argv[1], sys.argv[2]
    pages = list(zip(sys.argv[3::2], sys.argv[4::2]))
    port = free_port()
    log = open(os.path.join(profile, "firefox.log"), "w")
    proc = subprocess.Popen(
        [firefox, "--headless", "--no-remote", "--profile", profile,
         "--remote-debugging-port", str(port), "about:blank"],
        stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        bidi = None
        deadline = time.time() + 90
        while bidi is None:
            try:
                bidi = Bidi("ws://127.0.0.1:%d/session" % port)
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    raise RuntimeError("Firefox did not start its BiDi endpoint")
                time.sleep(0.2)
        bidi.call("session.new", {"capabilities": {}})
        tree = bidi.call("browsingContext.getTree", {})
        context = tree["contexts"][0]["context"]
        for url, out in pages:
            bidi.call("browsingContext.navigate",
                      {"context": context, "url": url, "wait": "complete"})
            # Let the page's own script settle (it marks <body> when loaded).
            time.sleep(0.5)
            res = bidi.call("script.evaluate", {
                "expression": "document.documentElement.outerHTML",
                "target": {"context": context}, "awaitPromise": False})
            value = res.get("result", {}).get("value")
            if res.get("type") != "success" or not isinstance(value, str):
                raise RuntimeError("no DOM from %s: %s" % (url, res))
            with open(out, "w", encoding="utf-8") as f:
                f.write("<!DOCTYPE html>\n" + value + "\n")
            shot = bidi.call("browsingContext.captureScreenshot",
                             {"context": context, "origin": "document"})
            with open(out + ".png", "wb") as f:
                f.write(base64.b64decode(shot["data"]))
        try:
            bidi.call("session.end", {})
        except Exception:
            pass
    except Exception as e:
        print("firefox.py: %s" % e, file=sys.stderr)
        return 1
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
