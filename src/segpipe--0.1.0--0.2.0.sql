/* segpipe--0.1.0--0.2.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.2.0'" to load this file. \quit

-- The binary forms depend on client_encoding.
ALTER FUNCTION pipeline_recv(internal) STABLE;
ALTER FUNCTION pipeline_send(pipeline) STABLE;

-- The key becomes anyelement.  Dropping the float8-key forms fails when a
-- view uses them; such a view must be dropped first and created again.
DROP FUNCTION segment_agg(float8, float8);
DROP FUNCTION segment_agg(float8, float8, pipeline);
DROP FUNCTION segment_agg(float8[], float8, pipeline);

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
