-- The arithmetic operators against PostgreSQL's own float8 operators and
-- functions, used as the oracle: over the same inputs, segpipe must give
-- the same value (same text) or the same error (same SQLSTATE and message).
-- Only disagreements are listed; none are expected.
\pset format unaligned
\pset null 'null'

-- outcome(query): the query's single text result, or its error.
CREATE FUNCTION outcome(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    r text;
BEGIN
    EXECUTE q INTO r;
    RETURN coalesce(r, 'null');
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || SQLERRM;
END $$;

-- segpipe's answer for one value x: the operator's output, emitted by a
-- punctuation row that closes the segment (and feeds nothing).
CREATE FUNCTION seg1(spec text, x float8) RETURNS text LANGUAGE sql AS $$
  SELECT outcome(format(
    'SELECT e::text FROM (SELECT ts, segment_agg(v, k, %L) OVER (ORDER BY ts) AS e
       FROM (VALUES (1, %L::float8, 0), (2, NULL, 1)) AS t(ts, v, k)) s WHERE ts = 2', spec, x))
$$;

-- ... and for two values on two data ports (array form, port 1 of the result).
CREATE FUNCTION seg2(spec text, x float8, y float8) RETURNS text LANGUAGE sql AS $$
  SELECT outcome(format(
    'SELECT e[1]::text FROM (SELECT ts, segment_agg(v, k, %L) OVER (ORDER BY ts) AS e
       FROM (VALUES (1, ARRAY[%L::float8, %L::float8], 0), (2, NULL, 1)) AS t(ts, v, k)) s
     WHERE ts = 2', spec, x, y))
$$;

CREATE TABLE xs (x float8);
INSERT INTO xs VALUES (0), ('-0'), (1), (-1), (2.5), (-2.5), (0.5), (3.5), (1e308), (-1e308), (1e-308),
  ('5e-324'), (1000), (-1000), (709), (710), (-745), (-746), (3.141592653589793), (1e16),
  ('NaN'), ('Infinity'), ('-Infinity');
-- parameters must be finite: JSON has no NaN or Infinity
CREATE TABLE vs (v float8);
INSERT INTO vs VALUES (0), ('-0'), (2), (-1), (0.5), (-0.5), (3), (1e308), (1e-300);

-- 11 functions of one input x 23 inputs = 253 cases.
CREATE TEMP TABLE unary AS
SELECT f.op, xs.x, seg1(format('{"type": "%s"}', f.op), xs.x) AS seg,
       outcome(format('SELECT %s(%L::float8)::text', f.fn, xs.x)) AS pg
FROM (VALUES ('Abs', 'abs'), ('Sign', 'sign'), ('Floor', 'floor'), ('Ceil', 'ceil'),
             ('Round', 'round'), ('Sin', 'sin'), ('Cos', 'cos'), ('Tan', 'tan'),
             ('Exp', 'exp'), ('Log', 'ln'), ('Log10', 'log')) AS f(op, fn),
     xs;
SELECT count(*) AS cases, count(*) FILTER (WHERE seg <> pg) AS disagreements FROM unary;
SELECT op, x, seg, pg FROM unary WHERE seg <> pg;

-- Scale, Add, Power, LessThanOrEqualToReplace with parameter v:
-- 4 operators x 23 inputs x 9 parameters = 828 cases.
CREATE TEMP TABLE with_value AS
SELECT f.op, xs.x, vs.v,
       seg1(format(f.spec, vs.v), xs.x) AS seg,
       outcome(format(f.q, xs.x, vs.v)) AS pg
FROM (VALUES ('Scale', '{"type": "Scale", "value": %s}', 'SELECT (%L::float8 * %L::float8)::text'),
             ('Add', '{"type": "Add", "value": %s}', 'SELECT (%L::float8 + %L::float8)::text'),
             ('Power', '{"type": "Power", "value": %s}', 'SELECT power(%L::float8, %L::float8)::text'),
             ('LessThanOrEqualToReplace', '{"type": "LessThanOrEqualToReplace", "value": %s, "replaceBy": 7}',
              'SELECT (CASE WHEN %1$L::float8 <= %2$L::float8 THEN 7 ELSE %1$L::float8 END)::text'))
       AS f(op, spec, q),
     xs, vs;
SELECT count(*) AS cases, count(*) FILTER (WHERE seg <> pg) AS disagreements FROM with_value;
SELECT op, x, v, seg, pg FROM with_value WHERE seg <> pg;

-- The four operators across two data ports: 4 x 23 x 23 = 2116 cases.
CREATE TEMP TABLE two_ports AS
SELECT f.op, a.x AS x, b.x AS y,
       seg2(format('{"type": "%s"}', f.op), a.x, b.x) AS seg,
       outcome(format('SELECT (%L::float8 %s %L::float8)::text', a.x, f.sym, b.x)) AS pg
FROM (VALUES ('Addition', '+'), ('Subtraction', '-'), ('Multiplication', '*'), ('Division', '/'))
       AS f(op, sym),
     xs AS a, xs AS b;
SELECT count(*) AS cases, count(*) FILTER (WHERE seg <> pg) AS disagreements FROM two_ports;
SELECT op, x, y, seg, pg FROM two_ports WHERE seg <> pg;

DROP TABLE xs, vs, unary, with_value, two_ports;
DROP FUNCTION seg1(text, float8), seg2(text, float8, float8), outcome(text);
