-- Accessors.  They read the stored text only: keys come out as text.
CREATE OR REPLACE FUNCTION emissions(p pipeline,
		OUT ts timestamptz, OUT key text, OUT port integer, OUT value float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pipeline_emissions' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 10;

COMMENT ON FUNCTION emissions(pipeline) IS
	'the emissions of the run that produced the pipeline, in order; key is the closed segment''s key as text';

CREATE OR REPLACE FUNCTION pending(p pipeline, OUT key text, OUT port integer, OUT value float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pipeline_pending' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1;

COMMENT ON FUNCTION pending(pipeline) IS
	'what the open segment has buffered, per output port';

-- Not STRICT: a NULL ts means "the latest ts processed".
CREATE OR REPLACE FUNCTION flush(p pipeline, ts timestamptz DEFAULT NULL) RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_flush' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION flush(pipeline, timestamptz) IS
	'emits the open segment''s buffer (stamped ts, or the latest ts processed), resets the operators and forgets the key';

CREATE OR REPLACE FUNCTION pipeline_key(p pipeline) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION pipeline_key(pipeline) IS 'the current key as text, or NULL';

CREATE OR REPLACE FUNCTION pipeline_progress(p pipeline) RETURNS timestamptz
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION pipeline_progress(pipeline) IS 'the latest ts processed, or NULL';

CREATE OR REPLACE FUNCTION pipeline_rows(p pipeline) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION pipeline_rows(pipeline) IS 'rows processed (late rows that were dropped excluded)';

CREATE OR REPLACE FUNCTION pipeline_discarded(p pipeline) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION pipeline_discarded(pipeline) IS 'unpaired rows (a value without a key) discarded';

CREATE OR REPLACE FUNCTION pipeline_late(p pipeline) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION pipeline_late(pipeline) IS 'late rows dropped (spec "late": "drop")';

-- Punctuation producers: punctuate() applies a punctuation row to a stored
-- pipeline; heartbeats() and quiet_heartbeats() yield the timestamps of
-- punctuation rows to UNION ALL into a segment_agg or pipeline_agg input.

-- Not STRICT: a NULL key is a punctuation row without a key, a NULL ts an
-- error (as in pipeline_agg), and a NULL pipeline gives NULL (as flush()).
CREATE OR REPLACE FUNCTION punctuate(p pipeline, ts timestamptz, key anyelement) RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_punctuate' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION punctuate(pipeline, timestamptz, anyelement) IS
	'applies a punctuation row (ts, no value, key) to the pipeline, exactly as pipeline_agg would; the result''s emissions are what it closed';

-- A state table keeps each pipeline without the emissions of the run
-- that saved it: the same rows leave the same bytes, however they arrived.
CREATE OR REPLACE FUNCTION without_emissions(p pipeline) RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_without_emissions'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION without_emissions(pipeline) IS
	'the pipeline without the emissions of the run that made it (what a maintained state table keeps)';

-- A vector output port's values: emissions() and pending() show them as
-- NULL, these as arrays.
CREATE OR REPLACE FUNCTION vector_emissions(p pipeline,
		OUT ts timestamptz, OUT key text, OUT port integer, OUT value float8[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pipeline_vector_emissions' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 10;

COMMENT ON FUNCTION vector_emissions(pipeline) IS
	'the emissions of the vector output ports of the run that produced the pipeline, in order, as arrays';

CREATE OR REPLACE FUNCTION vector_pending(p pipeline, OUT key text, OUT port integer, OUT value float8[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pipeline_vector_pending' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1;

COMMENT ON FUNCTION vector_pending(pipeline) IS
	'what the open segment has buffered, per vector output port, as arrays';
