/* segpipe--0.5.0--0.6.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.6.0'" to load this file. \quit

-- 0.6.0: each section below is one change.

-- ---- ordered ----

-- pipeline_agg(spec) WITHIN GROUP (ORDER BY ts, value, key): pipeline_agg
-- as an ordered-set aggregate.  The spec is a direct argument, evaluated
-- once per group; the transition function sorts (ts, value, key) itself,
-- in the order the WITHIN GROUP clause gives, spilling past work_mem, and
-- the final function runs the sorted rows through pipeline_agg's steps.
-- The executor's sort for pipeline_agg(ts, value, key, spec ORDER BY ts)
-- carries the spec in every row; this one does not.  SHAREABLE: calls with
-- the same rows and other specs may share one sort (the final function
-- reads it again).
CREATE FUNCTION pipeline_agg_ordered_step(internal, timestamptz, float8, anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_ordered_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION pipeline_agg_ordered_step(internal, timestamptz, float8[], anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_ordered_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION pipeline_agg_ordered_final(internal, pipeline)
	RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_agg_ordered_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE pipeline_agg(spec pipeline ORDER BY ts timestamptz, value float8, key anyelement) (
	SFUNC = pipeline_agg_ordered_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_ordered_final,
	FINALFUNC_MODIFY = SHAREABLE,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg(pipeline ORDER BY timestamptz, float8, anyelement) IS
	'pipeline_agg over the rows in the WITHIN GROUP order, sorted by the aggregate itself without the spec: the spec is evaluated once';

CREATE AGGREGATE pipeline_agg(spec pipeline ORDER BY ts timestamptz, value float8[], key anyelement) (
	SFUNC = pipeline_agg_ordered_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_ordered_final,
	FINALFUNC_MODIFY = SHAREABLE,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg(pipeline ORDER BY timestamptz, float8[], anyelement) IS
	'pipeline_agg, one value per data port, over the rows in the WITHIN GROUP order, sorted by the aggregate itself: the spec is evaluated once';
