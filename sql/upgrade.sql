-- ALTER EXTENSION segpipe UPDATE from 0.1.0 (the released script, installed
-- by make install-released) to the default version (the update script built
-- from src/sql/), in a database of its own: afterwards the objects are those of a fresh install (the same
-- lists as in setup.sql, from sql/include/objects.sql), and pipeline values
-- stored under 0.1.0 still read and run.
\set regression_db :DBNAME
CREATE DATABASE segpipe_upgrade;
\c segpipe_upgrade
\pset format unaligned
\pset null 'null'
CREATE EXTENSION segpipe VERSION '0.1.0';

-- 0.1.0: float8 keys only, IMMUTABLE send and receive.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_extension e ON d.refobjid = e.oid AND e.extname = 'segpipe'
ORDER BY p.oid::regprocedure::text COLLATE "C";

CREATE TABLE stored (id int PRIMARY KEY, p pipeline);
INSERT INTO stored VALUES
    (1, '{"type": "MovingAverage", "window_size": 2}'),
    (2, '{"type": "Pipeline", "id": "two", "output_port_types": ["number", "number"],
          "operators": [{"type": "Identity", "id": "in"}, {"type": "CumulativeSum", "id": "sum"},
                        {"type": "CountNumber", "id": "n"}],
          "connections": [{"from": "in", "to": "sum"}, {"from": "in", "to": "n"}],
          "entryOperator": "in", "outputMappings": {"sum": {"o1": "o1"}, "n": {"o1": "o2"}}}');
CREATE TABLE wire AS SELECT id, pipeline_send(p) AS bytes FROM stored;

ALTER EXTENSION segpipe UPDATE;

-- The lists of a fresh install (setup.sql), to the letter.
\i sql/include/objects.sql

-- The stored values read as before, their binary form is unchanged, and
-- they run with keys of any type.
SELECT id, p FROM stored ORDER BY id;
SELECT s.id, pipeline_send(s.p) = w.bytes AS same_bytes FROM stored s JOIN wire w USING (id) ORDER BY id;
SELECT ts, segment_agg(v, k, p) OVER w AS avg2, segment_key(v, k) OVER w AS closed
FROM stored, (VALUES (1, 1, 'IDLE'), (2, 3, 'IDLE'), (3, 5, 'RUNNING'), (4, 7, 'RUNNING')) AS t(ts, v, k)
WHERE id = 1
WINDOW w AS (ORDER BY ts);
SELECT ts, segment_agg(ARRAY[v], k, p, true) OVER (ORDER BY ts) AS sum_and_count
FROM stored, (VALUES (1, 1, 10::bigint), (2, 2, 10), (3, 4, 11)) AS t(ts, v, k)
WHERE id = 2;

-- A value stored under 0.1.0 (format 1) equals a fresh cast of its text,
-- and starts pipeline_agg; the result, carrying state, is format 2.
SELECT id, get_byte(pipeline_send(p), 0) AS format, p = p::text::pipeline AS equal_to_fresh
FROM stored ORDER BY id;
SELECT extract(epoch FROM e.ts) AS ts, e.key, e.port, e.value, get_byte(pipeline_send(r.q), 0) AS format
FROM (SELECT pipeline_agg(to_timestamp(ts), v, k, p ORDER BY ts) AS q
      FROM stored, (VALUES (1, 1.0, 'IDLE'), (2, 3, 'IDLE'), (3, 5, 'RUNNING')) AS t(ts, v, k)
      WHERE id = 1 GROUP BY id) AS r, emissions(r.q) AS e;

\c :regression_db
DROP DATABASE segpipe_upgrade;
