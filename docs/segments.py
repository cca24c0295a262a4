#!/usr/bin/env python3
"""Draws docs/segments.svg, the picture in the README, from segpipe's own output.

Four days of a sensor's readings, every two hours, silent from the afternoon of
the third day to the next morning, go through segment_agg in a live server,
keyed by the UTC day, with close_at_end:

    segment_key(v, day, close_at_end => true)
    segment_agg(v, day, '{"type": "MaxTracker"}', close_at_end => true)
    segment_agg(v, day, '{"type": "MovingAverage", "window_size": 3}', close_at_end => true)

The picture shows the readings, the rows that close a day (a day's first
reading closes the day before; the last reading closes the last day), and
what each such row emits: the closed day's maximum and the mean of its last
three readings, each drawn at the row that emits it and joined to the
readings it covers.  Everything drawn comes from the query's result.

    python3 docs/segments.py           writes docs/segments.svg
    python3 docs/segments.py --check   draws it again and fails unless it is
                                       byte for byte the committed
                                       docs/segments.svg

Connection settings come from the environment (PGHOST, PGPORT, PGUSER), as for
psql; the script creates and drops a database of its own, segpipe_picture.  The
SVG is written as text here, with every number formatted by this script, so
its bytes depend only on what segpipe returns.
"""
import datetime
import difflib
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "segments.svg")
DB = "segpipe_picture"

QUERY = """
CREATE EXTENSION segpipe;
CREATE TABLE readings (ts timestamptz NOT NULL, v float8 NOT NULL);
-- four days every two hours: a daily swing, a warmer second day, a little noise;
-- silent from 14:00 on the 4th to 08:00 on the 5th
INSERT INTO readings
SELECT ts, round((14 + 3 * (i / 12 = 1)::int - 2 * (i / 12 = 3)::int
                  + 6 * sin(2 * pi() * ((i % 12) * 2 - 9) / 24)
                  + ((i * 37) % 11 - 5) / 4.0)::numeric, 1)
FROM generate_series(0, 47) AS i,
     LATERAL (SELECT timestamptz '2026-03-02 00:00+00' + i * interval '2 hours' AS ts) AS t
WHERE ts < '2026-03-04 14:00+00' OR ts >= '2026-03-05 08:00+00';
SELECT extract(epoch FROM ts)::bigint, v,
       segment_key(v, day, close_at_end => true) OVER w,
       segment_agg(v, day, '{"type": "MaxTracker"}', close_at_end => true) OVER w,
       segment_agg(v, day, '{"type": "MovingAverage", "window_size": 3}', close_at_end => true) OVER w
FROM (SELECT ts, v, (ts AT TIME ZONE 'UTC')::date AS day FROM readings) AS r
WINDOW w AS (ORDER BY ts)
ORDER BY ts;
"""


def run_query():
    """The query's rows: (epoch, value, closed day or None, max or None, mean or None)."""
    def cmd(*args):
        subprocess.run(list(args), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    subprocess.run(["dropdb", "--if-exists", DB], check=True, stderr=subprocess.DEVNULL)
    cmd("createdb", "-E", "UTF8", "-T", "template0", DB)
    try:
        r = subprocess.run(["psql", "-X", "-q", "-At", "-F", "|", "-v", "ON_ERROR_STOP=1", "-d", DB],
                           input=QUERY, capture_output=True, text=True,
                           env=dict(os.environ, PGTZ="UTC"))
    finally:
        subprocess.run(["dropdb", DB], check=True)
    if r.returncode != 0:
        sys.exit("segments.py: " + r.stderr[-2000:])
    rows = []
    for line in r.stdout.splitlines():
        epoch, v, day, top, mean = line.split("|")
        rows.append((int(epoch), float(v), day or None,
                     float(top) if top else None, float(mean) if mean else None))
    return rows


# ---- drawing ----

W, H = 900, 440
LEFT, RIGHT, TOP, BOTTOM = 58, 22, 62, 64
GREY, INK = "#8c8c8c", "#222222"
READ, CLOSE, TOPC, MEANC = "#4d4d4d", "#c0392b", "#1f6fb5", "#1e8a4c"


def fmt(x):
    return "%.1f" % x


def draw(rows):
    t0 = datetime.datetime(2026, 3, 2, tzinfo=datetime.timezone.utc).timestamp()
    t1 = t0 + 4 * 86400
    vmin, vmax = 0.0, 30.0
    pw, ph = W - LEFT - RIGHT, H - TOP - BOTTOM

    def x(epoch):
        return LEFT + (epoch - t0) / (t1 - t0) * pw

    def y(v):
        return TOP + (vmax - v) / (vmax - vmin) * ph

    out = []
    add = out.append
    add('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
        'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12">' % (W, H, W, H))
    add('<rect width="%d" height="%d" fill="#ffffff"/>' % (W, H))
    add('<text x="%d" y="20" font-size="14" font-weight="bold" fill="%s">'
        'segment_agg keyed by day: each day closes on the next day\'s first reading</text>'
        % (LEFT, INK))

    # days: alternate shading, midnights, date labels
    for d in range(4):
        a, b = t0 + d * 86400, t0 + (d + 1) * 86400
        if d % 2 == 1:
            add('<rect x="%s" y="%d" width="%s" height="%d" fill="#f3f3f3"/>'
                % (fmt(x(a)), TOP, fmt(x(b) - x(a)), ph))
        day = datetime.datetime.fromtimestamp(a, datetime.timezone.utc)
        add('<text x="%s" y="%d" text-anchor="middle" fill="%s">%s</text>'
            % (fmt((x(a) + x(b)) / 2), H - BOTTOM + 34, INK, day.strftime("%a %d %b").replace(" 0", " ")))
        for hour in (0, 6, 12, 18):
            xx = x(a + hour * 3600)
            add('<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s" stroke-width="%s"/>'
                % (fmt(xx), H - BOTTOM, fmt(xx), H - BOTTOM + (6 if hour == 0 else 3), GREY,
                   "1" if hour == 0 else "0.6"))
            if hour:
                add('<text x="%s" y="%d" text-anchor="middle" font-size="10" fill="%s">%02d:00</text>'
                    % (fmt(xx), H - BOTTOM + 16, GREY, hour))
    # value axis
    for v in range(0, 31, 5):
        add('<line x1="%d" y1="%s" x2="%d" y2="%s" stroke="#e2e2e2" stroke-width="0.8"/>'
            % (LEFT, fmt(y(v)), W - RIGHT, fmt(y(v))))
        add('<text x="%d" y="%s" text-anchor="end" fill="%s">%d</text>' % (LEFT - 6, fmt(y(v) + 4), GREY, v))
    add('<text x="16" y="%s" transform="rotate(-90 16 %s)" text-anchor="middle" fill="%s">'
        'reading (°C)</text>' % (fmt(TOP + ph / 2), fmt(TOP + ph / 2), GREY))
    add('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="%s" stroke-width="0.8"/>'
        % (LEFT, TOP, pw, ph, GREY))

    # the rows that close a day; each closed day's readings are those since the previous closing
    closings = [i for i, r in enumerate(rows) if r[2] is not None]
    last = len(rows) - 1
    for i in closings:
        xx = x(rows[i][0])
        dash = "" if i != last else ' stroke-dasharray="2 3"'
        add('<line x1="%s" y1="%d" x2="%s" y2="%d" stroke="%s" stroke-width="1.4"%s/>'
            % (fmt(xx), TOP, fmt(xx), H - BOTTOM, CLOSE, dash))
        day = rows[i][2][5:].replace("-", "/")
        if i != last:
            add('<text x="%s" y="%d" font-size="10" fill="%s">closes %s</text>'
                % (fmt(xx + 3), TOP + 12, CLOSE, day))
        else:
            add('<text x="%s" y="%d" text-anchor="end" font-size="10" fill="%s">last row</text>'
                % (fmt(xx - 3), TOP + 26, CLOSE))
            add('<text x="%s" y="%d" text-anchor="end" font-size="10" fill="%s">(close_at_end): closes %s</text>'
                % (fmt(xx - 3), TOP + 38, CLOSE, day))

    # readings
    add('<polyline fill="none" stroke="%s" stroke-width="1.2" points="%s"/>'
        % (READ, " ".join("%s,%s" % (fmt(x(r[0])), fmt(y(r[1]))) for r in rows)))
    for r in rows:
        add('<circle cx="%s" cy="%s" r="2.2" fill="%s"/>' % (fmt(x(r[0])), fmt(y(r[1])), READ))

    # what each closing row emits, joined to the readings it covers
    start = 0
    for i in closings:
        seg_end = i if i != last else i + 1          # the closing row opens the next day, except the last
        seg = rows[start:seg_end]
        ex = x(rows[i][0])
        top, mean = rows[i][3], rows[i][4]
        if top is not None:
            peak = max(seg, key=lambda r: r[1])
            add('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1" stroke-dasharray="4 3"/>'
                % (fmt(x(peak[0])), fmt(y(top)), fmt(ex), fmt(y(top)), TOPC))
            add('<path d="M%s %s l-6 9 h12 z" fill="%s"/>' % (fmt(ex), fmt(y(top) - 6), TOPC))
            add('<text x="%s" y="%s" text-anchor="end" font-size="11" fill="%s">%s</text>'
                % (fmt(ex - 7), fmt(y(top) - 6), TOPC, fmt(top)))
        if mean is not None:
            first = seg[-3]
            add('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1" stroke-dasharray="4 3"/>'
                % (fmt(x(first[0])), fmt(y(mean)), fmt(ex), fmt(y(mean)), MEANC))
            add('<path d="M%s %s l6 6 l-6 6 l-6 -6 z" fill="%s"/>' % (fmt(ex), fmt(y(mean) - 6), MEANC))
            add('<text x="%s" y="%s" text-anchor="end" font-size="11" fill="%s">%s</text>'
                % (fmt(ex - 7), fmt(y(mean) + 14), MEANC, fmt(mean)))
        start = i

    # legend
    ly = 42
    items = [
        ('<circle cx="%d" cy="%d" r="2.2" fill="%s"/><line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" '
         'stroke-width="1.2"/>', "reading", READ),
        ('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="1.4"/>', "row that closes a day", CLOSE),
        ('<path d="M%d %d l-6 9 h12 z" fill="%s"/>', "emitted: the day's maximum", TOPC),
        ('<path d="M%d %d l6 6 l-6 6 l-6 -6 z" fill="%s"/>', "emitted: mean of its last 3 readings", MEANC),
    ]
    lx = LEFT
    for shape, text, colour in items:
        if text == "reading":
            add(shape % (lx + 9, ly - 4, colour, lx, ly - 4, lx + 18, ly - 4, colour))
        elif text.startswith("row"):
            add(shape % (lx + 9, ly - 11, lx + 9, ly + 3, colour))
        elif "maximum" in text:
            add(shape % (lx + 9, ly - 10, colour))
        else:
            add(shape % (lx + 9, ly - 10, colour))
        add('<text x="%d" y="%d" fill="%s">%s</text>' % (lx + 24, ly, INK, text))
        lx += 24 + 7 * len(text) + 22
    add('</svg>')
    return "\n".join(out) + "\n"


def main():
    check = len(sys.argv) > 1 and sys.argv[1] == "--check"
    svg = draw(run_query())
    if not check:
        with open(TARGET, "w", encoding="utf-8", newline="\n") as f:
            f.write(svg)
        print("wrote " + os.path.relpath(TARGET))
        return 0
    drawn = svg.encode("utf-8")
    committed = open(TARGET, "rb").read() if os.path.exists(TARGET) else b""
    if drawn == committed:
        print("picture: 1 passed, 0 failed")
        return 0
    sys.stderr.writelines(list(difflib.unified_diff(
        committed.decode("utf-8", "replace").splitlines(True), svg.splitlines(True),
        "docs/segments.svg (committed)", "docs/segments.svg (drawn now)"))[:40])
    print("docs/segments.svg is not what segpipe draws now; regenerate it with\n"
          "    python3 docs/segments.py\n"
          "in a cluster where this tree's segpipe is installed (e.g. make install, then\n"
          "pg_virtualenv python3 docs/segments.py), look at it, and commit it", file=sys.stderr)
    print("picture: 0 passed, 1 failed")
    return 1


if __name__ == "__main__":
    sys.exit(main())
