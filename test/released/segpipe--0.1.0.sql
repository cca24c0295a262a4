/* segpipe--0.1.0.sql */

\echo Use "CREATE EXTENSION segpipe" to load this file. \quit

-- The pipeline type: a spec (its configuration) and, later, running state.
CREATE TYPE pipeline;

CREATE FUNCTION pipeline_in(cstring) RETURNS pipeline
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_out(pipeline) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_recv(internal) RETURNS pipeline
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_send(pipeline) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE pipeline (
	INPUT = pipeline_in,
	OUTPUT = pipeline_out,
	RECEIVE = pipeline_recv,
	SEND = pipeline_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);

COMMENT ON TYPE pipeline IS 'a segpipe inner pipeline: configuration (JSON text form) and running state';

-- Window functions.  Not STRICT: a NULL value is punctuation and a NULL key
-- makes a row unpaired, and both must reach the code.

CREATE FUNCTION segment_agg(value float8, key float8) RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_last'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(float8, float8) IS
	'emits, on the row where the key changes, the last value of the segment that closed';

CREATE FUNCTION segment_agg(value float8, key float8, spec pipeline) RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(float8, float8, pipeline) IS
	'runs the inner pipeline per key segment; emits output port 1 on the row where the key changes';

CREATE FUNCTION segment_agg(value float8[], key float8, spec pipeline) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(float8[], float8, pipeline) IS
	'runs the inner pipeline per key segment with one value per data port; emits one element per output port';
