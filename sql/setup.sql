-- The extension installs from scratch and exposes exactly the documented
-- objects, with honest labels.
CREATE EXTENSION segpipe;

\pset format unaligned
\pset null 'null'

-- The functions with their argument names (named notation depends on
-- them), C symbols and labels; the same list is checked after an upgrade
-- from 0.1.0 (upgrade.sql).  Functions in PL/pgSQL or SQL show their
-- language instead of their body.
SELECT p.oid::regprocedure AS function,
       pg_get_function_arguments(p.oid) AS arguments,
       pg_get_function_result(p.oid) AS result,
       CASE WHEN l.lanname IN ('plpgsql', 'sql') THEN l.lanname ELSE p.prosrc END AS symbol,
       p.prokind AS kind,
       p.provolatile AS volatility,
       p.proisstrict AS strict,
       p.proparallel AS parallel,
       obj_description(p.oid, 'pg_proc') IS NOT NULL AS commented
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_extension e ON d.refobjid = e.oid AND e.extname = 'segpipe'
JOIN pg_language l ON l.oid = p.prolang
ORDER BY p.oid::regprocedure::text COLLATE "C";

-- Every member of the extension, and its version.
SELECT e.extversion, pg_describe_object(d.classid, d.objid, d.objsubid) AS member
FROM pg_depend d
JOIN pg_extension e ON d.refclassid = 'pg_extension'::regclass AND d.refobjid = e.oid
WHERE e.extname = 'segpipe' AND d.deptype = 'e'
  AND d.objid <> 'pipeline[]'::regtype -- a member from PostgreSQL 17 on, not before: docs/versions.md
ORDER BY pg_describe_object(d.classid, d.objid, d.objsubid) COLLATE "C";

SELECT typname, typlen, typalign, typstorage, typinput, typoutput, typreceive, typsend
FROM pg_type WHERE typname = 'pipeline';

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
