/* segpipe--0.5.0--0.6.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.6.0'" to load this file. \quit

-- 0.6.0: each section below is one feature's objects.

-- ---- vectors ----

-- Vector ports (docs/reference.md, "Vectors"): a pipeline whose data port
-- is a vector takes the row's array as the vector; boolean[] values feed
-- boolean and vector_boolean ports.  The boolean[] forms run the same C
-- functions as the float8[] ones, which read either element type.
CREATE FUNCTION segment_agg(value boolean[], key anyelement, spec pipeline) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(boolean[], anyelement, pipeline) IS
	'segment_agg(value[], key, spec) with booleans: one per data port, or the vector of a vector_boolean port';

CREATE FUNCTION segment_agg(value boolean[], key anyelement, spec pipeline, close_at_end boolean)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(boolean[], anyelement, pipeline, boolean) IS
	'segment_agg(value boolean[], key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE FUNCTION segment_agg(ts timestamptz, value boolean[], key anyelement, spec pipeline)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_ts_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(timestamptz, boolean[], anyelement, pipeline) IS
	'segment_agg(value boolean[], key, spec) with the rows'' timestamps, for operators that know time';

CREATE FUNCTION segment_agg(ts timestamptz, value boolean[], key anyelement, spec pipeline,
							close_at_end boolean)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_ts_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(timestamptz, boolean[], anyelement, pipeline, boolean) IS
	'segment_agg(ts, value boolean[], key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE FUNCTION segment_key(value boolean[], key anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_key(boolean[], anyelement) IS
	'on the row where the key changes, the key of the segment that closed; else NULL';

CREATE FUNCTION segment_key(value boolean[], key anyelement, close_at_end boolean) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_key(boolean[], anyelement, boolean) IS
	'segment_key(value boolean[], key); when close_at_end, the partition''s last row also closes the open segment';

CREATE FUNCTION pipeline_agg_step(internal, timestamptz, boolean[], anyelement, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_step_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE pipeline_agg(ts timestamptz, value boolean[], key anyelement, spec pipeline) (
	SFUNC = pipeline_agg_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg(timestamptz, boolean[], anyelement, pipeline) IS
	'pipeline_agg with booleans: one per data port, or the vector of a vector_boolean port';

-- A vector output port's values: emissions() and pending() show them as
-- NULL, these as arrays.
CREATE FUNCTION vector_emissions(p pipeline,
		OUT ts timestamptz, OUT key text, OUT port integer, OUT value float8[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pipeline_vector_emissions' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 10;
COMMENT ON FUNCTION vector_emissions(pipeline) IS
	'the emissions of the vector output ports of the run that produced the pipeline, in order, as arrays';

CREATE FUNCTION vector_pending(p pipeline, OUT key text, OUT port integer, OUT value float8[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pipeline_vector_pending' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1;
COMMENT ON FUNCTION vector_pending(pipeline) IS
	'what the open segment has buffered, per vector output port, as arrays';
