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

-- pipeline_agg and the accessors of a pipeline's state.

-- Equality and a bytewise order (every stored value is canonical), so that
-- DISTINCT, GROUP BY, UNION and indexes work on pipeline columns.
CREATE FUNCTION pipeline_eq(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_ne(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_lt(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_le(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_gt(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_ge(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_cmp(pipeline, pipeline) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION pipeline_hash(pipeline) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OPERATOR = (
	LEFTARG = pipeline, RIGHTARG = pipeline, PROCEDURE = pipeline_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel,
	HASHES, MERGES
);
CREATE OPERATOR <> (
	LEFTARG = pipeline, RIGHTARG = pipeline, PROCEDURE = pipeline_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
	LEFTARG = pipeline, RIGHTARG = pipeline, PROCEDURE = pipeline_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = pipeline, RIGHTARG = pipeline, PROCEDURE = pipeline_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
	LEFTARG = pipeline, RIGHTARG = pipeline, PROCEDURE = pipeline_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
	LEFTARG = pipeline, RIGHTARG = pipeline, PROCEDURE = pipeline_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

CREATE OPERATOR CLASS pipeline_ops DEFAULT FOR TYPE pipeline USING btree AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 pipeline_cmp(pipeline, pipeline);

CREATE OPERATOR CLASS pipeline_hash_ops DEFAULT FOR TYPE pipeline USING hash AS
	OPERATOR 1 =,
	FUNCTION 1 pipeline_hash(pipeline);

-- The aggregate.  Its transition functions are not STRICT: punctuation
-- (a NULL value) and unpaired rows (a NULL key) must reach them.
CREATE FUNCTION pipeline_agg_step(internal, timestamptz, float8, anyelement, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION pipeline_agg_step(internal, timestamptz, float8[], anyelement, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_step_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION pipeline_agg_final(internal) RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_agg_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE pipeline_agg(ts timestamptz, value float8, key anyelement, spec pipeline) (
	SFUNC = pipeline_agg_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg(timestamptz, float8, anyelement, pipeline) IS
	'runs the rows through the pipeline (continuing from its state, if any) and returns it with its new state and this run''s emissions';

CREATE AGGREGATE pipeline_agg(ts timestamptz, value float8[], key anyelement, spec pipeline) (
	SFUNC = pipeline_agg_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg(timestamptz, float8[], anyelement, pipeline) IS
	'runs the rows, one value per data port, through the pipeline and returns it with its new state and this run''s emissions';

-- Accessors.  They read the stored text only: keys come out as text.
CREATE FUNCTION emissions(p pipeline,
		OUT ts timestamptz, OUT key text, OUT port integer, OUT value float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pipeline_emissions' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 10;
COMMENT ON FUNCTION emissions(pipeline) IS
	'the emissions of the run that produced the pipeline, in order; key is the closed segment''s key as text';

CREATE FUNCTION pending(p pipeline, OUT key text, OUT port integer, OUT value float8)
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pipeline_pending' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1;
COMMENT ON FUNCTION pending(pipeline) IS
	'what the open segment has buffered, per output port';

-- Not STRICT: a NULL ts means "the latest ts processed".
CREATE FUNCTION flush(p pipeline, ts timestamptz DEFAULT NULL) RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_flush' LANGUAGE C IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION flush(pipeline, timestamptz) IS
	'emits the open segment''s buffer (stamped ts, or the latest ts processed), resets the operators and forgets the key';

CREATE FUNCTION pipeline_key(p pipeline) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pipeline_key(pipeline) IS 'the current key as text, or NULL';
CREATE FUNCTION pipeline_progress(p pipeline) RETURNS timestamptz
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pipeline_progress(pipeline) IS 'the latest ts processed, or NULL';
CREATE FUNCTION pipeline_rows(p pipeline) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pipeline_rows(pipeline) IS 'rows processed (late rows that were dropped excluded)';
CREATE FUNCTION pipeline_discarded(p pipeline) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pipeline_discarded(pipeline) IS 'unpaired rows (a value without a key) discarded';
CREATE FUNCTION pipeline_late(p pipeline) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pipeline_late(pipeline) IS 'late rows dropped (spec "late": "drop")';
