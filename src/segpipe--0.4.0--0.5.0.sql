/* segpipe--0.4.0--0.5.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.5.0'" to load this file. \quit

-- 0.5.0: maintained results corrected on every change of their readings
-- (section "corrections"), and operators that know time (section "time").

-- ---- time ----
-- Operators that know time (docs/reference.md, "Time"): segment_agg with
-- the rows' timestamps first, as pipeline_agg takes them.  A float8 first
-- argument cannot be taken for a timestamptz, nor a timestamptz for a
-- float8, so no call of the forms without ts becomes ambiguous.

CREATE FUNCTION segment_agg(ts timestamptz, value float8, key anyelement, spec pipeline)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_ts_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(timestamptz, float8, anyelement, pipeline) IS
	'segment_agg(value, key, spec) with the rows'' timestamps, for operators that know time';

CREATE FUNCTION segment_agg(ts timestamptz, value float8, key anyelement, spec pipeline,
							close_at_end boolean)
	RETURNS float8
	AS 'MODULE_PATHNAME', 'segment_agg_ts_scalar'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(timestamptz, float8, anyelement, pipeline, boolean) IS
	'segment_agg(ts, value, key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE FUNCTION segment_agg(ts timestamptz, value float8[], key anyelement, spec pipeline)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_ts_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(timestamptz, float8[], anyelement, pipeline) IS
	'segment_agg(value[], key, spec) with the rows'' timestamps, for operators that know time';

CREATE FUNCTION segment_agg(ts timestamptz, value float8[], key anyelement, spec pipeline,
							close_at_end boolean)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_ts_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(timestamptz, float8[], anyelement, pipeline, boolean) IS
	'segment_agg(ts, value[], key, spec); when close_at_end, the partition''s last row also closes the open segment';

-- Sessions split by silence: the key of each row's session (the timestamp
-- of its first row), for segment_agg's key in an outer query.
CREATE FUNCTION session_key(ts timestamptz, gap interval) RETURNS timestamptz
	AS 'MODULE_PATHNAME', 'session_key'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION session_key(timestamptz, interval) IS
	'the timestamp of the first row of this row''s session; a session ends where the time between two rows is longer than gap';
