-- Keys of any type with an equality (docs/tour.md, "Keys of any type";
-- docs/design.md, "Keys compare with their type's default equality").  Keys
-- compare with the type's default equality (its btree or hash operator class)
-- and the call's collation.  Every expected value below was worked out by
-- hand from that rule.
\pset format unaligned
\pset null 'null'
SET DateStyle = 'ISO, YMD';
SET TimeZone = 'UTC';
SET IntervalStyle = 'postgres';

-- The overloads resolve without casts: an integer literal, a float8 column,
-- a typed text literal.  A constant key never changes, so nothing is
-- emitted; the float8 key changes on row 2.
SELECT ts, segment_agg(v, 1) OVER w AS int_literal,
       segment_agg(v, k) OVER w AS float8_column,
       segment_agg(v, 'idle'::text) OVER w AS text_literal,
       segment_agg(v, 1, '{"type": "CumulativeSum"}') OVER w AS with_spec,
       segment_agg(ARRAY[v], 'idle'::text, '{"type": "CumulativeSum"}') OVER w AS array_form
FROM (VALUES (1, 10, 1::float8), (2, 20, 2)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- segment_key returns the key's type, a domain included.
CREATE DOMAIN shift_no AS int CHECK (VALUE BETWEEN 1 AND 3);
SELECT pg_typeof(segment_key(1, 1) OVER ()) AS int_literal,
       pg_typeof(segment_key(1, 1.5) OVER ()) AS numeric_literal,
       pg_typeof(segment_key(1, 1e300::float8) OVER ()) AS float8,
       pg_typeof(segment_key(1, 'idle'::text) OVER ()) AS text,
       pg_typeof(segment_key(ARRAY[1], date '2026-03-29') OVER ()) AS date,
       pg_typeof(segment_key(1, 2::shift_no) OVER ()) AS domain;

-- An untyped literal gives anyelement nothing to resolve with: PostgreSQL's
-- own error.  Write the type: 'idle'::text.
SELECT segment_agg(v, 'idle') OVER () FROM (VALUES (1.0)) AS t(v);
SELECT segment_key(v, NULL) OVER () FROM (VALUES (1.0)) AS t(v);

-- pattern(x, y, z) runs the rows (ts, key) = (1, x) (2, y) (3, z) (4, z)
-- (5, NULL) (6, x), value = ts, through segment_agg (Identity) and
-- segment_key, and lists each row that closes a segment as
-- ts:emitted:closed key.  With three different keys:
-- "2:1:x 3:2:y 6:4:z": row 5 is unpaired (its value 5 is discarded, so z's
-- segment ends on 4) and x coming back on row 6 starts a new segment.  When
-- y equals x: "3:2:x 6:4:z", and the closed key is x as it was written,
-- the segment's first key.
CREATE FUNCTION pattern(x anyelement, y anyelement, z anyelement) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(format('%s:%s:%s', ts, e, ck), ' ' ORDER BY ts)
  FROM (SELECT ts, segment_agg(ts::float8, k) OVER w AS e, segment_key(ts::float8, k) OVER w AS ck
        FROM (VALUES (1, x), (2, y), (3, z), (4, z), (5, NULL), (6, x)) AS r(ts, k)
        WINDOW w AS (ORDER BY ts)) AS s
  WHERE e IS NOT NULL OR ck IS NOT NULL
$$;

CREATE TYPE machine_state AS ENUM ('IDLE', 'RUNNING', 'STOPPED');
CREATE TYPE reading_point AS (line int, station text);

-- Keys compared inline (bool, "char", integers, oid, floats, date, time,
-- timestamps, enums), as bytes (text, bytea) or through the equality
-- function (numeric, bpchar, uuid, interval, jsonb, arrays, composites).
-- bool has two values, so z = x: row 6 does not close anything.
SELECT 'bool' AS type, pattern(false, true, false) AS closings
UNION ALL SELECT '"char"', pattern('a'::"char", 'b', 'c')
UNION ALL SELECT 'int2', pattern(1::int2, 2::int2, 3::int2)
UNION ALL SELECT 'int4', pattern(1, 2, 3)
UNION ALL SELECT 'int8 above 2^53', pattern(9007199254740992, 9007199254740993, 9007199254740994)
UNION ALL SELECT 'int8 extremes', pattern('-9223372036854775808'::int8, 9223372036854775807, 0::int8)
UNION ALL SELECT 'oid', pattern(1::oid, 2::oid, '4294967295'::oid)
UNION ALL SELECT 'float4', pattern(0.5::float4, 1.5::float4, 'NaN'::float4)
UNION ALL SELECT 'float8 -0 = 0', pattern('-0'::float8, '0', 'NaN')
UNION ALL SELECT 'float8 NaN = NaN', pattern('NaN'::float8, 'NaN', 'Infinity')
UNION ALL SELECT 'numeric 1.0 = 1.00', pattern(1.0, 1.00, '2')
UNION ALL SELECT 'numeric NaN', pattern('NaN'::numeric, 'NaN', '0')
UNION ALL SELECT 'date', pattern(date '2026-03-28', date '2026-03-29', date 'infinity')
UNION ALL SELECT 'time', pattern(time '12:00', time '13:00', time '14:00')
UNION ALL SELECT 'timestamp', pattern(timestamp '2026-03-29 01:00', timestamp '2026-03-29 02:00',
                                      timestamp '2026-03-29 03:00')
UNION ALL SELECT 'timestamptz, one instant', pattern(timestamptz '2026-03-29 00:00+01',
                                                     timestamptz '2026-03-28 23:00+00',
                                                     timestamptz '2026-03-29 01:00+00')
UNION ALL SELECT 'text', pattern('IDLE'::text, 'RUNNING', 'idle')
UNION ALL SELECT 'varchar', pattern('a'::varchar, 'b', 'A')
UNION ALL SELECT 'bpchar ignores trailing blanks', pattern('a'::bpchar, 'a  ', 'b')
UNION ALL SELECT 'bytea', pattern('\x01'::bytea, '\x0102', '\x02')
UNION ALL SELECT 'uuid', pattern('00000000-0000-0000-0000-000000000001'::uuid,
                                 '00000000-0000-0000-0000-000000000002',
                                 '00000000-0000-0000-0000-000000000001')
UNION ALL SELECT 'interval 1 day = 24 hours', pattern(interval '1 day', '24 hours', '25 hours')
UNION ALL SELECT 'jsonb', pattern('{"a": 1, "b": 2}'::jsonb, '{"b": 2, "a": 1}', '[1]')
UNION ALL SELECT 'int[]', pattern(ARRAY[1, 2], ARRAY[1, 2], ARRAY[2, 1])
UNION ALL SELECT 'enum', pattern('IDLE'::machine_state, 'RUNNING', 'STOPPED')
UNION ALL SELECT 'composite', pattern((1, 'a')::reading_point, (1, 'a')::reading_point,
                                      (1, 'b')::reading_point);

-- bigint keys compare as bigint: 2^53 and 2^53 + 1 are two segments (as
-- float8 they are one: see segment_rule).
SELECT ts, k, segment_agg(v, k) OVER w AS emitted, segment_key(v, k) OVER w AS closed
FROM (VALUES (1, 1, 9007199254740992), (2, 2, 9007199254740993), (3, 3, 9007199254740993),
             (4, 4, 9007199254740992)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- A domain compares as its base type does.
SELECT ts, k, segment_agg(v, k) OVER w AS emitted, segment_key(v, k) OVER w AS closed
FROM (VALUES (1, 10, 1::shift_no), (2, 20, 1::shift_no), (3, 30, 2::shift_no),
             (4, 40, 3::shift_no)) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- Punctuation (value NULL) with typed keys, and NULL keys.  Row 3 is
-- unpaired (discarded), row 4 is punctuation without a key (changes
-- nothing), row 5 is punctuation with a new key and closes 03-28, whose
-- sum is 1 + 2 = 3; row 6 closes 03-29, which fed nothing and so emits
-- nothing, but it is still a closed segment; 'infinity' closes 03-30.
SELECT ts, v, k, segment_agg(v, k, '{"type": "CumulativeSum"}') OVER w AS sum,
       segment_key(v, k) OVER w AS closed
FROM (VALUES (1, 1, date '2026-03-28'), (2, 2, '2026-03-28'), (3, 100, NULL), (4, NULL, NULL),
             (5, NULL, '2026-03-29'), (6, NULL, '2026-03-30'), (7, 5, '2026-03-30'),
             (8, NULL, 'infinity')) AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

-- Collations.  The call's collation decides: an explicit COLLATE, or the
-- column's.  Under the case-insensitive nondeterministic collation, idle =
-- IDLE = Idle and running = RUNNING, so one boundary, closing 'idle' (the
-- segment's first key); under "C" and the database default (both
-- deterministic), every row is a boundary.
CREATE COLLATION case_insensitive (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT ts, k,
       segment_key(v, k COLLATE case_insensitive) OVER w AS ci_key,
       segment_agg(v, k COLLATE case_insensitive) OVER w AS ci_emitted,
       segment_key(v, k COLLATE "C") OVER w AS c_key,
       segment_key(v, k) OVER w AS default_key
FROM (VALUES (1, 1, 'idle'), (2, 2, 'IDLE'), (3, 3, 'Idle'), (4, 4, 'running'), (5, 5, 'RUNNING'))
     AS t(ts, v, k)
WINDOW w AS (ORDER BY ts);

CREATE TEMP TABLE states (ts int, v float8, state text COLLATE case_insensitive);
INSERT INTO states VALUES (1, 1, 'idle'), (2, 2, 'IDLE'), (3, 3, 'running'), (4, 4, 'Running'),
                          (5, 5, 'idle');
SELECT ts, state, segment_agg(v, state) OVER w AS emitted, segment_key(v, state) OVER w AS closed
FROM states WINDOW w AS (ORDER BY ts);

-- A deterministic ICU collation compares bytes, as texteq does.
CREATE COLLATION icu_root (provider = icu, locale = 'und');
SELECT ts, segment_key(v, k COLLATE icu_root) OVER (ORDER BY ts) AS closed
FROM (VALUES (1, 1, 'a'), (2, 2, 'A'), (3, 3, 'A')) AS t(ts, v, k);

-- Keys stored out of line: compressed (default storage) and external
-- (uncompressed, in the TOAST table).  Keys 1 and 2 differ only in their
-- last character; the closed keys come back whole.
CREATE TEMP TABLE big_keys (ts int, v float8, kc text, ke text);
ALTER TABLE big_keys ALTER COLUMN ke SET STORAGE EXTERNAL;
INSERT INTO big_keys
SELECT ts, ts, repeat('ab', 5000) || key, repeat('ab', 5000) || key
FROM (VALUES (1, '1'), (2, '1'), (3, '2'), (4, '2'), (5, '1')) AS t(ts, key);
SELECT ts, segment_agg(v, kc) OVER w AS emitted_c,
       md5(segment_key(v, kc) OVER w) = md5(repeat('ab', 5000) || '1') AS closed_c_is_1,
       md5(segment_key(v, kc) OVER w) = md5(repeat('ab', 5000) || '2') AS closed_c_is_2,
       segment_agg(v, ke) OVER w AS emitted_e,
       length(segment_key(v, ke) OVER w) AS closed_e_length,
       right(segment_key(v, ke) OVER w, 3) AS closed_e_tail
FROM big_keys WINDOW w AS (ORDER BY ts);

-- A key type without an equality is refused on the first row, even when
-- the keys are NULL.
SELECT segment_agg(v, k) OVER () FROM (VALUES (1.0, NULL::json)) AS t(v, k);
SELECT segment_key(v, k) OVER () FROM (VALUES (1.0, point '(1,2)')) AS t(v, k);
SELECT segment_agg(ARRAY[v], k, '{"type": "Identity"}', true) OVER ()
FROM (VALUES (1.0, NULL::xml)) AS t(v, k);

-- A stored key is its type's output under fixed settings, whatever the
-- session's: for each type below, the state's key is written under the
-- fixed settings and under hostile ones, and must read the same.  Key I/O
-- sets only the fixed settings a built-in type's I/O reads (the date and
-- time types DateStyle and TimeZone, interval also IntervalStyle, floats
-- extra_float_digits, integers, text, numeric, uuid and bool none); money
-- stands for the types that get them all.  Each key is made without text
-- input (timetz from a literal with its offset), so the session's settings
-- cannot change the value itself.  Then each state continues with its own
-- key under the hostile settings: the key read back equals it, so no
-- segment closes (emitted 0).
CREATE FUNCTION pg_temp.key_states() RETURNS TABLE (type text, key text, emitted int)
LANGUAGE plpgsql AS $$
DECLARE
  k record;
  p pipeline;
BEGIN
  FOR k IN SELECT * FROM (VALUES
      ('date', 'make_date(2026, 3, 1)'),
      ('timestamptz', 'to_timestamp(1772323200.5)'),
      ('timestamp', 'make_timestamp(2026, 3, 1, 13, 5, 7.25)'),
      ('time', 'make_time(13, 5, 7.25)'),
      ('timetz', 'timetz ''13:05:07.25+05:30'''),
      ('interval', 'make_interval(days => 1, secs => 1.5)'),
      ('float8', '1::float8 / 3'),
      ('float4', '1::float4 / 3::float4'),
      ('numeric', '1.50'),
      ('int8', '-9007199254740993::int8'),
      ('bool', 'true'),
      ('money', '1234::money / 100')) AS t(type, expr)
  LOOP
    EXECUTE format('SELECT pipeline_agg(timestamptz ''epoch'', 1, %s, ''{"type": "Identity"}'')', k.expr)
      INTO p;
    type := k.type;
    key := (p::text::json) -> 'state' ->> 'key';
    EXECUTE format('SELECT json_array_length(pipeline_agg(timestamptz ''epoch'' + interval ''1 s'', 2, %s, $1)::text::json -> ''state'' -> ''emissions'')', k.expr)
      INTO emitted USING p;
    RETURN NEXT;
  END LOOP;
END
$$;
CREATE TEMP TABLE fixed_keys AS SELECT * FROM pg_temp.key_states();
SET DateStyle = 'SQL, DMY';
SET TimeZone = 'Pacific/Kiritimati';
SET IntervalStyle = 'sql_standard';
SET extra_float_digits = -15;
SET search_path = pg_temp, public;
SELECT f.type, f.key, h.key = f.key AS same_under_hostile_settings, h.emitted AS emitted_on_resume
FROM fixed_keys AS f JOIN pg_temp.key_states() AS h USING (type) ORDER BY f.type;
RESET DateStyle;
RESET TimeZone;
RESET IntervalStyle;
RESET extra_float_digits;
RESET search_path;
SET DateStyle = 'ISO, YMD';
SET TimeZone = 'UTC';
SET IntervalStyle = 'postgres';
DROP TABLE fixed_keys;
