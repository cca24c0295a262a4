/* segpipe--0.2.0.sql */

\echo Use "CREATE EXTENSION segpipe" to load this file. \quit

-- The pipeline type: a spec (its configuration) and, later, running state.
CREATE TYPE pipeline;

CREATE FUNCTION pipeline_in(cstring) RETURNS pipeline
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_out(pipeline) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
-- The binary forms carry the text in the client encoding, so they depend on
-- client_encoding, as textrecv and textsend do.
CREATE FUNCTION pipeline_recv(internal) RETURNS pipeline
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_send(pipeline) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

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
-- makes a row unpaired, and both must reach the code.  The key is of any
-- type with a default equality.  close_at_end has no default: a default
-- would make the three-argument calls ambiguous.

CREATE FUNCTION segment_agg(value float8, key anyelement) RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_last'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(float8, anyelement) IS
	'emits, on the row where the key changes, the last value of the segment that closed';

CREATE FUNCTION segment_agg(value float8, key anyelement, spec pipeline) RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(float8, anyelement, pipeline) IS
	'runs the inner pipeline per key segment; emits output port 1 on the row where the key changes';

CREATE FUNCTION segment_agg(value float8[], key anyelement, spec pipeline) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(float8[], anyelement, pipeline) IS
	'runs the inner pipeline per key segment with one value per data port; emits one element per output port';

CREATE FUNCTION segment_agg(value float8, key anyelement, spec pipeline, close_at_end boolean)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(float8, anyelement, pipeline, boolean) IS
	'segment_agg(value, key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE FUNCTION segment_agg(value float8[], key anyelement, spec pipeline, close_at_end boolean)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(float8[], anyelement, pipeline, boolean) IS
	'segment_agg(value[], key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE FUNCTION segment_key(value float8, key anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_key(float8, anyelement) IS
	'on the row where the key changes, the key of the segment that closed; else NULL';

CREATE FUNCTION segment_key(value float8[], key anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_key(float8[], anyelement) IS
	'on the row where the key changes, the key of the segment that closed; else NULL';

CREATE FUNCTION segment_key(value float8, key anyelement, close_at_end boolean) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_key(float8, anyelement, boolean) IS
	'segment_key(value, key); when close_at_end, the partition''s last row also closes the open segment';

CREATE FUNCTION segment_key(value float8[], key anyelement, close_at_end boolean) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_key(float8[], anyelement, boolean) IS
	'segment_key(value[], key); when close_at_end, the partition''s last row also closes the open segment';
