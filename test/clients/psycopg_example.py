# test/clients/psycopg_example.py: psycopg 3, a spec as a dict in, emissions and the pipeline out
import json
import struct

import psycopg
from psycopg.types.json import Json


def pipeline_from_wire(data: bytes) -> dict:
    """A pipeline's binary form: version, flags, reserved, length, texts."""
    version, flags, reserved, config_len = struct.unpack_from("!BBHI", data)
    assert version in (1, 2) and flags == 0 and reserved == 0
    doc = json.loads(data[8:8 + config_len].decode())  # the client encoding, UTF8 here
    if version == 2:
        doc["state"] = json.loads(data[8 + config_len:].decode())
    return doc


spec = {"type": "MovingAverage", "window_size": 2}
with psycopg.connect() as conn:  # PGHOST, PGPORT, PGUSER, PGDATABASE from the environment
    conn.execute("CREATE TEMP TABLE readings (ts timestamptz, v float8)")
    conn.execute("""INSERT INTO readings VALUES ('2026-03-01 08:00+00', 10),
        ('2026-03-01 16:00+00', 20), ('2026-03-02 08:00+00', 30), ('2026-03-02 16:00+00', 40)""")
    # Json(dict) is sent as json, which ::pipeline reads
    text = conn.execute("""SELECT pipeline_agg(ts, v, (ts AT TIME ZONE 'UTC')::date, %s::pipeline
                                               ORDER BY ts)
                           FROM readings""", [Json(spec)]).fetchone()[0]
    for ts, key, port, value in conn.execute("SELECT * FROM emissions(%s::pipeline)", [text]):
        print("emitted", ts.isoformat(), key, port, value)

    doc = json.loads(text)  # the text form is JSON: the configuration and "state"
    print("open segment", doc["state"]["key"], "buffered", doc["state"]["buffer"])
    wire = conn.execute("SELECT %s::pipeline", [text], binary=True).fetchone()[0]
    assert pipeline_from_wire(wire) == doc

    # a pipeline column takes a dict on INSERT (json -> pipeline is an assignment cast);
    # the dict read from a pipeline's text goes back exactly
    conn.execute("CREATE TEMP TABLE sensor_state (sensor text PRIMARY KEY, state pipeline)")
    conn.execute("INSERT INTO sensor_state VALUES ('a', %s)", [Json(doc)])
    same = conn.execute("SELECT state = %s::pipeline FROM sensor_state", [text]).fetchone()[0]
    print("stored equal:", same)
