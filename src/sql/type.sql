-- The pipeline type: a configuration (its spec) and running state.  Its
-- I/O functions are replaced on every update (they are the type's, not
-- made with it); the type itself is made once.
-- @since 0.1.0
CREATE TYPE pipeline;
-- @end

CREATE OR REPLACE FUNCTION pipeline_in(cstring) RETURNS pipeline
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_out(pipeline) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- The binary forms depend on client_encoding.
CREATE OR REPLACE FUNCTION pipeline_recv(internal) RETURNS pipeline
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_send(pipeline) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

-- @since 0.1.0
CREATE TYPE pipeline (
	INPUT = pipeline_in,
	OUTPUT = pipeline_out,
	RECEIVE = pipeline_recv,
	SEND = pipeline_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = extended
);
-- @end

COMMENT ON TYPE pipeline IS 'a segpipe inner pipeline: configuration (JSON text form) and running state';

-- pipeline_agg and the accessors of a pipeline's state.

-- Equality and a bytewise order (every stored value is canonical), so that
-- DISTINCT, GROUP BY, UNION and indexes work on pipeline columns.
CREATE OR REPLACE FUNCTION pipeline_eq(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_ne(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_lt(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_le(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_gt(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_ge(pipeline, pipeline) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_cmp(pipeline, pipeline) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE OR REPLACE FUNCTION pipeline_hash(pipeline) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- @since 0.2.0
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
-- @end

-- Casts for clients: json and jsonb to pipeline, pipeline to json and jsonb.
-- json keeps its text as written, so json -> pipeline reads exactly what the
-- text cast reads, and pipeline -> json gives the exact text back.  jsonb
-- reorders object members, collapses duplicate keys and has no negative
-- zero: jsonb -> pipeline reads configurations only (a "state" member is
-- refused), and pipeline -> jsonb is for looking inside.  Values turn into
-- pipelines on assignment (INSERT, UPDATE of a pipeline column), and into
-- json or jsonb only when asked.  No SQL bodies: nothing is looked up by
-- name when the casts run.
CREATE OR REPLACE FUNCTION pipeline_from_jsonb(jsonb) RETURNS pipeline
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION pipeline_from_jsonb(jsonb) IS
	'the cast from jsonb: reads a configuration; a value with a "state" member is refused';

-- @since 0.3.0
CREATE CAST (json AS pipeline) WITH INOUT AS ASSIGNMENT;

CREATE CAST (jsonb AS pipeline) WITH FUNCTION pipeline_from_jsonb(jsonb) AS ASSIGNMENT;

CREATE CAST (pipeline AS json) WITH INOUT;

CREATE CAST (pipeline AS jsonb) WITH INOUT;
-- @end
