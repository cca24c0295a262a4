-- IMMUTABLE as timezone(text, timestamptz) is: the zone is an argument,
-- looked up by name, never as a session-dependent abbreviation.
CREATE OR REPLACE FUNCTION heartbeats(unit text, start timestamptz, stop timestamptz, zone text)
	RETURNS SETOF timestamptz
	AS 'MODULE_PATHNAME', 'sp_heartbeats' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 100;

COMMENT ON FUNCTION heartbeats(text, timestamptz, timestamptz, text) IS
	'the instants in [start, stop] at which date_trunc(unit, ts, zone) changes: punctuation that closes calendar segments on time';

CREATE OR REPLACE FUNCTION quiet_heartbeats(since timestamptz, until timestamptz, quiet interval)
	RETURNS SETOF timestamptz
	AS 'MODULE_PATHNAME', 'sp_quiet_heartbeats' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 10;

COMMENT ON FUNCTION quiet_heartbeats(timestamptz, timestamptz, interval) IS
	'since + quiet, since + 2 quiet, ... strictly before until (elapsed time): heartbeats of a source silent between two rows';

