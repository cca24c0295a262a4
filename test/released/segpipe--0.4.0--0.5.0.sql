/* segpipe--0.4.0--0.5.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.5.0'" to load this file. \quit

-- 0.5.0: maintained results corrected on every change of their readings
-- (section "corrections"), and operators that know time (section "time").

-- ==== corrections ====

-- pipeline_agg_row, returning the result followed by the run's checkpoints:
-- the pipeline as it was before each row that opened a new segment later
-- than every row before it (its progress then is the checkpoint's time).
-- A run from a checkpoint over the rows after its progress gives what a
-- run from the start gives: the maintained trigger corrects a sensor so.
CREATE FUNCTION pipeline_agg_checkpoints_step(internal, timestamptz, float8, record, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_checkpoints_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION pipeline_agg_checkpoints_step(internal, timestamptz, float8[], record, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_checkpoints_step_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION pipeline_agg_checkpoints_final(internal)
	RETURNS pipeline[]
	AS 'MODULE_PATHNAME', 'pipeline_agg_checkpoints_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE pipeline_agg_checkpoints(ts timestamptz, value float8, key_row record, spec pipeline) (
	SFUNC = pipeline_agg_checkpoints_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_checkpoints_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg_checkpoints(timestamptz, float8, record, pipeline) IS
	'pipeline_agg_row returning an array: the result, then the pipeline as it was before each new segment (its checkpoints)';

CREATE AGGREGATE pipeline_agg_checkpoints(ts timestamptz, value float8[], key_row record, spec pipeline) (
	SFUNC = pipeline_agg_checkpoints_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_checkpoints_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg_checkpoints(timestamptz, float8[], record, pipeline) IS
	'pipeline_agg_row, one value per data port, returning the result and then the run''s checkpoints';

-- segpipe_maintain() takes three more arguments: the late-row policy and
-- how long checkpoints are kept.  (A new argument list is a new function:
-- the old one goes, so that calls with seven arguments find this one.)
DROP FUNCTION segpipe_maintain(regclass, text, text, text, text, pipeline, text);
CREATE FUNCTION segpipe_maintain(readings regclass, partition_by text, ts text, value text,
		key text, spec pipeline, results text,
		late text DEFAULT 'correct', horizon interval DEFAULT NULL,
		beyond_horizon text DEFAULT 'replay')
	RETURNS bigint
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	-- the caller's search_path must not change what the names below mean, and
	-- types come out schema-qualified; the settings are the trigger's (below)
	SET search_path = pg_catalog, pg_temp
	SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres'
	AS $fn$
DECLARE
	ext name;           -- the extension's schema, written quoted into the generated code
	nsp name;           -- the schema of readings: the new objects are created there
	rel name;
	kind "char";
	part_typ text;      -- the partition column's type and typmod
	part_coll text;     -- ' COLLATE x.y' when the column's collation is not its type's
	col_type regtype;
	not_null boolean;
	key_type text;
	key_ord text;       -- how keys are ordered among rows of equal ts and value
	v_type text;        -- the value column's type, as the aggregate takes it
	eq_op text;         -- OPERATOR(schema.name): the partition column's equality
	spec_late text;
	state_t text := results || '_state';
	ckpt_t text := results || '_checkpoint';
	view_t text := results || '_realtime';
	fn_t text := results || '_maintain';
	correct_t text := results || '_correct';
	q_state text;
	q_ckpt text;
	q_results text;
	q_correct text;
	rows_sql text;      -- a sensor's readings after a time, as the runs read them
	run_cols text;      -- the aggregate call over them
	prune_sql text;
	correct_body text;
	trigger_body text;
	r record;
	ran bigint;
BEGIN
	FOR r IN SELECT * FROM (VALUES (1, 'readings', readings IS NULL), (2, 'partition_by', partition_by IS NULL),
	                               (3, 'ts', ts IS NULL), (4, 'value', value IS NULL), (5, 'key', key IS NULL),
	                               (6, 'spec', spec IS NULL), (7, 'results', results IS NULL),
	                               (8, 'late', late IS NULL), (10, 'beyond_horizon', beyond_horizon IS NULL)) AS a(n, arg, missing)
	         WHERE missing ORDER BY n LIMIT 1 LOOP
		RAISE EXCEPTION 'argument "%" must not be null', r.arg USING ERRCODE = 'null_value_not_allowed';
	END LOOP;
	IF late NOT IN ('correct', 'error', 'drop') THEN
		RAISE EXCEPTION 'invalid value for argument "late": "%"', late USING ERRCODE = 'invalid_parameter_value',
			HINT = 'It is "correct", "error" or "drop".';
	ELSIF beyond_horizon NOT IN ('replay', 'error') THEN
		RAISE EXCEPTION 'invalid value for argument "beyond_horizon": "%"', beyond_horizon
			USING ERRCODE = 'invalid_parameter_value', HINT = 'It is "replay" or "error".';
	ELSIF horizon < interval '0' OR date_part('month', horizon) <> 0 OR date_part('year', horizon) <> 0 THEN
		RAISE EXCEPTION 'invalid value for argument "horizon": "%"', horizon USING ERRCODE = 'invalid_parameter_value',
			DETAIL = 'It must not be negative, nor count months or years (their length varies).';
	END IF;
	-- Under REPEATABLE READ or SERIALIZABLE the transaction's snapshot may
	-- predate readings that others commit before the trigger exists: those
	-- would never be run.
	IF current_setting('transaction_isolation') <> 'read committed' THEN
		RAISE EXCEPTION 'segpipe_maintain() must run at isolation level READ COMMITTED'
			USING ERRCODE = 'invalid_transaction_state',
			DETAIL = format('This transaction is %s: its snapshot may miss readings that other sessions commit before the trigger exists.',
			                upper(current_setting('transaction_isolation'))),
			HINT = 'Run it in a READ COMMITTED transaction (the default).';
	END IF;

	SELECT c.relkind, n.nspname, c.relname INTO kind, nsp, rel
	FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE c.oid = readings;
	IF kind NOT IN ('r', 'p') THEN
		RAISE EXCEPTION '"%" is not a table', rel USING ERRCODE = 'wrong_object_type',
			DETAIL = 'Only the rows inserted into a table can be maintained.';
	ELSIF (SELECT c.relispartition FROM pg_class AS c WHERE c.oid = readings) THEN
		RAISE EXCEPTION '"%" is a partition', rel USING ERRCODE = 'wrong_object_type',
			DETAIL = 'A partition''s rows are maintained with those of its partitioned table.',
			HINT = format('Maintain %s.', pg_partition_root(readings));
	END IF;
	IF results = '' THEN
		RAISE EXCEPTION 'results table name must not be empty' USING ERRCODE = 'invalid_name';
	ELSIF octet_length(ckpt_t) > 63 THEN
		RAISE EXCEPTION 'results table name "%" is too long', results USING ERRCODE = 'name_too_long',
			DETAIL = 'It can have at most 52 bytes, so that "_checkpoint" can be added to it.';
	END IF;

	-- the columns: the partition column NOT NULL (it is the state's primary key),
	-- ts timestamptz, value float8 or float8[] (pipeline_agg's two forms)
	SELECT format_type(a.atttypid, a.atttypmod),
	       CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation
	            THEN format(' COLLATE %I.%I', cn.nspname, co.collname) ELSE '' END,
	       a.attnotnull
	INTO part_typ, part_coll, not_null
	FROM pg_attribute AS a JOIN pg_type AS t ON t.oid = a.atttypid
	     LEFT JOIN pg_collation AS co ON co.oid = a.attcollation
	     LEFT JOIN pg_namespace AS cn ON cn.oid = co.collnamespace
	WHERE a.attrelid = readings AND a.attname = partition_by AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', partition_by, rel USING ERRCODE = 'undefined_column';
	END IF;
	IF NOT not_null THEN
		RAISE EXCEPTION 'column "%" of relation "%" must be NOT NULL', partition_by, rel
			USING ERRCODE = 'object_not_in_prerequisite_state',
			DETAIL = 'Each value of it has a row in the state table, keyed by it.',
			HINT = format('ALTER TABLE %s ALTER COLUMN %I SET NOT NULL', readings, partition_by);
	END IF;
	SELECT a.atttypid INTO col_type FROM pg_attribute AS a
	WHERE a.attrelid = readings AND a.attname = ts AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', ts, rel USING ERRCODE = 'undefined_column';
	ELSIF col_type <> 'timestamptz'::regtype THEN
		RAISE EXCEPTION 'column "%" of relation "%" is of type %, not timestamp with time zone', ts, rel, col_type
			USING ERRCODE = 'datatype_mismatch';
	END IF;
	SELECT a.atttypid INTO col_type FROM pg_attribute AS a
	WHERE a.attrelid = readings AND a.attname = value AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', value, rel USING ERRCODE = 'undefined_column';
	ELSIF col_type NOT IN ('float8'::regtype, 'float8[]'::regtype) THEN
		RAISE EXCEPTION 'column "%" of relation "%" is of type %, not double precision or double precision[]',
			value, rel, col_type USING ERRCODE = 'datatype_mismatch';
	END IF;
	v_type := CASE WHEN col_type = 'float8'::regtype THEN 'pg_catalog.float8' ELSE 'pg_catalog.float8[]' END;

	-- A virtual generated column (PostgreSQL 18) is NULL in a trigger's
	-- transition table: the trigger would see no value in it.  The key is
	-- text, so a column is taken as used by it when its name appears in it
	-- as a word (which may refuse a key that only mentions the name).
	FOR r IN SELECT a.attname FROM pg_attribute AS a
	         WHERE a.attrelid = readings AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = 'v'
	           AND (a.attname IN (partition_by, ts, value)
	                OR key ~* ('(^|[^[:alnum:]_$])' || regexp_replace(a.attname, '([^[:alnum:]_])', '\\\1', 'g')
	                           || '($|[^[:alnum:]_$])'))
	         ORDER BY a.attnum LIMIT 1 LOOP
		RAISE EXCEPTION 'column "%" of relation "%" is a virtual generated column', r.attname, rel
			USING ERRCODE = 'feature_not_supported',
			DETAIL = 'A trigger''s transition table holds no values of virtual generated columns, so the trigger would see none.',
			HINT = 'Make the column STORED, or write its expression where the column is used.';
	END LOOP;

	-- the key's type, without evaluating it (no row comes from LIMIT 0; the
	-- outer join gives one row whose type is the expression's); a query run as
	-- a cursor is one statement, whatever the text
	FOR r IN EXECUTE format('SELECT pg_typeof(k)::regtype::text AS t FROM (VALUES (1)) AS v '
	                        'LEFT JOIN (SELECT (%s) AS k FROM %s AS segpipe_new LIMIT 0) AS x ON true',
	                        key, readings) LOOP
		key_type := r.t;
	END LOOP;
	IF key_type = 'record' THEN
		RAISE EXCEPTION 'key of type record cannot be maintained'
			USING ERRCODE = 'datatype_mismatch',
			DETAIL = 'The results table keeps each emission''s key in a column, which cannot be of an anonymous row type.',
			HINT = 'Give the key a composite type: ROW(a, b)::my_type.';
	END IF;
	-- rows of one sensor with equal ts and value are run in the order of
	-- their keys: the type's default btree order, else its text (written
	-- under the fixed settings above)
	BEGIN
		EXECUTE format('SELECT 1 FROM (SELECT NULL::%s AS k) AS x ORDER BY x.k', key_type);
		key_ord := 'x.k';
	EXCEPTION WHEN undefined_function THEN
		key_ord := 'x.k::pg_catalog.text';
	END;

	-- the extension is relocatable: its schema is looked up now and written
	-- into the generated code, which names every segpipe object with it
	SELECT n.nspname INTO ext FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
	WHERE e.extname = 'segpipe';
	q_state := format('%I.%I', nsp, state_t);
	q_ckpt := format('%I.%I', nsp, ckpt_t);
	q_results := format('%I.%I', nsp, results);
	q_correct := format('%I.%I', nsp, correct_t);

	-- the key's type must compare (a default btree or hash operator class),
	-- and the value column must suit the spec's ports: one punctuation row
	-- without a key checks both, as the first insert would
	EXECUTE format('SELECT %1$I.pipeline_agg_row(''infinity''::pg_catalog.timestamptz, NULL::%2$s, ROW(NULL::%3$s), %4$L::%1$I.pipeline)',
	               ext, v_type, key_type, spec::text);
	-- Under "error" and "drop" the pipeline meets late rows itself, and does
	-- what its spec says: the two must agree.
	spec_late := coalesce(spec::text::jsonb ->> 'late', spec::text::jsonb -> 'config' ->> 'late', 'error');
	IF late <> 'correct' AND spec_late <> late THEN
		RAISE EXCEPTION 'late => ''%'' needs a spec whose "late" is "%"', late, late
			USING ERRCODE = 'invalid_parameter_value',
			DETAIL = format('The spec''s "late" is "%s".', spec_late),
			HINT = format('Write "late": "%s" in the spec (its full form), or use late => ''correct''.', late);
	END IF;

	-- the spec is the state column's default: a new sensor starts from it
	BEGIN
		EXECUTE format('CREATE TABLE %s (%I %s%s PRIMARY KEY, state %I.pipeline NOT NULL DEFAULT %L::%I.pipeline)',
		               q_state, partition_by, part_typ, part_coll, ext, spec::text, ext);
	EXCEPTION WHEN undefined_object THEN
		RAISE EXCEPTION 'column "%" of relation "%" cannot be maintained', partition_by, rel
			USING ERRCODE = 'datatype_mismatch',
			DETAIL = format('Its type %s has no default btree operator class; the state table is keyed by it.', part_typ);
	END;
	-- The state table's primary key decides which values are one sensor: its
	-- operator class's equality (citext's, ltree's, an enum's, text's for a
	-- domain over text) joins sensors everywhere.  It is written
	-- schema-qualified, and its operands are of its own types, so that no
	-- operator planted in any schema is a closer match.
	SELECT format('OPERATOR(%I.%s)', on_.nspname, o.oprname) INTO eq_op
	FROM pg_index AS i
	JOIN pg_opclass AS oc ON oc.oid = i.indclass[0]
	JOIN pg_amop AS a ON a.amopfamily = oc.opcfamily AND a.amopmethod = oc.opcmethod
	     AND a.amoplefttype = oc.opcintype AND a.amoprighttype = oc.opcintype AND a.amopstrategy = 3
	JOIN pg_operator AS o ON o.oid = a.amopopr
	JOIN pg_namespace AS on_ ON on_.oid = o.oprnamespace
	WHERE i.indrelid = q_state::regclass AND i.indisprimary;
	EXECUTE format('CREATE TABLE %s (%I %s%s NOT NULL, ts timestamptz NOT NULL, key %s, port integer NOT NULL, value float8)',
	               q_results, partition_by, part_typ, part_coll, key_type);
	EXECUTE format('CREATE INDEX ON %s (%I, ts)', q_results, partition_by);
	EXECUTE format('CREATE TABLE %s (%I %s%s NOT NULL, ts timestamptz NOT NULL, state %I.pipeline NOT NULL, PRIMARY KEY (%I, ts))',
	               q_ckpt, partition_by, part_typ, part_coll, ext, partition_by);
	EXECUTE format('COMMENT ON TABLE %s IS %L', q_state,
	               format('segpipe: the pipeline of each %s of %s, kept up to date on every change of it', partition_by, readings));
	EXECUTE format('COMMENT ON TABLE %s IS %L', q_results,
	               format('segpipe: the emissions of the pipelines in %s, kept equal to a run over %s', q_state, readings));
	EXECUTE format('COMMENT ON TABLE %s IS %L', q_ckpt,
	               format('segpipe: each pipeline of %s as it was before each of its segments: a change of %s runs its %s again from the last one before it', q_state, readings, partition_by));
	-- Corrections read one sensor's readings from a time on: an index on
	-- (partition column, ts) of the readings, unless one starts so already.
	IF NOT EXISTS (SELECT 1 FROM pg_index AS i
	               WHERE i.indrelid = readings AND i.indnkeyatts >= 2 AND i.indexprs IS NULL
	                 AND i.indkey[0] = (SELECT a.attnum FROM pg_attribute AS a WHERE a.attrelid = readings AND a.attname = partition_by)
	                 AND i.indkey[1] = (SELECT a.attnum FROM pg_attribute AS a WHERE a.attrelid = readings AND a.attname = ts)) THEN
		EXECUTE format('CREATE INDEX ON %s (%I, %I)', readings, partition_by, ts);
	END IF;

	-- One sensor's readings later than segpipe_from (all of them when NULL),
	-- leaving out the partitions in excluded (about to be truncated); run in
	-- the order ts, value, key.  The key expression is the user's: it sees
	-- the readings' columns first (the outer names are segpipe_*).
	rows_sql := format($q$SELECT segpipe_new.%1$I::pg_catalog.timestamptz AS ts, segpipe_new.%2$I::%3$s AS v, (
%4$s
) AS k
		FROM %5$s AS segpipe_new
		WHERE segpipe_new.%6$I %7$s b.segpipe_part
		  -- (the first bound reads the index by range; the second is exact,
		  -- for readings at -infinity too)
		  AND segpipe_new.%1$I >= coalesce(b.segpipe_from, '-infinity'::pg_catalog.timestamptz)
		  AND (b.segpipe_from IS NULL OR segpipe_new.%1$I > b.segpipe_from)
		  AND segpipe_new.tableoid <> ALL (excluded)$q$,
	                   ts, value, v_type, key, readings, partition_by, eq_op);
	run_cols := format('%1$I.pipeline_agg_checkpoints(x.ts, x.v, ROW(x.k), %%s ORDER BY x.ts, x.v, %2$s)', ext, key_ord);
	-- Checkpoints older than the horizon behind their sensor's progress go,
	-- but for the latest of them: a change inside the horizon replays from
	-- no further back than it.
	prune_sql := CASE WHEN horizon IS NULL THEN '' ELSE format($q$
	DELETE FROM %1$s AS c
	USING %2$s AS s
	WHERE s.%3$I %4$s c.%3$I AND s.%3$I %4$s ANY (touched)
	  AND c.ts < (SELECT max(c2.ts) FROM %1$s AS c2
	              WHERE c2.%3$I %4$s s.%3$I AND c2.ts < %5$I.pipeline_progress(s.state) - %6$L::pg_catalog.interval);$q$,
	               q_ckpt, q_state, partition_by, eq_op, ext, horizon) END;

	-- <results>_correct(parts, since, excluded): runs each sensor of parts
	-- again from its last checkpoint before the matching since, over its
	-- readings as they are now (but those in the excluded partitions), and
	-- replaces its state, its checkpoints and its results from there.
	correct_body := format($q$
BEGIN
	-- the states of these sensors, in their order: new ones inserted, the
	-- others locked (ON CONFLICT ... WHERE false locks without updating), so
	-- that two sessions never wait for each other in a cycle
	INSERT INTO %1$s AS s (%2$I)
	SELECT DISTINCT c.p%3$s FROM pg_catalog.unnest(parts) AS c(p) ORDER BY 1
	ON CONFLICT (%2$I) DO UPDATE SET state = s.state WHERE false;
%4$s
	-- what the run will replace: checkpoints and results after the last
	-- checkpoint before the change
	WITH c AS (SELECT c.p%3$s AS p, min(c.t) AS t FROM ROWS FROM (pg_catalog.unnest(parts), pg_catalog.unnest(since)) AS c(p, t) GROUP BY 1),
	b AS (SELECT c.p, (SELECT max(k.ts) FROM %5$s AS k WHERE k.%2$I %6$s c.p AND k.ts < c.t) AS f FROM c),
	d AS (DELETE FROM %5$s AS k USING b WHERE k.%2$I %6$s b.p AND (b.f IS NULL OR k.ts > b.f))
	DELETE FROM %7$s AS r USING b WHERE r.%2$I %6$s b.p AND (b.f IS NULL OR r.ts > b.f);
	-- the run from the last checkpoint left (or from the spec)
	WITH b AS (
		SELECT c.p AS segpipe_part, k.ts AS segpipe_from, k.state AS segpipe_base
		FROM (SELECT DISTINCT c.p%3$s AS p FROM pg_catalog.unnest(parts) AS c(p)) AS c
		LEFT JOIN LATERAL (SELECT k.ts, k.state FROM %5$s AS k WHERE k.%2$I %6$s c.p
		                   ORDER BY k.ts DESC LIMIT 1) AS k ON true),
	run AS (
		SELECT b.segpipe_part AS part, y.r
		FROM b CROSS JOIN LATERAL (SELECT %8$s AS r FROM (%9$s) AS x) AS y
		WHERE y.r IS NOT NULL),
	saved AS (
		UPDATE %10$s AS s SET state = run.r[1] FROM run WHERE s.%2$I %6$s run.part),
	kept AS (
		UPDATE %10$s AS s SET state = b.segpipe_base FROM b
		WHERE s.%2$I %6$s b.segpipe_part AND b.segpipe_base IS NOT NULL
		  AND NOT EXISTS (SELECT 1 FROM run WHERE run.part %6$s b.segpipe_part)),
	ck AS (
		INSERT INTO %5$s (%2$I, ts, state)
		SELECT run.part, %11$I.pipeline_progress(c.s), c.s FROM run, pg_catalog.unnest(run.r[2:]) AS c(s)
		-- a run from a checkpoint takes it again before its first new segment
		ON CONFLICT DO NOTHING)
	INSERT INTO %7$s (%2$I, ts, key, port, value)
	SELECT run.part, e.ts, e.key::%12$s, e.port, e.value FROM run, %11$I.emissions(run.r[1]) AS e;
	-- a sensor without readings has no state
	DELETE FROM %10$s AS s
	WHERE s.%2$I %6$s ANY (parts)
	  AND NOT EXISTS (SELECT 1 FROM %13$s AS segpipe_new
	                  WHERE segpipe_new.%14$I %6$s s.%2$I AND segpipe_new.tableoid <> ALL (excluded));
%15$s
END$q$,
		q_state, partition_by, part_coll,
		CASE WHEN beyond_horizon = 'error' AND horizon IS NOT NULL THEN format($q$
	-- a change older than the horizon is refused
	FOR bad IN SELECT c.p, c.t, %1$I.pipeline_progress(s.state) AS progress
	           FROM ROWS FROM (pg_catalog.unnest(parts), pg_catalog.unnest(since)) AS c(p, t) JOIN %2$s AS s ON s.%3$I %4$s c.p%5$s
	           WHERE c.t < %1$I.pipeline_progress(s.state) - %6$L::pg_catalog.interval
	           ORDER BY c.t LIMIT 1 LOOP
		RAISE EXCEPTION 'change at %% is older than the horizon of %%', bad.t, %7$L
			USING ERRCODE = 'data_exception',
			DETAIL = pg_catalog.format('%%s %%s has readings up to %%s; checkpoints are kept for %%s behind them.',
			                           %8$L, bad.p, bad.progress, %6$L),
			HINT = 'Choose beyond_horizon => ''replay'' at set-up to run the sensor again from its first reading.';
	END LOOP;$q$, ext, q_state, partition_by, eq_op, part_coll, horizon, q_results, partition_by) ELSE '' END,
		q_ckpt, eq_op, q_results, format(run_cols, 'coalesce(b.segpipe_base, ' || quote_literal(spec::text) || '::' || quote_ident(ext) || '.pipeline)'),
		rows_sql, q_state, ext, key_type, readings, partition_by, prune_sql);
	EXECUTE format($q$CREATE FUNCTION %s(parts %s[], since pg_catalog.timestamptz[], excluded pg_catalog.oid[])
	RETURNS void LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres' SET jit = off
	AS %L$q$, q_correct, part_typ, format('DECLARE bad record; touched %s[] := parts;', part_typ) || correct_body);
	EXECUTE format('COMMENT ON FUNCTION %s(%s[], pg_catalog.timestamptz[], pg_catalog.oid[]) IS %L', q_correct, part_typ,
	               format('segpipe: runs sensors of %s again from their last checkpoint before a change', q_results));
	-- <results>_correct(rel, leave_out): the same for the sensors of the rows
	-- of rel (a table of readings, or one that was), from the earliest of
	-- each; leave_out runs them without rel's rows (a partition about to be
	-- truncated)
	EXECUTE format($q$CREATE FUNCTION %1$s(rel pg_catalog.regclass, leave_out boolean)
	RETURNS void LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	AS %2$L$q$, q_correct, format($q$
DECLARE
	parts %1$s[];
	since pg_catalog.timestamptz[];
BEGIN
	EXECUTE pg_catalog.format('SELECT pg_catalog.array_agg(c.p), pg_catalog.array_agg(c.t) '
	                          'FROM (SELECT %%I AS p, pg_catalog.min(%%I) AS t FROM %%s GROUP BY 1) AS c',
	                          %2$L, %3$L, rel) INTO parts, since;
	IF parts IS NOT NULL THEN
		PERFORM %4$s(parts, since, CASE WHEN leave_out
		                                THEN ARRAY(SELECT t.relid::pg_catalog.oid FROM pg_catalog.pg_partition_tree(rel) AS t WHERE t.isleaf)
		                                ELSE '{}' END);
	END IF;
END$q$, part_typ, partition_by, ts, q_correct));
	EXECUTE format('COMMENT ON FUNCTION %s(pg_catalog.regclass, boolean) IS %L', q_correct,
	               format('segpipe: runs the sensors of a relation''s rows of %s again from their earliest', q_results));

	-- <results>_maintain(): the trigger.  An insert runs the sensors whose
	-- new readings all come after their progress on from their states (the
	-- common case: one statement's rows, nothing read from the readings);
	-- every other change runs the sensors it touches again from their last
	-- checkpoint before it.  A truncate of the readings clears everything; of
	-- a partition, runs its sensors again without its rows.
	trigger_body := format($q$
BEGIN
	IF TG_OP = 'INSERT' THEN
		INSERT INTO %1$s AS s (%2$I)
		SELECT DISTINCT segpipe_new.%2$I FROM segpipe_new ORDER BY 1
		ON CONFLICT (%2$I) DO UPDATE SET state = s.state WHERE false;
		-- one statement: the sensors whose new readings all come after their
		-- progress run on from their states; the others are listed, and
		-- corrected below
		WITH x AS (
			SELECT segpipe_new.%2$I AS part, segpipe_new.%4$I::pg_catalog.timestamptz AS ts,
			       segpipe_new.%5$I::%6$s AS v, (
%7$s
) AS k
			FROM segpipe_new AS segpipe_new),
		g AS (
			SELECT s.%2$I AS part, s.state, m.t, %3$s AS late
			FROM (SELECT x.part, pg_catalog.min(x.ts) AS t FROM x GROUP BY 1) AS m
			JOIN %1$s AS s ON s.%2$I %8$s m.part),
		run AS (
			SELECT g.part, %9$s AS r
			FROM g JOIN x ON x.part %8$s g.part
			WHERE g.late IS NOT TRUE
			GROUP BY g.part),
		saved AS (
			UPDATE %1$s AS s SET state = run.r[1] FROM run WHERE s.%2$I %8$s run.part),
		ck AS (
			INSERT INTO %10$s (%2$I, ts, state)
			SELECT run.part, %11$I.pipeline_progress(c.s), c.s FROM run, pg_catalog.unnest(run.r[2:]) AS c(s)
			-- a state that a correction left at a checkpoint takes it again
			-- before its next segment
			ON CONFLICT DO NOTHING),
		emitted AS (
			INSERT INTO %12$s (%2$I, ts, key, port, value)
			SELECT run.part, e.ts, e.key::%13$s, e.port, e.value FROM run, %11$I.emissions(run.r[1]) AS e)
		SELECT pg_catalog.array_agg(g.part) FILTER (WHERE g.late), pg_catalog.array_agg(g.t) FILTER (WHERE g.late),
		       pg_catalog.array_agg(g.part)
		INTO parts, since, touched FROM g;
		IF parts IS NOT NULL THEN
			PERFORM %15$s(parts, since, '{}');
		END IF;
%14$s
	ELSIF TG_OP = 'UPDATE' THEN
		SELECT pg_catalog.array_agg(c.p), pg_catalog.array_agg(c.t) INTO parts, since
		FROM (SELECT u.p, pg_catalog.min(u.t) AS t
		      FROM (SELECT segpipe_old.%2$I AS p, segpipe_old.%4$I AS t FROM segpipe_old
		            UNION ALL SELECT segpipe_new.%2$I, segpipe_new.%4$I FROM segpipe_new) AS u
		      GROUP BY 1) AS c;
		IF parts IS NOT NULL THEN
			PERFORM %15$s(parts, since, '{}');
		END IF;
	ELSIF TG_OP = 'DELETE' THEN
		SELECT pg_catalog.array_agg(c.p), pg_catalog.array_agg(c.t) INTO parts, since
		FROM (SELECT segpipe_old.%2$I AS p, pg_catalog.min(segpipe_old.%4$I) AS t FROM segpipe_old GROUP BY 1) AS c;
		IF parts IS NOT NULL THEN
			PERFORM %15$s(parts, since, '{}');
		END IF;
	ELSIF TG_OP = 'TRUNCATE' THEN
		-- A truncate of a partitioned table fires this on each partition
		-- too, after it fired on the table: what the table's truncate did
		-- covers them.  The relations done are noted for the statement.
		mark := pg_catalog.txid_current()::text || ' ' || pg_catalog.statement_timestamp()::text || ':';
		-- (one setting per results table: each has its own truncate trigger)
		done := coalesce(pg_catalog.current_setting('segpipe.truncated_' || pg_catalog.md5(TG_NAME), true), '');
		IF NOT pg_catalog.starts_with(done, mark) THEN
			done := mark;
		END IF;
		IF EXISTS (SELECT 1 FROM pg_catalog.pg_partition_ancestors(TG_RELID) AS a
		           WHERE pg_catalog.strpos(done, ',' || a.relid::pg_catalog.oid::text || ',') > 0) THEN
			RETURN NULL;
		END IF;
		IF TG_NARGS = 0 THEN
			DELETE FROM %12$s;
			DELETE FROM %10$s;
			DELETE FROM %1$s;
		ELSE
			PERFORM %15$s(TG_RELID::pg_catalog.regclass, true);
		END IF;
		PERFORM pg_catalog.set_config('segpipe.truncated_' || pg_catalog.md5(TG_NAME),
		                              done || ',' || TG_RELID::pg_catalog.oid::text || ',', true);
	END IF;
	RETURN NULL;
END$q$,
		q_state, partition_by,
		CASE WHEN late = 'correct' THEN format('m.t <= %I.pipeline_progress(s.state)', ext) ELSE 'false' END,
		ts, value, v_type, key, eq_op, format(run_cols, 'g.state'), q_ckpt, ext, q_results, key_type,
		prune_sql, q_correct);
	EXECUTE format($q$CREATE FUNCTION %I.%I() RETURNS trigger LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres' SET jit = off
	AS %L$q$, nsp, fn_t,
	               format('DECLARE parts %1$s[]; touched %1$s[]; since pg_catalog.timestamptz[]; mark text; done text;', part_typ)
	               || trigger_body);
	-- the comment marks it as segpipe's, of this version: the partition
	-- event trigger and segpipe_unmaintain() look for it
	EXECUTE format('COMMENT ON FUNCTION %I.%I() IS %L', nsp, fn_t,
	               format('segpipe: maintains %s from %s, corrected on every change', q_results, readings));

	-- the readings already there, run from the spec; then the triggers (the
	-- lock keeps out every change in between: CREATE TRIGGER takes it too)
	EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', readings);
	EXECUTE format('SELECT %s(pg_catalog.array_agg(d.p), pg_catalog.array_agg(''-infinity''::pg_catalog.timestamptz), ''{}'') '
	               'FROM (SELECT DISTINCT %I AS p FROM %s) AS d', q_correct, partition_by, readings);
	EXECUTE format('SELECT count(*) FROM %s', readings) INTO ran;
	FOR r IN SELECT t.relid, t.relid <> readings AS part FROM pg_partition_tree(readings) AS t
	         UNION ALL SELECT readings, false WHERE kind = 'r' LOOP
		EXECUTE format('SELECT %I.segpipe_maintain_triggers(%L::pg_catalog.regprocedure, %s::pg_catalog.oid, %L)',
		               ext, format('%I.%I()', nsp, fn_t), r.relid::oid, r.part);
	END LOOP;

	-- results so far, and what each open segment holds, stamped with the
	-- latest ts its pipeline processed
	EXECUTE format($q$CREATE VIEW %I.%I AS
	SELECT %3$I, ts, key, port, value, false AS provisional FROM %4$s
	UNION ALL
	SELECT s.%3$I, %6$I.pipeline_progress(s.state), p.key::%5$s, p.port, p.value, true
	FROM %7$s AS s, %6$I.pending(s.state) AS p$q$,
	               nsp, view_t, partition_by, q_results, key_type, ext, q_state);
	EXECUTE format('COMMENT ON VIEW %I.%I IS %L', nsp, view_t,
	               format('segpipe: the results in %s, then what each open segment holds (provisional)', q_results));
	RETURN ran;
END
$fn$;
COMMENT ON FUNCTION segpipe_maintain(regclass, text, text, text, text, pipeline, text, text, interval, text) IS
	'creates a results table, a state table, a checkpoint table and a real-time view, and triggers that keep them equal to a run over readings on every change; runs the readings already there and returns their number';

-- The triggers of a maintained results table on one relation of its
-- readings: statement triggers with transition tables (one event each, as
-- PostgreSQL requires of them), and one before TRUNCATE, whose rows are
-- gone after it.  On a partition they carry the argument 'partition'.
-- A statement fires the triggers of the table it names, not those of its
-- partitions: every relation of the tree has them, and rows are counted
-- once whichever way they arrive.
CREATE FUNCTION segpipe_maintain_triggers(maintain regprocedure, rel oid, is_partition boolean)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $fn$
DECLARE
	base text := left((SELECT p.proname FROM pg_proc AS p WHERE p.oid = maintain), -length('_maintain'));
	arg text := CASE WHEN is_partition THEN '''partition''' ELSE '' END;
BEGIN
	EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS segpipe_new '
	               'FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)', base || '_insert', rel::regclass, maintain::regproc, arg);
	EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %s REFERENCING OLD TABLE AS segpipe_old NEW TABLE AS segpipe_new '
	               'FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)', base || '_update', rel::regclass, maintain::regproc, arg);
	EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %s REFERENCING OLD TABLE AS segpipe_old '
	               'FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)', base || '_delete', rel::regclass, maintain::regproc, arg);
	EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %s '
	               'FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)', base || '_truncate', rel::regclass, maintain::regproc, arg);
END
$fn$;
COMMENT ON FUNCTION segpipe_maintain_triggers(regprocedure, oid, boolean) IS
	'creates the triggers of a maintained results table on one relation of its readings (used by segpipe_maintain and when partitions come and go)';

-- Partitions come and go by DDL, which no table trigger sees.  At the end of
-- every CREATE TABLE and ALTER TABLE this looks at the partition trees
-- involved: a relation that joined a maintained tree (created as a
-- partition, or attached with its rows) gets the triggers and its rows are
-- run; one that left it (detached) loses them and its rows stop counting.
-- It runs with the rights of whoever ran the DDL, as the table triggers do.
CREATE FUNCTION segpipe_partitions_changed()
	RETURNS event_trigger
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $fn$
DECLARE
	ext name;
	tree record;
	m record;
	p record;
BEGIN
	SELECT n.nspname INTO ext FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
	WHERE e.extname = 'segpipe';
	FOR tree IN SELECT DISTINCT coalesce(pg_partition_root(c.objid), c.objid) AS root
	            FROM pg_event_trigger_ddl_commands() AS c
	            WHERE c.classid = 'pg_class'::regclass AND c.object_type = 'table'
	LOOP
		-- the maintenance functions of this tree: their triggers on its root,
		-- made by this version (their comment says so)
		FOR m IN SELECT DISTINCT t.tgfoid AS fn, n.nspname AS nsp, left(pr.proname, -length('_maintain')) AS base
		         FROM pg_trigger AS t JOIN pg_proc AS pr ON pr.oid = t.tgfoid
		              JOIN pg_namespace AS n ON n.oid = pr.pronamespace
		         WHERE t.tgrelid = tree.root AND t.tgnargs = 0
		           AND obj_description(t.tgfoid, 'pg_proc') LIKE 'segpipe: maintains % from %, corrected on every change'
		LOOP
			-- left: relations with the partition triggers, out of the tree
			FOR p IN SELECT DISTINCT t.tgrelid AS relid, c.relkind
			         FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
			         WHERE t.tgfoid = m.fn AND t.tgnargs = 1 AND t.tgrelid <> tree.root
			           AND t.tgrelid NOT IN (SELECT x.relid FROM pg_partition_tree(tree.root) AS x)
			           AND coalesce(pg_partition_root(t.tgrelid), t.tgrelid) <> tree.root
			         ORDER BY 1
			LOOP
				-- (segpipe_triggers_dropped lets segpipe's own drops through)
				PERFORM set_config('segpipe.dropping_triggers', 'on', true);
				EXECUTE format('DROP TRIGGER %I ON %s', m.base || '_insert', p.relid::regclass);
				EXECUTE format('DROP TRIGGER %I ON %s', m.base || '_update', p.relid::regclass);
				EXECUTE format('DROP TRIGGER %I ON %s', m.base || '_delete', p.relid::regclass);
				EXECUTE format('DROP TRIGGER %I ON %s', m.base || '_truncate', p.relid::regclass);
				PERFORM set_config('segpipe.dropping_triggers', '', true);
				IF p.relkind = 'r' THEN
					EXECUTE format('SELECT %I.%I(%s::pg_catalog.regclass, false)', m.nsp, m.base || '_correct', p.relid::oid);
				END IF;
			END LOOP;
			-- joined: relations of the tree without the triggers
			FOR p IN SELECT t.relid, c.relkind FROM pg_partition_tree(tree.root) AS t
			         JOIN pg_class AS c ON c.oid = t.relid
			         WHERE t.relid <> tree.root
			           AND NOT EXISTS (SELECT 1 FROM pg_trigger AS g WHERE g.tgrelid = t.relid AND g.tgfoid = m.fn)
			         ORDER BY t.level, t.relid
			LOOP
				EXECUTE format('SELECT %I.segpipe_maintain_triggers(%s::pg_catalog.regprocedure, %s::pg_catalog.oid, true)',
				               ext, m.fn::oid, p.relid::oid);
				IF p.relkind = 'r' THEN
					EXECUTE format('SELECT %I.%I(%s::pg_catalog.regclass, false)', m.nsp, m.base || '_correct', p.relid::oid);
				END IF;
			END LOOP;
		END LOOP;
	END LOOP;
END
$fn$;
COMMENT ON FUNCTION segpipe_partitions_changed() IS
	'event trigger: gives partitions that join maintained readings their triggers and runs their rows; takes them from detached ones and runs their sensors without their rows';
CREATE EVENT TRIGGER segpipe_partitions ON ddl_command_end
	WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE')
	EXECUTE FUNCTION segpipe_partitions_changed();

-- DROP TABLE of a partition takes its rows away without a trigger firing,
-- and they are gone before anything could read them: the results would
-- silently keep them.  So dropping a table that carries the triggers of
-- maintained readings whose root is still there (a partition), or one of
-- those triggers, is refused; DETACH it first, and its rows leave the
-- results.  Dropping the readings table itself, or segpipe_unmaintain(),
-- goes through.
CREATE FUNCTION segpipe_triggers_dropped()
	RETURNS event_trigger
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $fn$
DECLARE
	d record;
	base text;
BEGIN
	IF coalesce(current_setting('segpipe.dropping_triggers', true), '') = 'on' THEN
		RETURN;
	END IF;
	FOR d IN SELECT o.address_names FROM pg_event_trigger_dropped_objects() AS o
	         WHERE o.object_type = 'trigger' AND o.address_names[3] ~ '_(insert|update|delete|truncate)$'
	LOOP
		base := regexp_replace(d.address_names[3], '_(insert|update|delete|truncate)$', '');
		IF EXISTS (SELECT 1 FROM pg_proc AS p JOIN pg_trigger AS t ON t.tgfoid = p.oid
		           WHERE p.proname = base || '_maintain' AND t.tgnargs = 0
		             AND obj_description(p.oid, 'pg_proc') LIKE 'segpipe: maintains % from %, corrected on every change') THEN
			RAISE EXCEPTION 'cannot drop trigger "%" on %.%: segpipe maintains results from it',
				d.address_names[3], quote_ident(d.address_names[1]), quote_ident(d.address_names[2])
				USING ERRCODE = 'dependent_objects_still_exist',
				DETAIL = 'Dropping a partition (or its triggers) of maintained readings would leave its rows in the results.',
				HINT = 'Detach the partition first (its rows then leave the results), or run segpipe_unmaintain().';
		END IF;
	END LOOP;
END
$fn$;
COMMENT ON FUNCTION segpipe_triggers_dropped() IS
	'event trigger: refuses to drop a partition of maintained readings, or one of the triggers segpipe_maintain() made on it';
CREATE EVENT TRIGGER segpipe_triggers_dropped ON sql_drop
	EXECUTE FUNCTION segpipe_triggers_dropped();

-- segpipe_unmaintain() also drops what 0.5.0 adds: the triggers on every
-- partition, the two <results>_correct functions and, with drop_tables, the
-- checkpoint table.  The index on the readings stays: it is theirs now.
CREATE OR REPLACE FUNCTION segpipe_unmaintain(results regclass, drop_tables boolean DEFAULT false)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $fn$
DECLARE
	nsp name;
	rel name;
	fn regprocedure;
	t record;
BEGIN
	IF results IS NULL OR drop_tables IS NULL THEN
		RAISE EXCEPTION 'argument "%" must not be null', CASE WHEN results IS NULL THEN 'results' ELSE 'drop_tables' END
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT n.nspname, c.relname INTO nsp, rel
	FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE c.oid = results;
	fn := to_regprocedure(format('%I.%I()', nsp, rel || '_maintain'));
	IF fn IS NULL OR NOT coalesce(starts_with(obj_description(fn, 'pg_proc'),
	                                          format('segpipe: maintains %I.%I from ', nsp, rel)), false) THEN
		RAISE EXCEPTION '"%" is not a results table maintained by segpipe', rel
			USING ERRCODE = 'undefined_object',
			DETAIL = format('There is no trigger function %I.%I() made by segpipe_maintain().', nsp, rel || '_maintain');
	END IF;
	PERFORM set_config('segpipe.dropping_triggers', 'on', true);
	FOR t IN SELECT tgrelid::regclass AS tab, tgname FROM pg_trigger WHERE tgfoid = fn ORDER BY tgrelid, tgname LOOP
		EXECUTE format('DROP TRIGGER %I ON %s', t.tgname, t.tab);
	END LOOP;
	PERFORM set_config('segpipe.dropping_triggers', '', true);
	EXECUTE format('DROP FUNCTION %s', fn);
	FOR t IN SELECT p.oid::regprocedure AS f FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
	         WHERE n.nspname = nsp AND p.proname = rel || '_correct'
	           AND starts_with(obj_description(p.oid, 'pg_proc'), 'segpipe: runs ') LOOP
		EXECUTE format('DROP FUNCTION %s', t.f);
	END LOOP;
	IF drop_tables THEN
		EXECUTE format('DROP VIEW IF EXISTS %I.%I', nsp, rel || '_realtime');
		EXECUTE format('DROP TABLE IF EXISTS %I.%I', nsp, rel || '_state');
		EXECUTE format('DROP TABLE IF EXISTS %I.%I', nsp, rel || '_checkpoint');
		EXECUTE format('DROP TABLE %s', results);
	END IF;
END
$fn$;
COMMENT ON FUNCTION segpipe_unmaintain(regclass, boolean) IS
	'drops the triggers and functions that segpipe_maintain() made for this results table; with drop_tables, also the results, state and checkpoint tables and the real-time view';

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
