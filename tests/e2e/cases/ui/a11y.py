"""Check the keyboard and screen-reader basics of a page of `weir ui` or
`weir report --html` (as dumped by headless Chromium or served): the
document's language, landmarks and a skip link, one h1 and no skipped
heading level, named sections, captioned tables with scoped header cells,
a named SVG graph whose every dataset node is a link with a readable name
(not a Graphviz id), bars hidden from assistive technology, alt text on
images, a polite live region, a visible focus style and no positive
tabindex. Prints one line per problem and exits 1 when there is any.

    python3 a11y.py DOM_FILE
"""
import re
import sys
from html.parser import HTMLParser

VOID = {"meta", "link", "br", "img", "input", "hr", "wbr", "col", "source"}


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.a, self.parent = tag, dict(attrs), parent
        self.children, self.text = [], []

    def all_text(self):
        parts = list(self.text)
        for c in self.children:
            parts.append(c.all_text())
        return " ".join(" ".join(parts).split())

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def classes(self):
        return self.a.get("class", "").split()


class Tree(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.at = self.root
        self.style = []

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.at)
        self.at.children.append(n)
        if tag not in VOID:
            self.at = n

    def handle_startendtag(self, tag, attrs):
        self.at.children.append(Node(tag, attrs, self.at))

    def handle_endtag(self, tag):
        n = self.at
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.at = n.parent

    def handle_data(self, data):
        if self.at.tag == "style":
            self.style.append(data)
        self.at.text.append(data)


def check(path):
    t = Tree()
    with open(path, encoding="utf-8") as f:
        t.feed(f.read())
    nodes = list(t.root.walk())
    by_tag = {}
    for n in nodes:
        by_tag.setdefault(n.tag, []).append(n)
    ids = {n.a["id"] for n in nodes if "id" in n.a}
    bad = []

    html = by_tag.get("html", [None])[0]
    if not html or not html.a.get("lang"):
        bad.append("html has no lang")
    if len(by_tag.get("main", [])) != 1:
        bad.append("not exactly one <main> landmark")
    if not by_tag.get("header"):
        bad.append("no <header> landmark")
    links = by_tag.get("a", [])
    if not links or links[0].a.get("href") != "#main" or "main" not in ids:
        bad.append("the first link is not a skip link to #main")
    # Headings: one h1, no level skipped on the way down.
    levels = [int(n.tag[1]) for n in nodes if re.fullmatch(r"h[1-6]", n.tag)]
    if levels.count(1) != 1 or not levels or levels[0] != 1:
        bad.append("not exactly one h1, first: %s" % levels[:3])
    for a, b in zip(levels, levels[1:]):
        if b > a + 1:
            bad.append("heading level skipped: h%d then h%d" % (a, b))
            break
    for s in by_tag.get("section", []):
        ref = s.a.get("aria-labelledby")
        if not s.a.get("aria-label") and (not ref or ref not in ids):
            bad.append("section without a heading that names it: %s" % s.a)
    for tbl in by_tag.get("table", []):
        kids = [c.tag for c in tbl.children]
        if "caption" not in kids:
            bad.append("table %s has no caption" % tbl.a.get("id", ""))
        for th in (n for n in tbl.walk() if n.tag == "th"):
            if th.a.get("scope") not in ("col", "row"):
                bad.append("th without scope in table %s: %s"
                           % (tbl.a.get("id", ""), th.all_text()[:40]))
                break
    for img in by_tag.get("img", []):
        if "alt" not in img.a:
            bad.append("img without alt: %s" % img.a.get("src"))
    for n in nodes:
        ti = n.a.get("tabindex")
        if ti is not None and ti.lstrip("-").isdigit() and int(ti) > 0:
            bad.append("positive tabindex on <%s>" % n.tag)
    for n in links:
        name = n.all_text() or n.a.get("aria-label") or n.a.get("xlink:title")
        if not name:
            bad.append("link without a name: %s" % n.a)
    # The graph: a named group; each node a link with a readable name.
    svgs = [s for s in by_tag.get("svg", []) if "graph" in s.classes()]
    graph_note = any(n.a.get("id") == "graph-note" for n in nodes)
    if not svgs and not graph_note and "h-graph" in ids:
        bad.append("no graph and no note saying why")
    for svg in svgs:
        if svg.a.get("role") not in ("group", "img") or not svg.a.get("aria-label"):
            bad.append("the graph has no role and name")
        count = 0
        for g in (n for n in svg.walk() if n.tag == "g" and "node" in n.classes()):
            count += 1
            title = next((c.all_text() for c in g.children if c.tag == "title"), "")
            if not title or re.fullmatch(r"n\d+", title):
                bad.append("graph node named by an id: %r" % title)
            a = [c for c in g.walk() if c.tag == "a"]
            if not a or not (a[0].a.get("xlink:href") or a[0].a.get("href")):
                bad.append("graph node %r is not a link" % title)
            elif not a[0].a.get("xlink:title"):
                bad.append("graph node %r has a link without a title" % title)
        if not count:
            bad.append("the graph has no nodes")
    for n in nodes:
        c = n.classes()
        if ("bars" in c or "qbar" in c or "trend" in c or "sw" in c) and \
                n.a.get("aria-hidden") != "true":
            bad.append("a bar or swatch is not hidden from screen readers: %s" % c)
    live = [n for n in nodes if n.a.get("id") == "live"]
    if by_tag.get("body", [Node("", [], None)])[0].a.get("data-mode") != "report":
        if not live or live[0].a.get("role") != "status" or \
                live[0].a.get("aria-live") != "polite":
            bad.append("no polite live region (#live, role=status)")
    css = "".join(t.style)
    if not re.search(r"a:focus[^{]*\{[^}]*outline:\s*[1-9]", css):
        bad.append("no visible focus style for links")
    return bad


def main():
    bad = check(sys.argv[1])
    for b in bad:
        print(b)
    if not bad:
        print("accessible: ok")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
