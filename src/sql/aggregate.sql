-- The aggregate.  Its transition functions are not STRICT: punctuation
-- (a NULL value) and unpaired rows (a NULL key) must reach them.
CREATE OR REPLACE FUNCTION pipeline_agg_step(internal, timestamptz, float8, anyelement, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_agg_step(internal, timestamptz, float8[], anyelement, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_step_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_agg_final(internal) RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_agg_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE pipeline_agg(ts timestamptz, value float8, key anyelement, spec pipeline) (
	SFUNC = pipeline_agg_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE pipeline_agg(timestamptz, float8, anyelement, pipeline) IS
	'runs the rows through the pipeline (continuing from its state, if any) and returns it with its new state and this run''s emissions';

CREATE OR REPLACE AGGREGATE pipeline_agg(ts timestamptz, value float8[], key anyelement, spec pipeline) (
	SFUNC = pipeline_agg_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE pipeline_agg(timestamptz, float8[], anyelement, pipeline) IS
	'runs the rows, one value per data port, through the pipeline and returns it with its new state and this run''s emissions';

-- pipeline_agg with the key as a one-column row, ROW(key): the argument
-- types are fixed, so a call that gives them exactly matches this aggregate
-- and no other (an exact match wins over every candidate; two functions of
-- one schema cannot share the signature).
CREATE OR REPLACE FUNCTION pipeline_agg_row_step(internal, timestamptz, float8, record, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_row_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_agg_row_step(internal, timestamptz, float8[], record, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_row_step_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE pipeline_agg_row(ts timestamptz, value float8, key_row record, spec pipeline) (
	SFUNC = pipeline_agg_row_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE pipeline_agg_row(timestamptz, float8, record, pipeline) IS
	'pipeline_agg with the key passed as ROW(key) (its only column, compared under that column''s collation): the form generated code calls';

CREATE OR REPLACE AGGREGATE pipeline_agg_row(ts timestamptz, value float8[], key_row record, spec pipeline) (
	SFUNC = pipeline_agg_row_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE pipeline_agg_row(timestamptz, float8[], record, pipeline) IS
	'pipeline_agg, one value per data port, with the key passed as ROW(key): the form generated code calls';

-- pipeline_agg_row, returning the result followed by the run's checkpoints:
-- the pipeline as it was before each row that opened a new segment later
-- than every row before it (its progress then is the checkpoint's time).
-- A run from a checkpoint over the rows after its progress gives what a
-- run from the start gives: the maintained trigger corrects a sensor so.
CREATE OR REPLACE FUNCTION pipeline_agg_checkpoints_step(internal, timestamptz, float8, record, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_checkpoints_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_agg_checkpoints_step(internal, timestamptz, float8[], record, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_checkpoints_step_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_agg_checkpoints_final(internal)
	RETURNS pipeline[]
	AS 'MODULE_PATHNAME', 'pipeline_agg_checkpoints_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE pipeline_agg_checkpoints(ts timestamptz, value float8, key_row record, spec pipeline) (
	SFUNC = pipeline_agg_checkpoints_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_checkpoints_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE pipeline_agg_checkpoints(timestamptz, float8, record, pipeline) IS
	'pipeline_agg_row returning an array: the result, then the pipeline as it was before each new segment (its checkpoints)';

CREATE OR REPLACE AGGREGATE pipeline_agg_checkpoints(ts timestamptz, value float8[], key_row record, spec pipeline) (
	SFUNC = pipeline_agg_checkpoints_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_checkpoints_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE pipeline_agg_checkpoints(timestamptz, float8[], record, pipeline) IS
	'pipeline_agg_row, one value per data port, returning the result and then the run''s checkpoints';

-- ---- ordered ----

-- pipeline_agg(spec) WITHIN GROUP (ORDER BY ts, value, key): pipeline_agg
-- as an ordered-set aggregate.  The spec is a direct argument, evaluated
-- once per group; the transition function sorts (ts, value, key) itself,
-- in the order the WITHIN GROUP clause gives, spilling past work_mem, and
-- the final function runs the sorted rows through pipeline_agg's steps.
-- The executor's sort for pipeline_agg(ts, value, key, spec ORDER BY ts)
-- carries the spec in every row; this one does not.  SHAREABLE: calls with
-- the same rows and other specs may share one sort (the final function
-- reads it again).
CREATE OR REPLACE FUNCTION pipeline_agg_ordered_step(internal, timestamptz, float8, anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_ordered_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_agg_ordered_step(internal, timestamptz, float8[], anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_ordered_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_agg_ordered_final(internal, pipeline)
	RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_agg_ordered_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE pipeline_agg(spec pipeline ORDER BY ts timestamptz, value float8, key anyelement) (
	SFUNC = pipeline_agg_ordered_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_ordered_final,
	FINALFUNC_MODIFY = SHAREABLE,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE pipeline_agg(pipeline ORDER BY timestamptz, float8, anyelement) IS
	'pipeline_agg over the rows in the WITHIN GROUP order, sorted by the aggregate itself without the spec: the spec is evaluated once';

CREATE OR REPLACE AGGREGATE pipeline_agg(spec pipeline ORDER BY ts timestamptz, value float8[], key anyelement) (
	SFUNC = pipeline_agg_ordered_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_ordered_final,
	FINALFUNC_MODIFY = SHAREABLE,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE pipeline_agg(pipeline ORDER BY timestamptz, float8[], anyelement) IS
	'pipeline_agg, one value per data port, over the rows in the WITHIN GROUP order, sorted by the aggregate itself: the spec is evaluated once';

CREATE OR REPLACE FUNCTION pipeline_agg_step(internal, timestamptz, boolean[], anyelement, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_step_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE OR REPLACE AGGREGATE pipeline_agg(ts timestamptz, value boolean[], key anyelement, spec pipeline) (
	SFUNC = pipeline_agg_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE pipeline_agg(timestamptz, boolean[], anyelement, pipeline) IS
	'pipeline_agg with booleans: one per data port, or the vector of a vector_boolean port';

