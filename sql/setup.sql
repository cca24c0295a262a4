-- The extension installs from scratch and exposes exactly the documented
-- objects, with honest labels.
CREATE EXTENSION segpipe;

\pset format unaligned
\pset null 'null'

-- The functions, members and type, as upgrade.sql lists them after an update.
\i sql/include/objects.sql

-- Test helper used by the operator suites.  trace(spec, vals) shows what the
-- pipeline's output buffer holds after each prefix of vals: prefix n runs in
-- a partition of its own and is closed right after it by a punctuation row
-- (no value, new key, so it reaches no operator), and the emission on that
-- row is the last output produced in the prefix, or '-' when the operator
-- produced nothing yet.
CREATE FUNCTION trace(spec pipeline, vals float8[]) RETURNS text
LANGUAGE sql AS $$
  SELECT string_agg(coalesce(e::text, '-'), ' ' ORDER BY n)
  FROM (SELECT n, i, segment_agg(v, k, spec) OVER (PARTITION BY n ORDER BY i) AS e
        FROM generate_series(1, cardinality(vals)) AS n,
             LATERAL (SELECT i, vals[i] AS v, 0 AS k FROM generate_series(1, n) AS i
                      UNION ALL
                      SELECT n + 1, NULL, 1) AS r) AS s
  WHERE i = n + 1
$$;

-- try_spec(spec) casts spec to pipeline and returns 'ok', or the error as
-- psql would show it: SQLSTATE and message, then the DETAIL, HINT and
-- CONTEXT lines it has.  Context lines stop before the ones that name the
-- statement and this function, which are the same for every error.
CREATE FUNCTION try_spec(spec text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
    hint text;
    context text;
BEGIN
    PERFORM spec::pipeline;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT,
                            context = PG_EXCEPTION_CONTEXT;
    context := regexp_replace(context, '(^|\n)(SQL statement|PL/pgSQL function) .*$', '');
    RETURN concat_ws(E'\n', SQLSTATE || ': ' || SQLERRM,
                     'DETAIL:  ' || nullif(detail, ''),
                     'HINT:  ' || nullif(hint, ''),
                     'CONTEXT:  ' || nullif(context, ''));
END $$;

-- at(n): n seconds into 1 January 2026 (UTC), for short readable rows in
-- the suites of stored pipelines (pipeline_agg, segment_state, punctuate).
CREATE FUNCTION at(n int) RETURNS timestamptz LANGUAGE sql IMMUTABLE
  AS $$ SELECT '2026-01-01 00:00:00+00'::timestamptz + make_interval(secs => n) $$;
