"""tests/animate/overlap_check.py FILE [STEP ...] - nothing drawn hides text.

Reads an SVG written by `tiledblas animate` (or a page, FILE ending in
.html: each of its SVGs, one per kernel) and, for each step named (all
steps when none are), looks at two moments of that step: just after it
starts, and the still frame the page shows for #step=N (0.05 s before it
ends). At each moment it takes the elements visible then (the SMIL <set>
windows), at their place then (<animate> of x, y, width, height), and
requires:
  - no rect, line, circle or text drawn after a text (on top of it) meets
    that text's box (a rect with fill="none" paints its four edges only);
  - no two texts meet, whichever comes first (the same string at the same
    place and size is one label recoloured, as in the step bar, and counts
    once).
Shapes still moving at that moment (a tile flying into shared memory) are
left out: they pass over things on their way. A text's box is its advance
width from the font's own metrics (DejaVu Sans, the SVG's first font, read
from its .ttf; 0.62 em a character where it is not installed), from 0.76 em
above the baseline to 0.24 em below; boxes that share less than 0.5 px do
not meet. Prints each overlap and exits 1 if there is one, 0 if none, 2 on
bad usage."""
import os
import re
import struct
import sys
import xml.etree.ElementTree as ET

SVGNS = "{http://www.w3.org/2000/svg}"
TOUCH = 0.5


# ---- Font metrics: advance widths from a TrueType file ---------------------
class Font:
    """Advance widths (em) of a TrueType font: cmap format 4 and hmtx."""

    def __init__(self, path):
        data = open(path, "rb").read()
        ntables = struct.unpack(">H", data[4:6])[0]
        tables = {}
        for i in range(ntables):
            tag, _, off, length = struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i])
            tables[tag.decode("latin-1")] = (off, length)
        head = tables["head"][0]
        self.upem = struct.unpack(">H", data[head + 18:head + 20])[0]
        hhea = tables["hhea"][0]
        nmetrics = struct.unpack(">H", data[hhea + 34:hhea + 36])[0]
        hmtx = tables["hmtx"][0]
        self.adv = [struct.unpack(">H", data[hmtx + 4 * i:hmtx + 4 * i + 2])[0] for i in range(nmetrics)]
        self.cmap = self._cmap4(data, tables["cmap"][0])

    @staticmethod
    def _cmap4(data, cmap):
        n = struct.unpack(">H", data[cmap + 2:cmap + 4])[0]
        for i in range(n):
            plat, enc, off = struct.unpack(">HHI", data[cmap + 4 + 8 * i:cmap + 12 + 8 * i])
            sub = cmap + off
            if (plat, enc) in ((3, 1), (0, 3)) and struct.unpack(">H", data[sub:sub + 2])[0] == 4:
                break
        else:
            raise ValueError("no Unicode BMP cmap (format 4)")
        segx2 = struct.unpack(">H", data[sub + 6:sub + 8])[0]
        ends = sub + 14
        starts = ends + segx2 + 2
        deltas = starts + segx2
        offsets = deltas + segx2
        out = {}
        for s in range(segx2 // 2):
            end, start = (struct.unpack(">H", data[a + 2 * s:a + 2 * s + 2])[0] for a in (ends, starts))
            delta = struct.unpack(">h", data[deltas + 2 * s:deltas + 2 * s + 2])[0]
            ro = struct.unpack(">H", data[offsets + 2 * s:offsets + 2 * s + 2])[0]
            for c in range(start, min(end, 0xFFFE) + 1):
                if ro == 0:
                    gid = (c + delta) & 0xFFFF
                else:
                    at = offsets + 2 * s + ro + 2 * (c - start)
                    gid = struct.unpack(">H", data[at:at + 2])[0]
                    gid = (gid + delta) & 0xFFFF if gid else 0
                out[c] = gid
        return out

    def width(self, text):
        total = 0
        for ch in text:
            gid = self.cmap.get(ord(ch), 0)
            total += self.adv[min(gid, len(self.adv) - 1)]
        return total / self.upem


def load_fonts():
    dirs = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/share/fonts/TTF"]
    fonts = {}
    for bold, name in ((False, "DejaVuSans.ttf"), (True, "DejaVuSans-Bold.ttf")):
        for d in dirs:
            if os.path.exists(os.path.join(d, name)):
                fonts[bold] = Font(os.path.join(d, name))
                break
    return fonts


FONTS = load_fonts()


def text_width(text, size, bold):
    f = FONTS.get(bold)
    return size * (f.width(text) if f else 0.62 * len(text))


# ---- Time: SMIL windows and animations -------------------------------------
def seconds(begin):
    m = re.search(r"([0-9.]+)s$", (begin or "").split(";")[0])
    if not m:
        raise ValueError("begin %r" % begin)
    return float(m.group(1))


def visible(el, t):
    if el.get("visibility") != "hidden":
        return True
    for s in el.findall(SVGNS + "set"):
        if s.get("attributeName") == "visibility" and s.get("to") == "visible":
            b = seconds(s.get("begin"))
            if b <= t < b + seconds(s.get("dur")):
                return True
    return False


def attr_at(el, name, t):
    """The value of a numeric attribute at time t; moving: True while an
    <animate> of it is running."""
    value, moving = float(el.get(name, "0")), False
    for a in el.findall(SVGNS + "animate"):
        if a.get("attributeName") != name:
            continue
        b, d = seconds(a.get("begin")), seconds(a.get("dur"))
        if t < b:
            continue
        if a.get("values"):
            vals = [float(v) for v in a.get("values").split(";")]
            i = len(vals) - 1 if t >= b + d else int((t - b) / d * len(vals))
            value = vals[min(i, len(vals) - 1)]
        else:
            lo, hi = float(a.get("from")), float(a.get("to"))
            if t >= b + d:
                value = hi
            else:
                value, moving = lo + (hi - lo) * (t - b) / d, True
    return value, moving


# ---- What is drawn at time t -----------------------------------------------
def painted(el):
    fill = el.get("fill", "black")
    stroke = el.get("stroke", "none")
    return fill != "none" or stroke != "none"


def items_at(root, t):
    """Visible drawn elements at time t, in document (paint) order, each as
    (kind, box, label, key); kind is 'text' or 'shape', key (string, x, y,
    size) for a text, None for a shape."""
    out = []

    def walk(el, shown):
        tag = el.tag.replace(SVGNS, "")
        if tag in ("defs", "title", "set", "animate", "pattern"):
            return
        shown = shown and visible(el, t)
        if not shown:
            return
        sw = float(el.get("stroke-width", "1")) if el.get("stroke", "none") != "none" else 0.0
        if tag == "rect" and painted(el):
            vals = [attr_at(el, n, t) for n in ("x", "y", "width", "height")]
            if not any(m for _, m in vals):
                x, y, w, h = (v for v, _ in vals)
                label = "rect at (%.1f, %.1f) %.1f x %.1f" % (x, y, w, h)
                if w > 0 and h > 0 and el.get("fill") == "none":
                    # An outline paints only its four edges.
                    for box in ((x, y, x + w, y), (x, y + h, x + w, y + h),
                                (x, y, x, y + h), (x + w, y, x + w, y + h)):
                        out.append(("shape", (box[0] - sw / 2, box[1] - sw / 2,
                                              box[2] + sw / 2, box[3] + sw / 2), "outline of " + label, None))
                elif w > 0 and h > 0:
                    out.append(("shape", (x - sw / 2, y - sw / 2, x + w + sw / 2, y + h + sw / 2), label, None))
        elif tag == "line":
            x1, y1, x2, y2 = (float(el.get(n, "0")) for n in ("x1", "y1", "x2", "y2"))
            out.append(("shape", (min(x1, x2) - sw / 2, min(y1, y2) - sw / 2,
                                  max(x1, x2) + sw / 2, max(y1, y2) + sw / 2),
                        "line (%.1f, %.1f)-(%.1f, %.1f)" % (x1, y1, x2, y2), None))
        elif tag == "circle" and painted(el):
            cx, cy, r = (float(el.get(n, "0")) for n in ("cx", "cy", "r"))
            r += sw / 2
            out.append(("shape", (cx - r, cy - r, cx + r, cy + r), "circle at (%.1f, %.1f)" % (cx, cy), None))
        elif tag == "text":
            s = "".join(el.itertext()).strip()
            if s:
                size = float(el.get("font-size", "16"))
                w = text_width(s, size, el.get("font-weight") == "bold")
                x, y = float(el.get("x", "0")), float(el.get("y", "0"))
                anchor = el.get("text-anchor", "start")
                x0 = x - (w / 2 if anchor == "middle" else w if anchor == "end" else 0)
                out.append(("text", (x0, y - 0.76 * size, x0 + w, y + 0.24 * size),
                            "text %r (%.0f px)" % (s, size), (s, x, y, size)))
            return
        for child in el:
            walk(child, shown)

    walk(root, True)
    return out


def meet(a, b):
    return min(a[2], b[2]) - max(a[0], b[0]) > TOUCH and min(a[3], b[3]) - max(a[1], b[1]) > TOUCH


def overlaps(items):
    found = []
    for i, (kind, box, label, key) in enumerate(items):
        if kind != "text":
            continue
        for j, (k2, b2, l2, k2key) in enumerate(items):
            if j <= i:
                continue   # a shape below the text is its background; text pairs once
            if (k2key is not None and k2key == key) or not meet(box, b2):
                continue
            found.append("%s covered by %s" % (label, l2) if k2 == "shape" else "%s meets %s" % (label, l2))
    return found


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: overlap_check.py SVG|HTML [STEP ...]\n")
        return 2
    path = argv[1]
    if path.endswith(".html"):
        # The page: one SVG per kernel, each checked on its own.
        page = open(path, encoding="utf-8").read()
        svgs = re.findall(r"<svg\b.*?</svg>", page, re.S)
        if not svgs:
            print("FAIL: %s holds no <svg>" % path)
            return 1
        bad = 0
        for i, text in enumerate(svgs):
            bad |= check(ET.fromstring(text), "%s, SVG %d of %d" % (os.path.basename(path), i + 1, len(svgs)),
                         argv[2:])
        return bad
    return check(ET.parse(path).getroot(), os.path.basename(path), argv[2:])


def check(root, name, args):
    # Step N's window: the header's "step N of M: ..." line is shown for it.
    steps = {}
    for el in root.iter(SVGNS + "text"):
        m = re.match(r"step (\d+) of (\d+):", "".join(el.itertext()))
        s = el.find(SVGNS + "set")
        if m and s is not None:
            steps[int(m.group(1))] = (seconds(s.get("begin")), seconds(s.get("dur")))
    wanted = [int(a) for a in args] or sorted(steps)
    bad = 0
    for n in wanted:
        if n not in steps:
            print("FAIL: %s has no step %d (steps 1..%d)" % (name, n, len(steps)))
            bad += 1
            continue
        t0, dur = steps[n]
        seen = set()
        for t in (t0 + 0.01, t0 + dur - 0.05):
            for o in overlaps(items_at(root, t)):
                if o not in seen:
                    seen.add(o)
                    print("FAIL: %s, step %d (t = %.2f s): %s" % (name, n, t, o))
        bad += len(seen)
    fonts = "DejaVu Sans metrics" if len(FONTS) == 2 else "estimated widths (DejaVu Sans .ttf not found)"
    print("%s: steps %s, %s: %d overlap(s)" % (name, ",".join(str(n) for n in wanted), fonts, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
