/* segpipe--0.2.0--0.3.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.3.0'" to load this file. \quit

-- 0.3.0 has no install script of its own: CREATE EXTENSION segpipe runs
-- segpipe--0.2.0.sql and then this file, as pg_stat_statements does, so a
-- fresh install and an upgraded one run the same statements.

-- Casts for clients: json and jsonb to pipeline, pipeline to json and jsonb.
-- json keeps its text as written, so json -> pipeline reads exactly what the
-- text cast reads, and pipeline -> json gives the exact text back.  jsonb
-- reorders object members, collapses duplicate keys and has no negative
-- zero: jsonb -> pipeline reads configurations only (a "state" member is
-- refused), and pipeline -> jsonb is for looking inside.  Values turn into
-- pipelines on assignment (INSERT, UPDATE of a pipeline column), and into
-- json or jsonb only when asked.  No SQL bodies: nothing is looked up by
-- name when the casts run.
CREATE FUNCTION pipeline_from_jsonb(jsonb) RETURNS pipeline
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pipeline_from_jsonb(jsonb) IS
	'the cast from jsonb: reads a configuration; a value with a "state" member is refused';

CREATE CAST (json AS pipeline) WITH INOUT AS ASSIGNMENT;
CREATE CAST (jsonb AS pipeline) WITH FUNCTION pipeline_from_jsonb(jsonb) AS ASSIGNMENT;
CREATE CAST (pipeline AS json) WITH INOUT;
CREATE CAST (pipeline AS jsonb) WITH INOUT;
