-- The extension's objects, listed alike after a fresh install (setup.sql)
-- and after an update from 0.1.0 (upgrade.sql): an updated catalog must read
-- like a fresh one.  pg_regress runs only the files named in REGRESS; this
-- one is read by those two with \i (pg_regress feeds psql the file on
-- stdin, so the path is from the top directory, where make runs).

-- The functions with their argument names (named notation depends on
-- them), C symbols and labels.  Functions in PL/pgSQL or SQL show their
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
  -- (so are a view's row type and its array, from 17 on: the view is listed)
  AND NOT (d.classid = 'pg_type'::regclass
           AND d.objid IN (SELECT t.oid FROM pg_type AS t LEFT JOIN pg_type AS el ON el.oid = t.typelem
                           WHERE t.typrelid <> 0 OR el.typrelid <> 0))
ORDER BY pg_describe_object(d.classid, d.objid, d.objsubid) COLLATE "C";

SELECT typname, typlen, typalign, typstorage, typinput, typoutput, typreceive, typsend
FROM pg_type WHERE typname = 'pipeline';
