-- Window functions.  Not STRICT: a NULL value is punctuation and a NULL key
-- makes a row unpaired, and both must reach the code.  The key is of any
-- type with a default equality.  close_at_end has no default: a default
-- would make the three-argument calls ambiguous.

CREATE OR REPLACE FUNCTION segment_agg(value float8, key anyelement) RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_last'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(float8, anyelement) IS
	'emits, on the row where the key changes, the last value of the segment that closed';

CREATE OR REPLACE FUNCTION segment_agg(value float8, key anyelement, spec pipeline) RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(float8, anyelement, pipeline) IS
	'runs the inner pipeline per key segment; emits output port 1 on the row where the key changes';

CREATE OR REPLACE FUNCTION segment_agg(value float8[], key anyelement, spec pipeline) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(float8[], anyelement, pipeline) IS
	'runs the inner pipeline per key segment with one value per data port; emits one element per output port';

CREATE OR REPLACE FUNCTION segment_agg(value float8, key anyelement, spec pipeline, close_at_end boolean)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(float8, anyelement, pipeline, boolean) IS
	'segment_agg(value, key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE OR REPLACE FUNCTION segment_agg(value float8[], key anyelement, spec pipeline, close_at_end boolean)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(float8[], anyelement, pipeline, boolean) IS
	'segment_agg(value[], key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE OR REPLACE FUNCTION segment_key(value float8, key anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_key(float8, anyelement) IS
	'on the row where the key changes, the key of the segment that closed; else NULL';

CREATE OR REPLACE FUNCTION segment_key(value float8[], key anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_key(float8[], anyelement) IS
	'on the row where the key changes, the key of the segment that closed; else NULL';

CREATE OR REPLACE FUNCTION segment_key(value float8, key anyelement, close_at_end boolean) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_key(float8, anyelement, boolean) IS
	'segment_key(value, key); when close_at_end, the partition''s last row also closes the open segment';

CREATE OR REPLACE FUNCTION segment_key(value float8[], key anyelement, close_at_end boolean) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_key(float8[], anyelement, boolean) IS
	'segment_key(value[], key); when close_at_end, the partition''s last row also closes the open segment';

-- ---- time ----
-- Operators that know time (docs/reference.md, "Time"): segment_agg with
-- the rows' timestamps first, as pipeline_agg takes them.  A float8 first
-- argument cannot be taken for a timestamptz, nor a timestamptz for a
-- float8, so no call of the forms without ts becomes ambiguous.

CREATE OR REPLACE FUNCTION segment_agg(ts timestamptz, value float8, key anyelement, spec pipeline)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_ts_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(timestamptz, float8, anyelement, pipeline) IS
	'segment_agg(value, key, spec) with the rows'' timestamps, for operators that know time';

CREATE OR REPLACE FUNCTION segment_agg(ts timestamptz, value float8, key anyelement, spec pipeline,
							close_at_end boolean)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_ts_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(timestamptz, float8, anyelement, pipeline, boolean) IS
	'segment_agg(ts, value, key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE OR REPLACE FUNCTION segment_agg(ts timestamptz, value float8[], key anyelement, spec pipeline)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_ts_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(timestamptz, float8[], anyelement, pipeline) IS
	'segment_agg(value[], key, spec) with the rows'' timestamps, for operators that know time';

CREATE OR REPLACE FUNCTION segment_agg(ts timestamptz, value float8[], key anyelement, spec pipeline,
							close_at_end boolean)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_ts_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(timestamptz, float8[], anyelement, pipeline, boolean) IS
	'segment_agg(ts, value[], key, spec); when close_at_end, the partition''s last row also closes the open segment';

-- Sessions split by silence: the key of each row's session (the timestamp
-- of its first row), for segment_agg's key in an outer query.
CREATE OR REPLACE FUNCTION session_key(ts timestamptz, gap interval) RETURNS timestamptz
	AS 'MODULE_PATHNAME', 'session_key'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION session_key(timestamptz, interval) IS
	'the timestamp of the first row of this row''s session; a session ends where the time between two rows is longer than gap';

-- ---- vectors ----

-- Vector ports (docs/reference.md, "Vectors"): a pipeline whose data port
-- is a vector takes the row's array as the vector; boolean[] values feed
-- boolean and vector_boolean ports.  The boolean[] forms run the same C
-- functions as the float8[] ones, which read either element type.
CREATE OR REPLACE FUNCTION segment_agg(value boolean[], key anyelement, spec pipeline) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(boolean[], anyelement, pipeline) IS
	'segment_agg(value[], key, spec) with booleans: one per data port, or the vector of a vector_boolean port';

CREATE OR REPLACE FUNCTION segment_agg(value boolean[], key anyelement, spec pipeline, close_at_end boolean)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(boolean[], anyelement, pipeline, boolean) IS
	'segment_agg(value boolean[], key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE OR REPLACE FUNCTION segment_agg(ts timestamptz, value boolean[], key anyelement, spec pipeline)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_ts_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(timestamptz, boolean[], anyelement, pipeline) IS
	'segment_agg(value boolean[], key, spec) with the rows'' timestamps, for operators that know time';

CREATE OR REPLACE FUNCTION segment_agg(ts timestamptz, value boolean[], key anyelement, spec pipeline,
							close_at_end boolean)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_ts_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_agg(timestamptz, boolean[], anyelement, pipeline, boolean) IS
	'segment_agg(ts, value boolean[], key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE OR REPLACE FUNCTION segment_key(value boolean[], key anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_key(boolean[], anyelement) IS
	'on the row where the key changes, the key of the segment that closed; else NULL';

CREATE OR REPLACE FUNCTION segment_key(value boolean[], key anyelement, close_at_end boolean) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION segment_key(boolean[], anyelement, boolean) IS
	'segment_key(value boolean[], key); when close_at_end, the partition''s last row also closes the open segment';

