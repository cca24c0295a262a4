/* segpipe--0.2.0--0.3.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.3.0'" to load this file. \quit

-- 0.3.0 has no install script of its own: CREATE EXTENSION segpipe runs
-- segpipe--0.2.0.sql and then this file, as pg_stat_statements does, so a
-- fresh install and an upgraded one run the same statements.

-- Punctuation producers: punctuate() applies a punctuation row to a stored
-- pipeline; heartbeats() and quiet_heartbeats() yield the timestamps of
-- punctuation rows to UNION ALL into a segment_agg or pipeline_agg input.

-- Not STRICT: a NULL key is a punctuation row without a key, a NULL ts an
-- error (as in pipeline_agg), and a NULL pipeline gives NULL (as flush()).
CREATE FUNCTION punctuate(p pipeline, ts timestamptz, key anyelement) RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_punctuate' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION punctuate(pipeline, timestamptz, anyelement) IS
	'applies a punctuation row (ts, no value, key) to the pipeline, exactly as pipeline_agg would; the result''s emissions are what it closed';

-- IMMUTABLE as timezone(text, timestamptz) is: the zone is an argument,
-- looked up by name, never as a session-dependent abbreviation.
CREATE FUNCTION heartbeats(unit text, start timestamptz, stop timestamptz, zone text)
	RETURNS SETOF timestamptz
	AS 'MODULE_PATHNAME', 'sp_heartbeats' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 100;
COMMENT ON FUNCTION heartbeats(text, timestamptz, timestamptz, text) IS
	'the instants in [start, stop] at which date_trunc(unit, ts, zone) changes: punctuation that closes calendar segments on time';

CREATE FUNCTION quiet_heartbeats(since timestamptz, until timestamptz, quiet interval)
	RETURNS SETOF timestamptz
	AS 'MODULE_PATHNAME', 'sp_quiet_heartbeats' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 10;
COMMENT ON FUNCTION quiet_heartbeats(timestamptz, timestamptz, interval) IS
	'since + quiet, since + 2 quiet, ... strictly before until (elapsed time): heartbeats of a source silent between two rows';
