-- Maintained results: set-up, the triggers, corrections, rebuild, close
-- and unmaintain.  Everything but set-up is C that builds what it runs from
-- the catalog row (src/server/maintain_*.c); set-up makes the tables, the
-- catalog row and the triggers, and generates no code.

-- ---- the machine: C functions that build what they run from the catalog ----
-- The triggers take the catalog row's id as their one argument ('partition'
-- a second on the partitions of the readings) and check that they fire on
-- that row's readings.
CREATE OR REPLACE FUNCTION segpipe_change_trigger()
	RETURNS trigger
	AS 'MODULE_PATHNAME', 'segpipe_change_trigger'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_change_trigger() IS
	'trigger of maintained readings: UPDATE, DELETE and TRUNCATE run the sensors they touch again from their last checkpoint before the change';

CREATE OR REPLACE FUNCTION segpipe_insert_trigger()
	RETURNS trigger
	AS 'MODULE_PATHNAME', 'segpipe_insert_trigger'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_insert_trigger() IS
	'trigger of maintained readings: runs an INSERT''s rows on from their sensors'' states, and corrects late ones';

CREATE OR REPLACE FUNCTION segpipe_maintain_triggers(results regclass, rel regclass)
	RETURNS void
	AS 'MODULE_PATHNAME', 'segpipe_maintain_triggers'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_maintain_triggers(regclass, regclass) IS
	'creates the triggers of maintained results on their readings or one of their partitions (used by segpipe_maintain)';

-- The one definition of the shapes of the tables set-up makes, which C
-- checks them against too (src/server/maintain_tables.c).
CREATE OR REPLACE FUNCTION segpipe_table_definition(kind text, sensor_from regclass, sensor name,
		key_type regtype, spec pipeline)
	RETURNS text
	AS 'MODULE_PATHNAME', 'segpipe_table_definition'
	LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION segpipe_table_definition(text, regclass, name, regtype, pipeline) IS
	'what goes between the parentheses of CREATE TABLE for the state, results, checkpoint or heartbeat table of a set-up, its sensor column as column sensor of sensor_from (used by segpipe_maintain)';

-- ---- segpipe_maintain: tables, a catalog row and triggers; no generated code ----
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
	col_type regtype;
	not_null boolean;
	key_type text;
	v_type text;        -- the value column's type, as the aggregate takes it
	spec_late text;
	state_t text := results || '_state';
	ckpt_t text := results || '_checkpoint';
	view_t text := results || '_realtime';
	hb_t text := results || '_heartbeat';
	q_hb text;
	hb_cols text;       -- a heartbeat's row: the sensor's latest reading, at the heartbeat's ts, without a value
	job text;
	q_state text;
	q_ckpt text;
	def_state text;     -- the tables' columns (segpipe_table_definition)
	def_results text;
	def_ckpt text;
	def_hb text;
	q_results text;
	idx regclass;       -- the index set-up made on the readings, if any
	dist_method text;   -- Citus: how the readings are distributed, and by which column
	dist_col name;
	dist_mode text;
	id integer;         -- the catalog's row
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
	-- Citus: results are kept on the shards of hash-distributed readings,
	-- each sensor on the node that holds its readings (sql/citus.sql)
	IF to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
		EXECUTE 'SELECT p.partmethod::text, pg_catalog.column_to_column_name(p.logicalrelid, p.partkey)::name '
		        'FROM pg_catalog.pg_dist_partition AS p WHERE p.logicalrelid = $1'
		INTO dist_method, dist_col USING readings;
	END IF;
	IF dist_method IS NOT NULL AND (dist_method <> 'h' OR dist_col IS NULL) THEN
		RAISE EXCEPTION '"%" is a Citus reference table or local table', rel USING ERRCODE = 'feature_not_supported',
			DETAIL = 'segpipe maintains results from hash-distributed tables (create_distributed_table) and from the tables of one server.';
	ELSIF dist_method IS NOT NULL AND dist_col <> partition_by THEN
		RAISE EXCEPTION '"%" is distributed by column "%", not by "%"', rel, dist_col, partition_by
			USING ERRCODE = 'feature_not_supported',
			DETAIL = 'A sensor''s readings, state and results are kept on one node: maintained results on a distributed table are partitioned by its distribution column.';
	ELSIF dist_method IS NOT NULL AND kind = 'p' THEN
		RAISE EXCEPTION '"%" is a partitioned distributed table', rel USING ERRCODE = 'feature_not_supported',
			DETAIL = 'segpipe maintains results from distributed tables without partitions.';
	END IF;
	-- (src/server/maintain_admin.c, refuse_row_security, says why)
	FOR r IN SELECT c.relname FROM pg_partition_tree(readings) AS t JOIN pg_class AS c ON c.oid = t.relid
	         WHERE c.relrowsecurity UNION ALL SELECT rel WHERE (SELECT c.relrowsecurity FROM pg_class AS c WHERE c.oid = readings)
	         LIMIT 1 LOOP
		RAISE EXCEPTION '"%" has row-level security enabled', r.relname USING ERRCODE = 'feature_not_supported',
			DETAIL = 'Corrections run every reading of a sensor again; under row-level security they would see only the rows the changing role may see, and the results would hold aggregates of rows a policy hides.',
			HINT = 'Put row-level security on the results table instead.';
	END LOOP;
	IF results = '' THEN
		RAISE EXCEPTION 'results table name must not be empty' USING ERRCODE = 'invalid_name';
	ELSIF octet_length(ckpt_t) > 63 THEN
		RAISE EXCEPTION 'results table name "%" is too long', results USING ERRCODE = 'name_too_long',
			DETAIL = 'It can have at most 52 bytes, so that "_checkpoint" can be added to it.';
	END IF;

	-- the columns: the partition column NOT NULL (it is the state's primary key),
	-- ts timestamptz, value float8 or float8[] (pipeline_agg's two forms)
	SELECT format_type(a.atttypid, a.atttypmod), a.attnotnull
	INTO part_typ, not_null
	FROM pg_attribute AS a
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
	-- the extension is relocatable: its schema is looked up now, by the
	-- extension's OID
	SELECT n.nspname INTO ext FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
	WHERE e.extname = 'segpipe';
	q_state := format('%I.%I', nsp, state_t);
	q_ckpt := format('%I.%I', nsp, ckpt_t);
	q_results := format('%I.%I', nsp, results);
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

	-- the tables' shapes are segpipe_table_definition()'s, which C checks them
	-- against too; the spec is the state column's default: a new sensor
	-- starts from it
	EXECUTE format('SELECT %1$I.segpipe_table_definition(''state'', $1, $2, NULL, $4), '
	               '%1$I.segpipe_table_definition(''results'', $1, $2, $3, NULL), '
	               '%1$I.segpipe_table_definition(''checkpoint'', $1, $2, NULL, NULL), '
	               '%1$I.segpipe_table_definition(''heartbeat'', $1, $2, $3, NULL)', ext)
	INTO def_state, def_results, def_ckpt, def_hb
	USING readings, partition_by::name, key_type::regtype, spec;
	BEGIN
		EXECUTE format('CREATE TABLE %s (%s)', q_state,
		               def_state);
	EXCEPTION WHEN undefined_object THEN
		RAISE EXCEPTION 'column "%" of relation "%" cannot be maintained', partition_by, rel
			USING ERRCODE = 'datatype_mismatch',
			DETAIL = format('Its type %s has no default btree operator class; the state table is keyed by it.', part_typ);
	END;
	EXECUTE format('CREATE TABLE %s (%s)', q_results,
	               def_results);
	EXECUTE format('CREATE INDEX ON %s (%I, ts)', q_results, partition_by);
	EXECUTE format('CREATE TABLE %s (%s)', q_ckpt,
	               def_ckpt);
	EXECUTE format('COMMENT ON TABLE %s IS %L', q_state,
	               format('segpipe: the pipeline of each %s of %s, kept up to date on every change of it', partition_by, readings));
	EXECUTE format('COMMENT ON TABLE %s IS %L', q_results,
	               format('segpipe: the emissions of the pipelines in %s, kept equal to a run over %s', q_state, readings));
	EXECUTE format('COMMENT ON TABLE %s IS %L', q_ckpt,
	               format('segpipe: each pipeline of %s as it was before each of its segments: a change of %s runs its %s again from the last one before it', q_state, readings, partition_by));
	IF watermark IS NOT NULL THEN
		EXECUTE format('CREATE TABLE %s (%s)', q_hb,
		               def_hb);
		EXECUTE format('COMMENT ON TABLE %s IS %L', q_hb,
		               format('segpipe: the heartbeats applied to the pipelines of %s: a run over %s runs them too, as punctuation rows', q_state, readings));
	END IF;
	-- Citus: the tables distributed by the same column, in the readings'
	-- co-location group, so that each shard group holds a sensor's readings,
	-- state, checkpoints, heartbeats and results on one node; one connection
	-- per node for all of it, so that each statement sees the tables the
	-- ones before made (they commit together)
	IF dist_method IS NOT NULL THEN
		dist_mode := current_setting('citus.multi_shard_modify_mode');
		PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
		FOR r IN SELECT t FROM unnest(ARRAY[q_state, q_results, q_ckpt]
		                              || CASE WHEN watermark IS NOT NULL THEN ARRAY[q_hb] ELSE '{}'::text[] END) AS t LOOP
			EXECUTE 'SELECT pg_catalog.create_distributed_table($1::pg_catalog.regclass, $2, colocate_with => $3)'
			USING r.t, partition_by, readings::text;
		END LOOP;
	END IF;
	-- Corrections read one sensor's readings from a time on: an index on
	-- (partition column, ts) of the readings, unless one starts so already.
	-- It is set-up's, and segpipe_unmaintain(drop_tables => true) drops it.
	IF NOT EXISTS (SELECT 1 FROM pg_index AS i
	               WHERE i.indrelid = readings AND i.indnkeyatts >= 2 AND i.indexprs IS NULL
	                 AND i.indkey[0] = (SELECT a.attnum FROM pg_attribute AS a WHERE a.attrelid = readings AND a.attname = partition_by)
	                 AND i.indkey[1] = (SELECT a.attnum FROM pg_attribute AS a WHERE a.attrelid = readings AND a.attname = ts)) THEN
		EXECUTE format('CREATE INDEX ON %s (%I, %I)', readings, partition_by, ts);
		SELECT max(i.indexrelid)::regclass INTO idx FROM pg_index AS i
		WHERE i.indrelid = readings AND i.indnkeyatts = 2 AND i.indexprs IS NULL
		  AND i.indkey[0] = (SELECT a.attnum FROM pg_attribute AS a WHERE a.attrelid = readings AND a.attname = partition_by)
		  AND i.indkey[1] = (SELECT a.attnum FROM pg_attribute AS a WHERE a.attrelid = readings AND a.attname = ts);
	END IF;

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
	IF schedule IS NOT NULL THEN
		job := format('segpipe_close_silent %s', q_results);
		IF octet_length(job) > 63 THEN
			job := 'segpipe_close_silent ' || md5(q_results);
		END IF;
	END IF;

	-- The catalog's row: what set-up was given and what it made, by OID.
	-- The triggers carry its id; everything that maintains the results is
	-- built from it (src/server/maintain_sql.c).
	EXECUTE format('SELECT %I.segpipe_catalog_register($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)', ext)
	INTO id
	USING q_results::regclass, readings, q_state::regclass, q_ckpt::regclass,
	      CASE WHEN watermark IS NOT NULL THEN q_hb::regclass END, format('%I.%I', nsp, view_t)::regclass, idx,
	      partition_by::name, ts::name, value::name, key, key_type::regtype, spec, late, horizon, beyond_horizon,
	      watermark, heartbeat_unit, heartbeat_zone, quiet, schedule, job;

	-- the triggers, then the readings already there, run from the spec (the
	-- lock keeps out every change in between: CREATE TRIGGER takes it too;
	-- on Citus, CREATE TRIGGER takes it on every shard, and the rebuild runs
	-- each shard group on its node, whose catalog row it makes first)
	IF dist_method IS NULL THEN
		EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', readings);
	END IF;
	FOR r IN SELECT readings AS relid, 0 AS level UNION ALL
	         SELECT t.relid, t.level FROM pg_partition_tree(readings) AS t WHERE t.relid <> readings
	         ORDER BY 2, 1 LOOP
		EXECUTE format('SELECT %I.segpipe_maintain_triggers($1, $2)', ext) USING q_results::regclass, r.relid::regclass;
	END LOOP;
	EXECUTE format('SELECT %I.segpipe_rebuild_sensors($1, NULL)', ext) USING q_results::regclass;
	EXECUTE format('SELECT count(*) FROM %s', readings) INTO ran;

	IF dist_mode IS NOT NULL THEN
		PERFORM set_config('citus.multi_shard_modify_mode', dist_mode, true);
	END IF;
	IF schedule IS NOT NULL THEN
		EXECUTE 'SELECT cron.schedule($1, $2, $3)'
		USING job, schedule, format('SELECT %I.segpipe_close_silent(%L::pg_catalog.regclass)', ext, q_results);
	END IF;
	RETURN ran;
END
$fn$;

COMMENT ON FUNCTION segpipe_maintain(regclass, text, text, text, text, pipeline, text, text, interval, text,
                                      interval, text, text, interval, text) IS
	'creates a results table, a state table, a checkpoint table and a real-time view, registers them in segpipe''s catalog, and makes triggers that keep them equal to a run over readings (and the heartbeats applied, with a watermark) on every change; runs the readings already there and returns their number';

CREATE OR REPLACE FUNCTION segpipe_unmaintain(results regclass, drop_tables boolean DEFAULT false)
	RETURNS void
	AS 'MODULE_PATHNAME', 'segpipe_unmaintain'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_unmaintain(regclass, boolean) IS
	'drops the triggers of a maintained results table, its pg_cron job and its catalog row; with drop_tables, also the results, state, checkpoint and heartbeat tables, the real-time view and the index set-up made on the readings';

CREATE OR REPLACE FUNCTION segpipe_rebuild_sensors(results regclass, sensors text)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'segpipe_rebuild_sensors'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_rebuild_sensors(regclass, text) IS
	'segpipe_rebuild()''s work: the sensors as the text of an array of the partition column''s type, NULL for all';

-- (their bodies are bound when made, so they follow the extension's schema)
CREATE OR REPLACE FUNCTION segpipe_rebuild(results regclass) RETURNS bigint
	LANGUAGE sql VOLATILE PARALLEL UNSAFE
	BEGIN ATOMIC
		SELECT segpipe_rebuild_sensors(results, NULL);
	END;

COMMENT ON FUNCTION segpipe_rebuild(regclass) IS
	'runs every sensor of a maintained results table again from its first reading; returns how many';

CREATE OR REPLACE FUNCTION segpipe_rebuild(results regclass, sensors anyarray) RETURNS bigint
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

CREATE OR REPLACE FUNCTION segpipe_close_silent(results regclass, at timestamptz DEFAULT now())
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'segpipe_close_silent'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_close_silent(regclass, timestamptz) IS
	'applies to each sensor of a results table maintained with a watermark, behind at minus the watermark, the heartbeats due since its progress; returns how many';
