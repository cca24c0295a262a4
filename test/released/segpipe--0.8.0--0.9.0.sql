-- segpipe 0.8.0 -> 0.9.0

-- complain if script is sourced in psql, rather than through ALTER EXTENSION
\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.9.0'" to load this file. \quit

-- ---- segpipe_maintain ----
-- Restated whole (an upgrade script replaces a function whole), with the
-- same signature.  0.9.0 changes the insert trigger's arguments only: they
-- are tagged 'segpipe insert 3', and the two statements that read the
-- states also return each state row's ctid and tableoid, so that the
-- trigger writes the new states in place of the rows it locked
-- (src/server/maintain_state.h).  Results tables set up before keep their
-- 'segpipe insert 1' or 'segpipe insert 2' arguments, which the trigger
-- still runs as before.
CREATE OR REPLACE FUNCTION segpipe_maintain(readings regclass, partition_by text, ts text, value text,
		key text, spec pipeline, results text,
		late text DEFAULT 'correct', horizon interval DEFAULT NULL,
		beyond_horizon text DEFAULT 'replay',
		watermark interval DEFAULT NULL, heartbeat_unit text DEFAULT NULL, heartbeat_zone text DEFAULT NULL,
		quiet interval DEFAULT NULL, schedule text DEFAULT NULL)
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
	hb_t text := results || '_heartbeat';
	close_t text := results || '_close';
	q_hb text;
	hb_cols text;       -- a heartbeat's row: the sensor's latest reading, at the heartbeat's ts, without a value
	hb_times text;      -- the heartbeats due of a sensor, as SQL
	job text;
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
	ELSIF beyond_horizon NOT IN ('replay', 'error', 'keep') THEN
		RAISE EXCEPTION 'invalid value for argument "beyond_horizon": "%"', beyond_horizon
			USING ERRCODE = 'invalid_parameter_value', HINT = 'It is "replay", "error" or "keep".';
	ELSIF beyond_horizon = 'keep' AND horizon IS NULL THEN
		RAISE EXCEPTION 'beyond_horizon => ''keep'' needs a horizon' USING ERRCODE = 'invalid_parameter_value',
			DETAIL = 'It leaves changes older than the horizon behind their sensor''s progress out of the results; without a horizon there are none.',
			HINT = 'Give horizon => ''…'' too, such as horizon => ''7 days''.';
	ELSIF horizon < interval '0' OR date_part('month', horizon) <> 0 OR date_part('year', horizon) <> 0 THEN
		RAISE EXCEPTION 'invalid value for argument "horizon": "%"', horizon USING ERRCODE = 'invalid_parameter_value',
			DETAIL = 'It must not be negative, nor count months or years (their length varies).';
	END IF;
	-- the watermark's options (watermark section at the end)
	IF watermark IS NULL AND num_nonnulls(heartbeat_unit, heartbeat_zone, quiet, schedule) > 0 THEN
		RAISE EXCEPTION 'argument "%" needs a watermark',
			CASE WHEN heartbeat_unit IS NOT NULL THEN 'heartbeat_unit' WHEN heartbeat_zone IS NOT NULL THEN 'heartbeat_zone'
			     WHEN quiet IS NOT NULL THEN 'quiet' ELSE 'schedule' END
			USING ERRCODE = 'invalid_parameter_value',
			HINT = 'Give watermark => how late readings may arrive, say interval ''1 hour''.';
	ELSIF watermark IS NOT NULL AND heartbeat_unit IS NULL AND quiet IS NULL THEN
		RAISE EXCEPTION 'a watermark needs heartbeats' USING ERRCODE = 'invalid_parameter_value',
			HINT = 'Give heartbeat_unit and heartbeat_zone (calendar heartbeats), quiet (heartbeats after silence), or both.';
	ELSIF (heartbeat_unit IS NULL) <> (heartbeat_zone IS NULL) THEN
		RAISE EXCEPTION 'arguments "heartbeat_unit" and "heartbeat_zone" go together' USING ERRCODE = 'invalid_parameter_value',
			DETAIL = 'Calendar heartbeats are the instants at which date_trunc(heartbeat_unit, ts, heartbeat_zone) changes.';
	ELSIF watermark < interval '0' OR date_part('month', watermark) <> 0 OR date_part('year', watermark) <> 0 THEN
		RAISE EXCEPTION 'invalid value for argument "watermark": "%"', watermark USING ERRCODE = 'invalid_parameter_value',
			DETAIL = 'It must not be negative, nor count months or years (their length varies).';
	ELSIF schedule IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_extension AS e WHERE e.extname = 'pg_cron') THEN
		RAISE EXCEPTION 'extension "pg_cron" is not installed in this database' USING ERRCODE = 'undefined_object',
			DETAIL = 'schedule => ... makes a pg_cron job that runs segpipe_close_silent().',
			HINT = format('Create extension pg_cron in this database (pg_cron runs its jobs in the one that cron.database_name names), '
			              'or leave schedule out and run segpipe_close_silent(%L) on a schedule of your own.', results);
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
	q_hb := format('%I.%I', nsp, hb_t);
	IF watermark IS NOT NULL THEN
		-- the unit and the zone, the quiet period: as heartbeats() and
		-- quiet_heartbeats() take them (they say what is wrong)
		IF heartbeat_unit IS NOT NULL THEN
			EXECUTE format('SELECT count(*) FROM %I.heartbeats($1, $2, $2, $3)', ext) USING heartbeat_unit, now(), heartbeat_zone;
		END IF;
		IF quiet IS NOT NULL THEN
			EXECUTE format('SELECT count(*) FROM %I.quiet_heartbeats($1, $1, $2)', ext) USING now(), quiet;
		END IF;
		-- a heartbeat's row, over which the key is evaluated: the columns of
		-- its sensor's latest reading (segpipe_l), but ts, the heartbeat's
		-- (segpipe_hb.segpipe_h), and the value, NULL
		SELECT string_agg(CASE a.attname WHEN ts THEN format('segpipe_hb.segpipe_h AS %I', a.attname)
		                                 WHEN value THEN format('NULL::%s AS %I', v_type, a.attname)
		                                 ELSE format('segpipe_l.%I', a.attname) END, ', ' ORDER BY a.attnum)
		INTO hb_cols
		FROM pg_attribute AS a WHERE a.attrelid = readings AND a.attnum > 0 AND NOT a.attisdropped;
		BEGIN
			EXECUTE format($q$SELECT (
%s
) FROM (SELECT %s FROM %s AS segpipe_l, (VALUES (NULL::pg_catalog.timestamptz)) AS segpipe_hb(segpipe_h) LIMIT 0) AS segpipe_new$q$,
			               key, hb_cols, readings);
		EXCEPTION WHEN OTHERS THEN
			RAISE EXCEPTION 'key cannot be evaluated for a heartbeat' USING ERRCODE = 'invalid_parameter_value',
				DETAIL = format('A heartbeat''s row has the columns of the readings, but no system columns: %s', SQLERRM);
		END;
	END IF;

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
	IF watermark IS NOT NULL THEN
		EXECUTE format('CREATE TABLE %s (%I %s%s NOT NULL, ts timestamptz NOT NULL, key %s, PRIMARY KEY (%I, ts))',
		               q_hb, partition_by, part_typ, part_coll, key_type, partition_by);
		EXECUTE format('COMMENT ON TABLE %s IS %L', q_hb,
		               format('segpipe: the heartbeats applied to the pipelines of %s: a run over %s runs them too, as punctuation rows', q_state, readings));
	END IF;
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
	-- with a watermark, the heartbeats applied after the same time too:
	-- punctuation rows (a NULL value sorts after a reading of their ts)
	IF watermark IS NOT NULL THEN
		rows_sql := rows_sql || format($q$
		UNION ALL
		SELECT h.ts, NULL::%3$s, h.key FROM %1$s AS h
		WHERE h.%2$I %4$s b.segpipe_part
		  AND h.ts >= coalesce(b.segpipe_from, '-infinity'::pg_catalog.timestamptz)
		  AND (b.segpipe_from IS NULL OR h.ts > b.segpipe_from)$q$,
		                               q_hb, partition_by, v_type, eq_op);
	END IF;
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
%4$s%16$s
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
		ON CONFLICT DO NOTHING),
	-- and drops it when no segment begins right after it any more (a late
	-- row joined the segment before it): what a run from the first row leaves
	stale AS (
		DELETE FROM %5$s AS k USING b
		WHERE k.%2$I %6$s b.segpipe_part AND k.ts = b.segpipe_from
		  AND NOT EXISTS (SELECT 1 FROM run, pg_catalog.unnest(run.r[2:]) AS c(s)
		                  WHERE run.part %6$s b.segpipe_part AND %11$I.pipeline_progress(c.s) = b.segpipe_from))
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
		CASE WHEN beyond_horizon = 'keep' THEN format($q$
	-- changes older than the horizon behind their sensor's progress are
	-- left out (beyond_horizon 'keep'): what they would change is final.
	-- A pair is one changed row, or a sensor's earliest; -infinity is a run
	-- from the first reading (set-up, segpipe_rebuild), never left out.
	SELECT pg_catalog.array_agg(c.p ORDER BY c.n), pg_catalog.array_agg(c.t ORDER BY c.n) INTO parts, since
	FROM ROWS FROM (pg_catalog.unnest(parts), pg_catalog.unnest(since)) WITH ORDINALITY AS c(p, t, n)
	JOIN %2$s AS s ON s.%3$I %4$s c.p%5$s
	WHERE c.t = '-infinity'::pg_catalog.timestamptz OR %1$I.pipeline_progress(s.state) IS NULL
	   OR c.t >= %1$I.pipeline_progress(s.state) - %6$L::pg_catalog.interval;
	IF parts IS NULL THEN
		RETURN;
	END IF;$q$, ext, q_state, partition_by, eq_op, part_coll, horizon)
		WHEN beyond_horizon = 'error' AND horizon IS NOT NULL THEN format($q$
	-- a change older than the horizon is refused
	FOR bad IN SELECT c.p, c.t, %1$I.pipeline_progress(s.state) AS progress
	           FROM ROWS FROM (pg_catalog.unnest(parts), pg_catalog.unnest(since)) AS c(p, t) JOIN %2$s AS s ON s.%3$I %4$s c.p%5$s
	           WHERE c.t < %1$I.pipeline_progress(s.state) - %6$L::pg_catalog.interval
	             AND c.t <> '-infinity'::pg_catalog.timestamptz
	           ORDER BY c.t LIMIT 1 LOOP
		RAISE EXCEPTION 'change at %% is older than the horizon of %%', bad.t, %7$L
			USING ERRCODE = 'data_exception',
			DETAIL = pg_catalog.format('%%s %%s has readings up to %%s; checkpoints are kept for %%s behind them.',
			                           %8$L, bad.p, bad.progress, %6$L),
			HINT = 'Choose beyond_horizon => ''replay'' at set-up to run the sensor again from its first reading.';
	END LOOP;$q$, ext, q_state, partition_by, eq_op, part_coll, horizon, q_results, partition_by) ELSE '' END,
		q_ckpt, eq_op, q_results, format(run_cols, 'coalesce(b.segpipe_base, ' || quote_literal(spec::text) || '::' || quote_ident(ext) || '.pipeline)'),
		rows_sql, q_state, ext, key_type, readings, partition_by, prune_sql,
		CASE WHEN watermark IS NULL THEN '' ELSE format($q$
	-- the heartbeats of a sensor without readings go (as its state does, below)
	DELETE FROM %1$s AS h
	WHERE h.%2$I %3$s ANY (parts)
	  AND NOT EXISTS (SELECT 1 FROM %4$s AS segpipe_new
	                  WHERE segpipe_new.%2$I %3$s h.%2$I AND segpipe_new.tableoid <> ALL (excluded));$q$,
		                                                       q_hb, partition_by, eq_op, readings) END);
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
%5$s
	IF parts IS NOT NULL THEN
		PERFORM %4$s(parts, since, CASE WHEN leave_out
		                                THEN ARRAY(SELECT t.relid::pg_catalog.oid FROM pg_catalog.pg_partition_tree(rel) AS t WHERE t.isleaf)
		                                ELSE '{}' END);
	END IF;
END$q$, part_typ, partition_by, ts, q_correct,
	CASE WHEN beyond_horizon = 'keep' THEN format($q$
	-- beyond_horizon 'keep': each sensor from its earliest row of rel
	-- within the horizon (sensors without one are left out), read with
	-- their states locked, in their order, so that no progress moves
	EXECUTE pg_catalog.format('SELECT 1 FROM %%5$s AS s WHERE s.%%1$I %%6$s ANY (ARRAY(SELECT DISTINCT r.%%1$I FROM %%3$s AS r)) '
	                          'ORDER BY s.%%1$I%%8$s FOR UPDATE', %1$L, %2$L, rel, %3$L, %4$L, %5$L, %6$L, %7$L);
	EXECUTE pg_catalog.format('SELECT pg_catalog.array_agg(c.p), pg_catalog.array_agg(c.t) '
	                          'FROM (SELECT r.%%1$I AS p, pg_catalog.min(r.%%2$I) FILTER (WHERE %%7$I.pipeline_progress(s.state) IS NULL '
	                          '        OR r.%%2$I >= %%7$I.pipeline_progress(s.state) - %%4$L::pg_catalog.interval) AS t '
	                          '      FROM %%3$s AS r LEFT JOIN %%5$s AS s ON s.%%1$I %%6$s r.%%1$I GROUP BY 1) AS c '
	                          'WHERE c.t IS NOT NULL', %1$L, %2$L, rel, %3$L, %4$L, %5$L, %6$L, %7$L) INTO parts, since;$q$,
	                              partition_by, ts, horizon, q_state, eq_op, ext, part_coll)
	ELSE format($q$
	EXECUTE pg_catalog.format('SELECT pg_catalog.array_agg(c.p), pg_catalog.array_agg(c.t) '
	                          'FROM (SELECT %%I AS p, pg_catalog.min(%%I) AS t FROM %%s GROUP BY 1) AS c',
	                          %1$L, %2$L, rel) INTO parts, since;$q$, partition_by, ts) END));
	EXECUTE format('COMMENT ON FUNCTION %s(pg_catalog.regclass, boolean) IS %L', q_correct,
	               format('segpipe: runs the sensors of a relation''s rows of %s again from their earliest', q_results));

	-- The insert trigger's SQL (segpipe_insert_trigger, which explains each
	-- statement): it streams the rows of an insert into the sensors' runs
	-- itself, and passes the statement's sensors and their states as arrays.
	ins_args := ARRAY[
		'segpipe insert 3',
		-- the partition column: the trigger reads the statement's sensors
		-- from the new rows, sorted as the state table's key sorts them
		partition_by,
		-- new ones inserted, the others locked (ON CONFLICT ... WHERE false
		-- locks without updating), in that order
		format('INSERT INTO %1$s AS s (%2$I) SELECT u.p FROM pg_catalog.unnest($1) WITH ORDINALITY AS u(p, i) ORDER BY u.i '
		       'ON CONFLICT (%2$I) DO UPDATE SET state = s.state WHERE false', q_state, partition_by),
		-- with each row's address: the trigger writes the new states in
		-- place of the rows it locked (src/server/maintain_state.h)
		format('SELECT u.i, s.state, s.%2$I, s.ctid, s.tableoid FROM pg_catalog.unnest($1) WITH ORDINALITY AS u(p, i) JOIN %1$s AS s ON s.%2$I %3$s u.p',
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
		-- (under beyond_horizon 'keep', every row of theirs, so that those
		-- older than the horizon are left out one by one)
		CASE WHEN beyond_horizon = 'keep'
		     THEN format('SELECT %1$s(pg_catalog.array_agg(segpipe_new.%2$I), pg_catalog.array_agg(segpipe_new.%3$I::pg_catalog.timestamptz), ''{}'') '
		                 'FROM segpipe_new AS segpipe_new WHERE segpipe_new.%2$I %4$s ANY ($1)', q_correct, partition_by, ts, eq_op)
		     ELSE format('SELECT %s($1, $2, ''{}'')', q_correct) END,
		CASE WHEN horizon IS NULL THEN '' ELSE replace(prune_sql, 'ANY (touched)', 'ANY ($1)') END,
		late,
		-- the states of the sensors that have one, locked and read in the
		-- statement's order by one statement (a nested loop over $1: each
		-- state is locked as its row is reached, and the trigger stops at
		-- the first sensor without one, whose rest the two statements above
		-- insert, lock and read)
		format('SELECT u.i, s.state, s.%2$I, s.ctid, s.tableoid FROM pg_catalog.unnest($1) WITH ORDINALITY AS u(p, i) '
		       'LEFT JOIN LATERAL (SELECT s.state, s.%2$I, s.ctid, s.tableoid FROM %1$s AS s WHERE s.%2$I %3$s u.p FOR UPDATE OF s) AS s ON true',
		       q_state, partition_by, eq_op)];

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
		FROM (SELECT u.p, %17$s AS t
		      FROM (SELECT segpipe_old.%2$I AS p, segpipe_old.%4$I AS t FROM segpipe_old
		            UNION ALL SELECT segpipe_new.%2$I, segpipe_new.%4$I FROM segpipe_new) AS u
		      %18$s) AS c;
		IF parts IS NOT NULL THEN
			PERFORM %15$s(parts, since, '{}');
		END IF;
	ELSIF TG_OP = 'DELETE' THEN
		SELECT pg_catalog.array_agg(c.p), pg_catalog.array_agg(c.t) INTO parts, since
		FROM (SELECT segpipe_old.%2$I AS p, %19$s AS t FROM segpipe_old %18$s) AS c;
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
		IF TG_NARGS = 0 THEN%16$s
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
		prune_sql, q_correct,
		CASE WHEN watermark IS NULL THEN '' ELSE format('
			DELETE FROM %s;', q_hb) END,
		-- under beyond_horizon 'keep' every changed row is passed, so that
		-- the correction leaves out those older than the horizon one by one
		CASE WHEN beyond_horizon = 'keep' THEN 'u.t' ELSE 'pg_catalog.min(u.t)' END,
		CASE WHEN beyond_horizon = 'keep' THEN '' ELSE 'GROUP BY 1' END,
		CASE WHEN beyond_horizon = 'keep' THEN format('segpipe_old.%I', ts) ELSE format('pg_catalog.min(segpipe_old.%I)', ts) END);
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

	-- <results>_close(at): with a watermark, applies to each sensor behind
	-- at - watermark the heartbeats due since its progress, as the insert
	-- trigger's sorted SQL applies rows, and records them (watermark section
	-- at the end)
	IF watermark IS NOT NULL THEN
		hb_times := concat_ws(' UNION ',
			CASE WHEN heartbeat_unit IS NOT NULL
			     THEN format('SELECT h.h FROM %I.heartbeats(%L::pg_catalog.text, g.segpipe_progress, segpipe_w, %L::pg_catalog.text) AS h(h)',
			                 ext, heartbeat_unit, heartbeat_zone) END,
			-- (quiet_heartbeats() stops before its until: the due ones end at
			-- segpipe_w included)
			CASE WHEN quiet IS NOT NULL
			     THEN format('SELECT q.q FROM %1$I.quiet_heartbeats(segpipe_l.%2$I::pg_catalog.timestamptz, segpipe_w + ''1 microsecond''::pg_catalog.interval, %3$L::pg_catalog.interval) AS q(q)',
			                 ext, ts, quiet) END);
		EXECUTE format($q$CREATE FUNCTION %1$s(segpipe_at pg_catalog.timestamptz)
	RETURNS bigint LANGUAGE plpgsql VOLATILE
	SET search_path = pg_catalog, pg_temp
	SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres' SET jit = off
	SET plan_cache_mode = force_generic_plan
	AS %2$L$q$, format('%I.%I', nsp, close_t), format($q$
DECLARE
	parts %1$s[];
	touched %1$s[];
	segpipe_w pg_catalog.timestamptz;
	segpipe_n bigint;
BEGIN
	IF segpipe_at IS NULL OR NOT pg_catalog.isfinite(segpipe_at) THEN
		RAISE EXCEPTION 'invalid time for heartbeats: %%', coalesce(segpipe_at::text, 'NULL')
			USING ERRCODE = 'invalid_parameter_value', DETAIL = 'It must be a finite timestamp.';
	END IF;
	segpipe_w := segpipe_at - %2$L::pg_catalog.interval;
	-- the sensors behind the watermark, locked in the order of the state
	-- table's key, as the triggers lock them (a sensor whose progress is
	-- infinite has no heartbeats)
	SELECT pg_catalog.array_agg(q.p ORDER BY q.p) INTO parts
	FROM (SELECT s.%3$I AS p FROM %4$s AS s
	      WHERE %5$I.pipeline_progress(s.state) < segpipe_w AND pg_catalog.isfinite(%5$I.pipeline_progress(s.state))
	      ORDER BY s.%3$I FOR UPDATE OF s) AS q;
	IF parts IS NULL THEN
		RETURN 0;
	END IF;
	touched := parts;
	-- each one's heartbeats due (after its progress, up to the watermark),
	-- each keyed by the key expression over its sensor's latest reading at
	-- the heartbeat's ts, without a value; run from the state as the insert
	-- trigger's sorted SQL runs rows, and recorded
	WITH g AS (
		SELECT s.%3$I AS segpipe_part, s.state AS segpipe_state, %5$I.pipeline_progress(s.state) AS segpipe_progress
		FROM %4$s AS s WHERE s.%3$I %6$s ANY (parts)),
	x AS (
		SELECT g.segpipe_part AS part, y.ts, NULL::%7$s AS v, y.k
		FROM g CROSS JOIN LATERAL (
			SELECT segpipe_new.%8$I AS ts, (
%9$s
) AS k
			FROM (SELECT %10$s
			      FROM (SELECT * FROM %11$s AS r WHERE r.%3$I %6$s g.segpipe_part
			            ORDER BY r.%8$I DESC, r.%12$I DESC LIMIT 1) AS segpipe_l,
			           LATERAL (%13$s) AS segpipe_hb(segpipe_h)
			      WHERE segpipe_hb.segpipe_h > g.segpipe_progress AND segpipe_hb.segpipe_h <= segpipe_w) AS segpipe_new) AS y),
	run AS (
		SELECT g.segpipe_part AS part, %14$s AS r
		FROM g JOIN x ON x.part %6$s g.segpipe_part
		GROUP BY g.segpipe_part),
	saved AS (
		UPDATE %4$s AS s SET state = %5$I.without_emissions(run.r[1]) FROM run WHERE s.%3$I %6$s run.part),
	ck AS (
		INSERT INTO %15$s (%3$I, ts, state)
		SELECT run.part, %5$I.pipeline_progress(c.s), c.s FROM run, pg_catalog.unnest(run.r[2:]) AS c(s)
		ON CONFLICT DO NOTHING),
	hb AS (
		INSERT INTO %16$s (%3$I, ts, key) SELECT x.part, x.ts, x.k FROM x),
	em AS (
		INSERT INTO %17$s (%3$I, ts, key, port, value)
		SELECT run.part, e.ts, e.key::%18$s, e.port, e.value FROM run, %5$I.emissions(run.r[1]) AS e)
	SELECT pg_catalog.count(*) INTO segpipe_n FROM x;
%19$s
	RETURN segpipe_n;
END$q$,
		               part_typ, watermark, partition_by, q_state, ext, eq_op, v_type, ts, key, hb_cols, readings, value,
		               hb_times, format(run_cols, 'g.segpipe_state'), q_ckpt, q_hb, q_results, key_type, prune_sql));
		EXECUTE format('COMMENT ON FUNCTION %I.%I(pg_catalog.timestamptz) IS %L', nsp, close_t,
		               format('segpipe: applies the heartbeats due at a time to the pipelines of %s behind the watermark of %s',
		                      q_state, watermark));
		IF schedule IS NOT NULL THEN
			job := format('segpipe_close_silent %s', q_results);
			IF octet_length(job) > 63 THEN
				job := 'segpipe_close_silent ' || md5(q_results);
			END IF;
			EXECUTE 'SELECT cron.schedule($1, $2, $3)'
			USING job, schedule, format('SELECT %I.segpipe_close_silent(%L::pg_catalog.regclass)', ext, q_results);
		END IF;
	END IF;
	RETURN ran;
END
$fn$;
COMMENT ON FUNCTION segpipe_maintain(regclass, text, text, text, text, pipeline, text, text, interval, text,
                                      interval, text, text, interval, text) IS
	'creates a results table, a state table, a checkpoint table and a real-time view, and triggers that keep them equal to a run over readings (and the heartbeats applied, with a watermark) on every change; runs the readings already there and returns their number';

