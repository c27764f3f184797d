"""Summarize a page of `weir ui` / `weir report --html` as dumped by headless
Chromium (--dump-dom): the graph's nodes and edges, the dataset, update,
flow, error and quality rows, one line each, for the e2e case to compare.

    python3 dom.py DOM_FILE
"""
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # (tag, attrs, text parts)
        self.lines = []
        self.body = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "body":
            self.body = a
        if tag in ("meta", "link", "br", "img", "input", "hr", "wbr", "col",
                   "source"):
            self.element(tag, a, "")
            return
        self.stack.append((tag, a, []))

    def handle_startendtag(self, tag, attrs):
        self.element(tag, dict(attrs), "")

    def handle_endtag(self, tag):
        if not any(t == tag for t, _, _ in self.stack):
            return
        while self.stack:
            t, a, text = self.stack.pop()
            whole = " ".join("".join(text).split())
            if self.stack:
                self.stack[-1][2].append(" " + whole + " ")
            self.element(t, a, whole)
            if t == tag:
                break

    def handle_data(self, data):
        if self.stack:
            self.stack[-1][2].append(data)

    def element(self, tag, a, text):
        cls = a.get("class", "").split()
        if tag == "g" and "node" in cls:
            self.lines.append("graph-node %s" % " ".join(sorted(cls)))
        elif tag == "g" and "edge" in cls:
            self.lines.append("graph-edge %s" % " ".join(sorted(cls)))
        elif tag == "tr" and "data-kind" in a:
            self.lines.append("dataset %s %s" % (a["data-dataset"], text))
        elif tag == "tr" and "data-flow" in a:
            self.lines.append("flow %s %s" % (a["data-flow"], a["data-state"]))
        elif tag == "tr" and "data-expectation" in a:
            self.lines.append("quality %s %s %s" % (a["data-dataset"],
                                                   a["data-expectation"], text))
        elif tag == "tr" and "data-update" in a:
            self.lines.append("update %s" % ("current" if "aria-current" in a
                                             else "other"))
        elif tag == "li" and "error" in cls:
            self.lines.append("error %s" % a.get("data-level"))
        elif tag == "span" and "loc" in cls:
            self.lines.append("error-at %s" % text)
        elif tag == "section" and "dataset" in cls:
            self.lines.append("dataset-page %s" % a.get("aria-label"))


def main():
    page = Page()
    with open(sys.argv[1], encoding="utf-8") as f:
        page.feed(f.read())
    page.close()
    for k in ("data-mode", "data-live"):
        if k in page.body:
            page.lines.append("body %s=%s" % (k, page.body[k]))
    if page.body.get("data-load-ms", "").isdigit():
        page.lines.append("body data-load-ms=set")
    for line in sorted(page.lines):
        print(line)


main()
