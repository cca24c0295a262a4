-- segpipe is a trusted extension: a role that is not a superuser but has
-- CREATE on the database installs it.  Its scripts then run as the bootstrap
-- superuser, with search_path set to the target schema and then pg_temp
-- (pg_catalog, not listed, is searched first).  Objects planted in the
-- target schema or in pg_temp, by another user or by the installing user,
-- must not be picked up by the scripts: every trap below records a row and
-- raises a NOTICE if it is ever called.
\set regression_db :DBNAME
CREATE DATABASE segpipe_trusted;
\c segpipe_trusted
CREATE ROLE regress_segpipe_alice;
CREATE ROLE regress_segpipe_mallory;
GRANT CREATE ON DATABASE segpipe_trusted TO regress_segpipe_alice;
-- a schema both may create in, as public was before PostgreSQL 15
GRANT CREATE ON SCHEMA public TO regress_segpipe_alice, regress_segpipe_mallory;

SET ROLE regress_segpipe_mallory;
CREATE TABLE public.trap_log (trap text);
GRANT INSERT, SELECT ON public.trap_log TO PUBLIC;
CREATE FUNCTION public.trap(name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO public.trap_log VALUES (name);
    RAISE NOTICE 'trap % called by %', name, current_user;
END $$;
-- names of built-in types the scripts use, shadowed
CREATE DOMAIN public.float8 AS numeric;
CREATE DOMAIN public.timestamptz AS text;
CREATE DOMAIN public.text AS int;
CREATE DOMAIN public.json AS text;
CREATE DOMAIN public.jsonb AS text;
CREATE DOMAIN public.bytea AS text;
CREATE TYPE public.cstring AS (x int);
CREATE TYPE public.internal AS (x int);
CREATE TYPE public.anyelement AS (x int);
-- looser overloads of the functions the scripts name (SQL and PL/pgSQL
-- functions cannot take internal or cstring, so those cannot be planted)
CREATE FUNCTION public.pipeline_eq(anyelement, anyelement) RETURNS boolean LANGUAGE sql
    AS $$ SELECT public.trap('pipeline_eq'); SELECT true $$;
CREATE FUNCTION public.pipeline_cmp(anyelement, anyelement) RETURNS integer LANGUAGE sql
    AS $$ SELECT public.trap('pipeline_cmp'); SELECT 0 $$;
CREATE FUNCTION public.pipeline_hash(anyelement) RETURNS integer LANGUAGE sql
    AS $$ SELECT public.trap('pipeline_hash'); SELECT 0 $$;
CREATE FUNCTION public.pipeline_from_jsonb(json) RETURNS text LANGUAGE sql
    AS $$ SELECT public.trap('pipeline_from_jsonb'); SELECT '' $$;
CREATE FUNCTION public.trap_eq(anyelement, anyelement) RETURNS boolean LANGUAGE sql
    AS $$ SELECT public.trap('operator'); SELECT true $$;
CREATE OPERATOR public.= (LEFTARG = anyelement, RIGHTARG = anyelement, FUNCTION = public.trap_eq);
CREATE OPERATOR public.< (LEFTARG = anyelement, RIGHTARG = anyelement, FUNCTION = public.trap_eq);
CREATE OPERATOR public.<> (LEFTARG = anyelement, RIGHTARG = anyelement, FUNCTION = public.trap_eq);
-- CREATE on a schema is not enough: installing needs CREATE on the database
CREATE EXTENSION segpipe;
RESET ROLE;

-- Alice plants her own in pg_temp, then installs into public.
SET ROLE regress_segpipe_alice;
CREATE DOMAIN pg_temp.float8 AS numeric;
CREATE DOMAIN pg_temp.pipeline AS text;
CREATE FUNCTION pg_temp.pipeline_cmp(anyelement, anyelement) RETURNS integer LANGUAGE sql
    AS $$ SELECT public.trap('pg_temp.pipeline_cmp'); SELECT 0 $$;
CREATE EXTENSION segpipe;
SELECT extname, extowner::regrole, extnamespace::regnamespace, extversion FROM pg_extension
WHERE extname = 'segpipe';
SELECT count(*) AS traps_called FROM public.trap_log;
-- (pg_temp comes first for types in her own session: her plants go, or
-- float8 and pipeline below would be hers)
DROP DOMAIN pg_temp.float8, pg_temp.pipeline;

-- Every type the extension's functions take or return is pg_catalog's or
-- its own pipeline.
SELECT DISTINCT t.typnamespace::regnamespace AS schema, t.typname
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON d.refobjid = e.oid AND e.extname = 'segpipe',
     LATERAL unnest(p.proargtypes::oid[] || p.prorettype) AS a(oid)
JOIN pg_type t ON t.oid = a.oid
ORDER BY 1, 2;
-- The operators, operator classes and casts use the extension's functions.
SELECT o.oprname, o.oprcode::regprocedure AS function, o.oprcom::regoperator AS commutator,
       o.oprnegate::regoperator AS negator
FROM pg_operator o WHERE o.oprleft = 'public.pipeline'::regtype ORDER BY 1;
SELECT opf.opfname, ap.amproc::regprocedure AS support
FROM pg_amproc ap JOIN pg_opfamily opf ON opf.oid = ap.amprocfamily
WHERE ap.amproclefttype = 'public.pipeline'::regtype ORDER BY 1;
SELECT castsource::regtype, casttarget::regtype, castfunc::regprocedure
FROM pg_cast WHERE casttarget = 'public.pipeline'::regtype ORDER BY 1;

-- Alice uses it: the objects belong to the bootstrap superuser, the
-- extension to her.
CREATE TABLE alice_state AS
SELECT pipeline_agg(ts, v, k, '{"type": "CumulativeSum"}'::json::pipeline ORDER BY ts) AS p
FROM (VALUES (timestamptz '2026-01-01 00:00+00', 1.0::float8, 1), ('2026-01-01 01:00+00', 2, 1),
             ('2026-01-01 02:00+00', 4, 2)) AS r(ts, v, k);
SELECT e.key, e.value FROM alice_state, emissions(p) AS e;
SELECT p::json::pipeline = p AS round_trip, p::jsonb #>> '{state,key}' AS open_key FROM alice_state;
SELECT v, segment_agg(v, k, '{"type": "CountNumber"}'::jsonb::pipeline) OVER (ORDER BY v) AS closed
FROM (VALUES (1.0::float8, 'a'::text), (2, 'a'), (3, 'b')) AS r(v, k);
SELECT count(*) AS traps_called FROM public.trap_log;

-- She cannot move it (its objects are not hers), a superuser can; the
-- objects keep working under a name of another schema, casts included.
CREATE SCHEMA alice_moved;
ALTER EXTENSION segpipe SET SCHEMA alice_moved;
RESET ROLE;
ALTER EXTENSION segpipe SET SCHEMA alice_moved;
SET ROLE regress_segpipe_alice;
SELECT '{"type": "Identity"}'::json::alice_moved.pipeline::jsonb ->> 'entryOperator' AS moved;
SELECT alice_moved.pipeline_rows(p) FROM alice_state;
DROP TABLE alice_state;

-- She drops it and installs it into a schema of her own, where she has
-- planted the same traps first: the script's own schema, first in its path.
DROP EXTENSION segpipe;
CREATE SCHEMA alice_s;
CREATE DOMAIN alice_s.float8 AS numeric;
CREATE DOMAIN alice_s.json AS text;
CREATE FUNCTION alice_s.pipeline_cmp(anyelement, anyelement) RETURNS integer LANGUAGE sql
    AS $$ SELECT public.trap('alice_s.pipeline_cmp'); SELECT 0 $$;
CREATE FUNCTION alice_s.pipeline_eq(anyelement, anyelement) RETURNS boolean LANGUAGE sql
    AS $$ SELECT public.trap('alice_s.pipeline_eq'); SELECT true $$;
CREATE OPERATOR alice_s.= (LEFTARG = anyelement, RIGHTARG = anyelement, FUNCTION = public.trap_eq);
CREATE EXTENSION segpipe SCHEMA alice_s VERSION '0.2.0';
-- an upgrade also runs as the bootstrap superuser: a function of the name
-- it is about to create or replace makes it fail, rather than be used or
-- replaced (PostgreSQL refuses to let an extension script replace an
-- object that is not the extension's own)
CREATE FUNCTION alice_s.pipeline_from_jsonb(jsonb) RETURNS alice_s.pipeline LANGUAGE sql
    AS $$ SELECT public.trap('alice_s.pipeline_from_jsonb'); SELECT NULL::alice_s.pipeline $$;
-- (PostgreSQL 18 adds the script's line as context: not shown, one output for every major)
\set SHOW_CONTEXT never
ALTER EXTENSION segpipe UPDATE;
\set SHOW_CONTEXT errors
DROP FUNCTION alice_s.pipeline_from_jsonb(jsonb);
ALTER EXTENSION segpipe UPDATE;
SELECT extnamespace::regnamespace, extversion FROM pg_extension WHERE extname = 'segpipe';
SELECT DISTINCT t.typnamespace::regnamespace AS schema, t.typname
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON d.refobjid = e.oid AND e.extname = 'segpipe',
     LATERAL unnest(p.proargtypes::oid[] || p.prorettype) AS a(oid)
JOIN pg_type t ON t.oid = a.oid
WHERE t.typnamespace <> 'pg_catalog'::regnamespace
ORDER BY 1, 2;
SELECT opf.opfname, ap.amproc::regprocedure AS support
FROM pg_amproc ap JOIN pg_opfamily opf ON opf.oid = ap.amprocfamily
WHERE ap.amproclefttype = 'alice_s.pipeline'::regtype ORDER BY 1;
SELECT o.oprname, o.oprcode::regprocedure AS function
FROM pg_operator o WHERE o.oprleft = 'alice_s.pipeline'::regtype ORDER BY 1;
SELECT alice_s.pipeline_rows('{"type": "Identity"}'::json::alice_s.pipeline) AS rows;
SELECT count(*) AS traps_called FROM public.trap_log;
DROP EXTENSION segpipe;
RESET ROLE;

\c :regression_db
DROP DATABASE segpipe_trusted;
DROP ROLE regress_segpipe_alice;
DROP ROLE regress_segpipe_mallory;
