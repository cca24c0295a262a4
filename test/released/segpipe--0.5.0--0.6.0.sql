-- segpipe 0.5.0 -> 0.6.0

-- complain if script is sourced in psql, rather than through ALTER EXTENSION
\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.6.0'" to load this file. \quit

-- ---- maintained inserts ----
-- The insert trigger of a maintained results table is segpipe's own C
-- function (src/server/maintain_insert.c): it runs each sensor of an
-- INSERT's rows on from its state in one pass, and hands sensors whose rows
-- are out of order, or late, to SQL that sorts them or corrects them.  The
-- SQL it runs is written by segpipe_maintain() into the trigger's
-- arguments.  Results tables set up by 0.5.0 keep their PL/pgSQL insert
-- trigger, which still works; segpipe_unmaintain() and segpipe_maintain()
-- again give them this one.
CREATE FUNCTION segpipe_insert_trigger()
	RETURNS trigger
	AS 'MODULE_PATHNAME', 'segpipe_insert_trigger'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;
COMMENT ON FUNCTION segpipe_insert_trigger() IS
	'the insert trigger of the results tables that segpipe_maintain() makes (its arguments are the SQL it runs)';

-- A state table keeps each pipeline without the emissions of the run
-- that saved it: the same rows leave the same bytes, however they arrived.
CREATE FUNCTION without_emissions(p pipeline) RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_without_emissions'
	LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION without_emissions(pipeline) IS
	'the pipeline without the emissions of the run that made it (what a maintained state table keeps)';

CREATE OR REPLACE FUNCTION segpipe_maintain(readings regclass, partition_by text, ts text, value text,
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
	ins_args text[];    -- the insert trigger's arguments: the SQL it runs
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
		UPDATE %10$s AS s SET state = %11$I.without_emissions(run.r[1]) FROM run WHERE s.%2$I %6$s run.part),
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
	-- (generic plans: a custom plan for each call's arrays was planned again
	-- on every call, a third of a one-row correction's time)
	EXECUTE format($q$CREATE FUNCTION %s(parts %s[], since pg_catalog.timestamptz[], excluded pg_catalog.oid[])
	RETURNS void LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres' SET jit = off
	SET plan_cache_mode = force_generic_plan
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

	-- The insert trigger's SQL (segpipe_insert_trigger, which explains each
	-- statement): it streams the rows of an insert into the sensors' runs
	-- itself, and passes the statement's sensors and their states as arrays.
	ins_args := ARRAY[
		'segpipe insert 1',
		-- the partition column: the trigger reads the statement's sensors
		-- from the new rows, sorted as the state table's key sorts them
		partition_by,
		-- new ones inserted, the others locked (ON CONFLICT ... WHERE false
		-- locks without updating), in that order
		format('INSERT INTO %1$s AS s (%2$I) SELECT u.p FROM pg_catalog.unnest($1) WITH ORDINALITY AS u(p, i) ORDER BY u.i '
		       'ON CONFLICT (%2$I) DO UPDATE SET state = s.state WHERE false', q_state, partition_by),
		format('SELECT u.i, s.state, s.%2$I FROM pg_catalog.unnest($1) WITH ORDINALITY AS u(p, i) JOIN %1$s AS s ON s.%2$I %3$s u.p',
		       q_state, partition_by, eq_op),
		-- the rows: the key expression is the user's, and sees the readings'
		-- columns first
		format($q$SELECT segpipe_new.%1$I::%2$s%3$s, segpipe_new.%4$I::pg_catalog.timestamptz, segpipe_new.%5$I::%6$s, (
%7$s
) FROM segpipe_new AS segpipe_new$q$, partition_by, part_typ, part_coll, ts, value, v_type, key),
		format('UPDATE %1$s AS s SET state = u.st FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2)) AS u(p, st) WHERE s.%2$I %3$s u.p',
		       q_state, partition_by, eq_op),
		format('INSERT INTO %1$s (%2$I, ts, key, port, value) SELECT * FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3), pg_catalog.unnest($4), pg_catalog.unnest($5))',
		       q_results, partition_by),
		-- a state that a correction left at a checkpoint takes it again
		-- before its next segment
		format('INSERT INTO %1$s (%2$I, ts, state) SELECT * FROM ROWS FROM (pg_catalog.unnest($1), pg_catalog.unnest($2), pg_catalog.unnest($3)) ON CONFLICT DO NOTHING',
		       q_ckpt, partition_by),
		-- sensors whose new rows are out of order (but after their
		-- progress): run on from their states over their rows, sorted
		format($q$WITH x AS (
	SELECT segpipe_new.%2$I AS part, segpipe_new.%3$I::pg_catalog.timestamptz AS ts, segpipe_new.%4$I::%5$s AS v, (
%6$s
) AS k
	FROM segpipe_new AS segpipe_new
	WHERE segpipe_new.%2$I %7$s ANY ($1)),
g AS (SELECT s.%2$I AS part, s.state FROM %1$s AS s WHERE s.%2$I %7$s ANY ($1)),
run AS (
	SELECT g.part, %8$s AS r
	FROM g JOIN x ON x.part %7$s g.part
	GROUP BY g.part),
saved AS (
	UPDATE %1$s AS s SET state = %10$I.without_emissions(run.r[1]) FROM run WHERE s.%2$I %7$s run.part),
ck AS (
	INSERT INTO %9$s (%2$I, ts, state)
	SELECT run.part, %10$I.pipeline_progress(c.s), c.s FROM run, pg_catalog.unnest(run.r[2:]) AS c(s)
	ON CONFLICT DO NOTHING)
INSERT INTO %11$s (%2$I, ts, key, port, value)
SELECT run.part, e.ts, e.key::%12$s, e.port, e.value FROM run, %10$I.emissions(run.r[1]) AS e$q$,
		       q_state, partition_by, ts, value, v_type, key, eq_op, format(run_cols, 'g.state'), q_ckpt, ext,
		       q_results, key_type),
		-- late sensors: corrected from their last checkpoint before their
		-- earliest new row
		format('SELECT %s($1, $2, ''{}'')', q_correct),
		CASE WHEN horizon IS NULL THEN '' ELSE replace(prune_sql, 'ANY (touched)', 'ANY ($1)') END,
		late];

	-- <results>_maintain(): the trigger of every other change, which runs
	-- the sensors it touches again from their last checkpoint before it.  A
	-- truncate of the readings clears everything; of a partition, runs its
	-- sensors again without its rows.
	trigger_body := format($q$
BEGIN
	IF TG_OP = 'INSERT' THEN
		RAISE EXCEPTION 'inserts into %% are maintained by segpipe_insert_trigger()', TG_TABLE_NAME
			USING ERRCODE = 'triggered_action_exception';
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
	SET plan_cache_mode = force_generic_plan
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
	-- the insert trigger of the readings (its partitions copy it)
	EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS segpipe_new '
	               'FOR EACH STATEMENT EXECUTE FUNCTION %I.segpipe_insert_trigger(%s)',
	               results || '_insert', readings, ext,
	               (SELECT string_agg(quote_literal(a.a), ', ' ORDER BY a.n) FROM unnest(ins_args) WITH ORDINALITY AS a(a, n)));
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


-- The triggers on one relation of maintained readings: the insert trigger
-- is the one on the root of the readings (segpipe_insert_trigger with its
-- arguments, or 0.5.0's PL/pgSQL one), copied; the others call the
-- maintenance function.
CREATE OR REPLACE FUNCTION segpipe_maintain_triggers(maintain regprocedure, rel oid, is_partition boolean)
	RETURNS void
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $fn$
DECLARE
	base text := left((SELECT p.proname FROM pg_proc AS p WHERE p.oid = maintain), -length('_maintain'));
	arg text := CASE WHEN is_partition THEN '''partition''' ELSE '' END;
	ins record;
	b bytea;
	p integer;
	args text := '';
BEGIN
	IF NOT EXISTS (SELECT 1 FROM pg_trigger AS t WHERE t.tgrelid = rel AND t.tgname = base || '_insert') THEN
		SELECT t.tgfoid, t.tgnargs, t.tgargs INTO ins FROM pg_trigger AS t
		WHERE t.tgrelid = coalesce(pg_partition_root(rel), rel) AND t.tgname = base || '_insert';
		IF ins.tgfoid IS NULL OR ins.tgfoid = maintain THEN
			EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS segpipe_new '
			               'FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)', base || '_insert', rel::regclass, maintain::regproc, arg);
		ELSE
			-- the arguments: strings each ended by a zero byte
			b := ins.tgargs;
			FOR i IN 1 .. ins.tgnargs LOOP
				p := position('\x00'::bytea IN b);
				args := args || CASE WHEN i > 1 THEN ', ' ELSE '' END
				        || quote_literal(convert_from(substring(b FROM 1 FOR p - 1), getdatabaseencoding()));
				b := substring(b FROM p + 1);
			END LOOP;
			EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS segpipe_new '
			               'FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)', base || '_insert', rel::regclass, ins.tgfoid::regproc, args);
		END IF;
	END IF;
	EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %s REFERENCING OLD TABLE AS segpipe_old NEW TABLE AS segpipe_new '
	               'FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)', base || '_update', rel::regclass, maintain::regproc, arg);
	EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %s REFERENCING OLD TABLE AS segpipe_old '
	               'FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)', base || '_delete', rel::regclass, maintain::regproc, arg);
	EXECUTE format('CREATE TRIGGER %I BEFORE TRUNCATE ON %s '
	               'FOR EACH STATEMENT EXECUTE FUNCTION %s(%s)', base || '_truncate', rel::regclass, maintain::regproc, arg);
END
$fn$;

-- segpipe_triggers_dropped() matched the generated maintenance function by
-- name in any schema: dropping one schema's maintained readings was refused
-- while another schema had results of the same name.  A trigger counts as
-- one of a living results table when that table's function is in the
-- dropped table's schema, or elsewhere and not dropped by the same command
-- (a partition may live in another schema than its root).
CREATE OR REPLACE FUNCTION segpipe_triggers_dropped()
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
		IF EXISTS (SELECT 1 FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
		           JOIN pg_trigger AS t ON t.tgfoid = p.oid
		           WHERE p.proname = base || '_maintain' AND t.tgnargs = 0
		             AND obj_description(p.oid, 'pg_proc') LIKE 'segpipe: maintains % from %, corrected on every change'
		             AND (n.nspname = d.address_names[1]
		                  OR NOT EXISTS (SELECT 1 FROM pg_event_trigger_dropped_objects() AS f
		                                 WHERE f.object_type = 'function' AND f.address_names[2] = base || '_maintain'))) THEN
			RAISE EXCEPTION 'cannot drop trigger "%" on %.%: segpipe maintains results from it',
				d.address_names[3], quote_ident(d.address_names[1]), quote_ident(d.address_names[2])
				USING ERRCODE = 'dependent_objects_still_exist',
				DETAIL = 'Dropping a partition (or its triggers) of maintained readings would leave its rows in the results.',
				HINT = 'Detach the partition first (its rows then leave the results), or run segpipe_unmaintain().';
		END IF;
	END LOOP;
END
$fn$;

-- segpipe_unmaintain() also drops the insert triggers on
-- segpipe_insert_trigger: those named for the results table on the
-- relations that carry its other triggers.
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
	FOR t IN SELECT g.tgrelid::regclass AS tab, g.tgname FROM pg_trigger AS g
	         WHERE g.tgfoid = fn
	            OR (g.tgfoid = (SELECT p.oid FROM pg_proc AS p JOIN pg_extension AS e ON e.extnamespace = p.pronamespace
	                            WHERE e.extname = 'segpipe' AND p.proname = 'segpipe_insert_trigger') AND g.tgname = rel || '_insert'
	                AND g.tgrelid IN (SELECT h.tgrelid FROM pg_trigger AS h WHERE h.tgfoid = fn))
	         ORDER BY g.tgrelid, g.tgname LOOP
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


-- 0.6.0: each section below is one change.

-- segpipe_rebuild(): runs sensors of a maintained results table again from
-- their first reading (the generated results_correct from -infinity), so
-- that their states, checkpoints and results are made again from the
-- readings: the same bytes as maintenance left, since a state table keeps
-- pipelines without emissions.
CREATE FUNCTION segpipe_rebuild_sensors(results regclass, sensors text)
	RETURNS bigint
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $fn$
DECLARE
	nsp name;
	rel name;
	fn regprocedure;
	correct regprocedure;
	ran text;
	readings regclass;
	state regclass;
	part name;
	part_typ text;
	n bigint;
BEGIN
	IF results IS NULL THEN
		RAISE EXCEPTION 'argument "results" must not be null' USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT n_.nspname, c.relname INTO nsp, rel
	FROM pg_class AS c JOIN pg_namespace AS n_ ON n_.oid = c.relnamespace WHERE c.oid = results;
	fn := to_regprocedure(format('%I.%I()', nsp, rel || '_maintain'));
	IF fn IS NULL OR NOT coalesce(starts_with(obj_description(fn, 'pg_proc'),
	                                          format('segpipe: maintains %I.%I from ', nsp, rel)), false) THEN
		RAISE EXCEPTION '"%" is not a results table maintained by segpipe', rel
			USING ERRCODE = 'undefined_object',
			DETAIL = format('There is no trigger function %I.%I() made by segpipe_maintain().', nsp, rel || '_maintain');
	END IF;
	SELECT t.tgrelid INTO readings FROM pg_trigger AS t
	WHERE t.tgfoid = fn AND t.tgnargs = 0 AND t.tgname = rel || '_update';
	state := to_regclass(format('%I.%I', nsp, rel || '_state'));
	SELECT a.attname, format_type(a.atttypid, a.atttypmod) INTO part, part_typ
	FROM pg_index AS i JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
	WHERE i.indrelid = state AND i.indisprimary;
	correct := to_regprocedure(format('%I.%I(%s[], pg_catalog.timestamptz[], pg_catalog.oid[])', nsp, rel || '_correct', part_typ));
	IF readings IS NULL OR part IS NULL OR correct IS NULL THEN
		RAISE EXCEPTION '"%" is not a results table maintained by segpipe', rel
			USING ERRCODE = 'undefined_object',
			DETAIL = 'Its triggers, state table or generated functions are missing.';
	END IF;
	-- every sensor with readings or a state, or those given, in order
	EXECUTE format($q$SELECT %1$s(q.parts, pg_catalog.array_fill('-infinity'::pg_catalog.timestamptz, ARRAY[pg_catalog.cardinality(q.parts)]), '{}'),
	                         pg_catalog.cardinality(q.parts)
	                  FROM (SELECT pg_catalog.array_agg(u.p ORDER BY u.p) AS parts
	                        FROM (%2$s) AS u(p)) AS q
	                  WHERE q.parts IS NOT NULL$q$,
	               format('%I.%I', nsp, rel || '_correct'),
	               CASE WHEN sensors IS NULL
	                    THEN format('SELECT r.%1$I FROM %2$s AS r UNION SELECT s.%1$I FROM %3$s AS s', part, readings, state)
	                    ELSE format('SELECT DISTINCT x.p FROM pg_catalog.unnest(%L::%s[]) AS x(p)', sensors, part_typ) END)
	INTO ran, n;
	RETURN coalesce(n, 0);
END
$fn$;
COMMENT ON FUNCTION segpipe_rebuild_sensors(regclass, text) IS
	'segpipe_rebuild()''s work: the sensors as the text of an array of the partition column''s type, NULL for all';
-- (their bodies are bound when made, so they follow the extension's schema)
CREATE FUNCTION segpipe_rebuild(results regclass) RETURNS bigint
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	BEGIN ATOMIC
		SELECT segpipe_rebuild_sensors(results, NULL);
	END;
COMMENT ON FUNCTION segpipe_rebuild(regclass) IS
	'runs every sensor of a maintained results table again from its first reading; returns how many';
CREATE FUNCTION segpipe_rebuild(results regclass, sensors anyarray) RETURNS bigint
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $fn$
DECLARE
	ext name;
	n bigint;
BEGIN
	IF sensors IS NULL THEN
		RAISE EXCEPTION 'argument "sensors" must not be null' USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT s.nspname INTO ext FROM pg_extension AS e JOIN pg_namespace AS s ON s.oid = e.extnamespace
	WHERE e.extname = 'segpipe';
	EXECUTE format('SELECT %I.segpipe_rebuild_sensors($1, $2)', ext) INTO n USING results, sensors::text;
	RETURN n;
END
$fn$;
COMMENT ON FUNCTION segpipe_rebuild(regclass, anyarray) IS
	'runs the given sensors of a maintained results table again from their first reading; returns how many';

-- segpipe_maintained: one row per results table that segpipe_maintain()
-- made (found by its generated function's comment), with figures summed
-- over its state table.  Tables the caller may not read show no figures.
CREATE FUNCTION segpipe_maintained()
	RETURNS TABLE (results regclass, readings regclass, spec pipeline, insert_trigger text,
	               sensors bigint, rows numeric, late numeric, discarded numeric,
	               open_segments bigint, oldest_progress timestamptz, newest_progress timestamptz,
	               lag interval, last_emission timestamptz)
	LANGUAGE plpgsql STABLE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $fn$
DECLARE
	ext name;
	m record;
	state regclass;
	part name;
	d text;
BEGIN
	SELECT s.nspname INTO ext FROM pg_extension AS e JOIN pg_namespace AS s ON s.oid = e.extnamespace
	WHERE e.extname = 'segpipe';
	FOR m IN SELECT p.oid AS fn, n.nspname AS nsp, left(p.proname, -length('_maintain')) AS rel
	         FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace
	         WHERE p.proname LIKE '%\_maintain' AND p.prorettype = 'trigger'::regtype
	           AND obj_description(p.oid, 'pg_proc') LIKE 'segpipe: maintains % from %, corrected on every change'
	         ORDER BY 2, 3
	LOOP
		results := to_regclass(format('%I.%I', m.nsp, m.rel));
		state := to_regclass(format('%I.%I', m.nsp, m.rel || '_state'));
		CONTINUE WHEN results IS NULL OR state IS NULL;
		SELECT t.tgrelid INTO readings FROM pg_trigger AS t
		WHERE t.tgfoid = m.fn AND t.tgnargs = 0 AND t.tgname = m.rel || '_update';
		SELECT CASE WHEN t.tgfoid = m.fn THEN 'PL/pgSQL (0.5.0)' ELSE t.tgfoid::regproc::text END INTO insert_trigger
		FROM pg_trigger AS t WHERE t.tgrelid = readings AND t.tgname = m.rel || '_insert';
		-- the spec is the state column's default, a literal cast to pipeline:
		-- its text is read, nothing in it runs
		SELECT pg_get_expr(a.adbin, a.adrelid) INTO d
		FROM pg_attrdef AS a JOIN pg_attribute AS c ON c.attrelid = a.adrelid AND c.attnum = a.adnum
		WHERE a.adrelid = state AND c.attname = 'state';
		BEGIN
			spec := CASE WHEN d ~ '^''.*''::' THEN replace(substring(d FROM '^''(.*)''::'), '''''', '''') END;
		EXCEPTION WHEN data_exception THEN
			spec := NULL;       -- a default someone changed to what is not a spec
		END;
		SELECT a.attname INTO part FROM pg_index AS i JOIN pg_attribute AS a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
		WHERE i.indrelid = state AND i.indisprimary;
		sensors := NULL; rows := NULL; late := NULL; discarded := NULL; open_segments := NULL;
		oldest_progress := NULL; newest_progress := NULL; lag := NULL; last_emission := NULL;
		IF has_table_privilege(state, 'SELECT') AND has_table_privilege(results, 'SELECT') THEN
			EXECUTE format($q$SELECT count(*), sum(%1$I.pipeline_rows(s.state)), sum(%1$I.pipeline_late(s.state)),
			                         sum(%1$I.pipeline_discarded(s.state)),
			                         count(*) FILTER (WHERE %1$I.pipeline_key(s.state) IS NOT NULL),
			                         min(%1$I.pipeline_progress(s.state)), max(%1$I.pipeline_progress(s.state)),
			                         (SELECT max(x.t) FROM %2$s AS s2
			                          CROSS JOIN LATERAL (SELECT max(r.ts) AS t FROM %3$s AS r WHERE r.%4$I = s2.%4$I) AS x)
			                  FROM %2$s AS s$q$, ext, state, results, part)
			INTO sensors, rows, late, discarded, open_segments, oldest_progress, newest_progress, last_emission;
			lag := now() - oldest_progress;
		END IF;
		RETURN NEXT;
	END LOOP;
END
$fn$;
COMMENT ON FUNCTION segpipe_maintained() IS
	'the results tables segpipe_maintain() made, with figures summed over their state tables';
CREATE VIEW segpipe_maintained AS SELECT * FROM segpipe_maintained();
COMMENT ON VIEW segpipe_maintained IS
	'one row per maintained results table: readings, spec, insert trigger, sensors, rows, late, discarded, open segments, oldest and newest progress, lag, last emission';

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
CREATE FUNCTION pipeline_agg_ordered_step(internal, timestamptz, float8, anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_ordered_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION pipeline_agg_ordered_step(internal, timestamptz, float8[], anyelement)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_ordered_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION pipeline_agg_ordered_final(internal, pipeline)
	RETURNS pipeline
	AS 'MODULE_PATHNAME', 'pipeline_agg_ordered_final' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE pipeline_agg(spec pipeline ORDER BY ts timestamptz, value float8, key anyelement) (
	SFUNC = pipeline_agg_ordered_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_ordered_final,
	FINALFUNC_MODIFY = SHAREABLE,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg(pipeline ORDER BY timestamptz, float8, anyelement) IS
	'pipeline_agg over the rows in the WITHIN GROUP order, sorted by the aggregate itself without the spec: the spec is evaluated once';

CREATE AGGREGATE pipeline_agg(spec pipeline ORDER BY ts timestamptz, value float8[], key anyelement) (
	SFUNC = pipeline_agg_ordered_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_ordered_final,
	FINALFUNC_MODIFY = SHAREABLE,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg(pipeline ORDER BY timestamptz, float8[], anyelement) IS
	'pipeline_agg, one value per data port, over the rows in the WITHIN GROUP order, sorted by the aggregate itself: the spec is evaluated once';


-- 0.6.0: each section below is one feature's objects.

-- ---- vectors ----

-- Vector ports (docs/reference.md, "Vectors"): a pipeline whose data port
-- is a vector takes the row's array as the vector; boolean[] values feed
-- boolean and vector_boolean ports.  The boolean[] forms run the same C
-- functions as the float8[] ones, which read either element type.
CREATE FUNCTION segment_agg(value boolean[], key anyelement, spec pipeline) RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(boolean[], anyelement, pipeline) IS
	'segment_agg(value[], key, spec) with booleans: one per data port, or the vector of a vector_boolean port';

CREATE FUNCTION segment_agg(value boolean[], key anyelement, spec pipeline, close_at_end boolean)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(boolean[], anyelement, pipeline, boolean) IS
	'segment_agg(value boolean[], key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE FUNCTION segment_agg(ts timestamptz, value boolean[], key anyelement, spec pipeline)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_ts_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(timestamptz, boolean[], anyelement, pipeline) IS
	'segment_agg(value boolean[], key, spec) with the rows'' timestamps, for operators that know time';

CREATE FUNCTION segment_agg(ts timestamptz, value boolean[], key anyelement, spec pipeline,
							close_at_end boolean)
	RETURNS float8[]
	AS 'MODULE_PATHNAME', 'segment_agg_ts_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_agg(timestamptz, boolean[], anyelement, pipeline, boolean) IS
	'segment_agg(ts, value boolean[], key, spec); when close_at_end, the partition''s last row also closes the open segment';

CREATE FUNCTION segment_key(value boolean[], key anyelement) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_key(boolean[], anyelement) IS
	'on the row where the key changes, the key of the segment that closed; else NULL';

CREATE FUNCTION segment_key(value boolean[], key anyelement, close_at_end boolean) RETURNS anyelement
	AS 'MODULE_PATHNAME', 'segment_key_array'
	LANGUAGE C WINDOW IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION segment_key(boolean[], anyelement, boolean) IS
	'segment_key(value boolean[], key); when close_at_end, the partition''s last row also closes the open segment';

CREATE FUNCTION pipeline_agg_step(internal, timestamptz, boolean[], anyelement, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_step_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE pipeline_agg(ts timestamptz, value boolean[], key anyelement, spec pipeline) (
	SFUNC = pipeline_agg_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg(timestamptz, boolean[], anyelement, pipeline) IS
	'pipeline_agg with booleans: one per data port, or the vector of a vector_boolean port';

-- A vector output port's values: emissions() and pending() show them as
-- NULL, these as arrays.
CREATE FUNCTION vector_emissions(p pipeline,
		OUT ts timestamptz, OUT key text, OUT port integer, OUT value float8[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pipeline_vector_emissions' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 10;
COMMENT ON FUNCTION vector_emissions(pipeline) IS
	'the emissions of the vector output ports of the run that produced the pipeline, in order, as arrays';

CREATE FUNCTION vector_pending(p pipeline, OUT key text, OUT port integer, OUT value float8[])
	RETURNS SETOF record
	AS 'MODULE_PATHNAME', 'pipeline_vector_pending' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE
	ROWS 1;
COMMENT ON FUNCTION vector_pending(pipeline) IS
	'what the open segment has buffered, per vector output port, as arrays';
