/* segpipe--0.2.0--0.3.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.3.0'" to load this file. \quit

-- 0.3.0 has no install script of its own: CREATE EXTENSION segpipe runs
-- segpipe--0.2.0.sql and then this file, as pg_stat_statements does, so a
-- fresh install and an upgraded one run the same statements.

-- Maintained on insert: segpipe_maintain() sets up a statement-level AFTER
-- INSERT trigger that advances each sensor's stored pipeline with the new
-- rows and appends the emissions to a results table; segpipe_unmaintain()
-- takes it down.  PL/pgSQL: the work per statement is two SQL statements,
-- which a C trigger would have to issue through SPI all the same.  Names come
-- from the caller and are quoted with %I / %L; the key is an SQL expression,
-- code written by the caller, as a CHECK constraint's is.  Nothing here or in
-- what it generates is SECURITY DEFINER: the trigger runs as the inserting
-- role, which needs the privileges on the state and results tables.

CREATE FUNCTION segpipe_maintain(readings regclass, partition_by text, ts text, value text,
		key text, spec pipeline, results text)
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
	part_type text;     -- the partition column's type, typmod and collation
	col_type regtype;
	not_null boolean;
	key_type text;
	state_t text := results || '_state';
	view_t text := results || '_realtime';
	fn_t text := results || '_maintain';
	q_state text;
	q_results text;
	lock_sql text;
	run_sql text;
	r record;
	ran bigint;
BEGIN
	FOR r IN SELECT * FROM (VALUES (1, 'readings', readings IS NULL), (2, 'partition_by', partition_by IS NULL),
	                               (3, 'ts', ts IS NULL), (4, 'value', value IS NULL), (5, 'key', key IS NULL),
	                               (6, 'spec', spec IS NULL), (7, 'results', results IS NULL)) AS a(n, arg, missing)
	         WHERE missing ORDER BY n LIMIT 1 LOOP
		RAISE EXCEPTION 'argument "%" must not be null', r.arg USING ERRCODE = 'null_value_not_allowed';
	END LOOP;

	SELECT c.relkind, n.nspname, c.relname INTO kind, nsp, rel
	FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE c.oid = readings;
	IF kind NOT IN ('r', 'p') THEN
		RAISE EXCEPTION '"%" is not a table', rel USING ERRCODE = 'wrong_object_type',
			DETAIL = 'Only the rows inserted into a table can be maintained.';
	END IF;
	IF results = '' THEN
		RAISE EXCEPTION 'results table name must not be empty' USING ERRCODE = 'invalid_name';
	ELSIF octet_length(view_t) > 63 THEN
		RAISE EXCEPTION 'results table name "%" is too long', results USING ERRCODE = 'name_too_long',
			DETAIL = 'It can have at most 54 bytes, so that "_realtime" and "_maintain" can be added to it.';
	END IF;

	-- the columns: the partition column NOT NULL (it is the state's primary key),
	-- ts timestamptz, value float8 or float8[] (pipeline_agg's two forms)
	SELECT format_type(a.atttypid, a.atttypmod)
	       || CASE WHEN a.attcollation <> 0 AND a.attcollation <> t.typcollation
	               THEN format(' COLLATE %I.%I', cn.nspname, co.collname) ELSE '' END,
	       a.attnotnull
	INTO part_type, not_null
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

	-- the key's type, without evaluating it (no row comes from LIMIT 0; the
	-- outer join gives one row whose type is the expression's); a query run as
	-- a cursor is one statement, whatever the text
	FOR r IN EXECUTE format('SELECT pg_typeof(k)::regtype::text AS t FROM (VALUES (1)) AS v '
	                        'LEFT JOIN (SELECT (%s) AS k FROM %s AS segpipe_new LIMIT 0) AS x ON true',
	                        key, readings) LOOP
		key_type := r.t;
	END LOOP;

	-- the extension is relocatable: its schema is looked up now and written
	-- into the generated code, which names every segpipe object with it
	SELECT n.nspname INTO ext FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
	WHERE e.extname = 'segpipe';
	q_state := format('%I.%I', nsp, state_t);
	q_results := format('%I.%I', nsp, results);

	-- the spec is the state column's default: a new sensor starts from it
	EXECUTE format('CREATE TABLE %s (%I %s PRIMARY KEY, state %I.pipeline NOT NULL DEFAULT %L::%I.pipeline)',
	               q_state, partition_by, part_type, ext, spec::text, ext);
	EXECUTE format('CREATE TABLE %s (%I %s NOT NULL, ts timestamptz NOT NULL, key %s, port integer NOT NULL, value float8)',
	               q_results, partition_by, part_type, key_type);
	EXECUTE format('COMMENT ON TABLE %s IS %L', q_state,
	               format('segpipe: the pipeline of each %s of %s, advanced on every insert', partition_by, readings));
	EXECUTE format('COMMENT ON TABLE %s IS %L', q_results,
	               format('segpipe: the emissions of the pipelines in %s, appended on every insert into %s', q_state, readings));

	-- The trigger's two statements, written twice: once over the readings
	-- already there (in ts order, ties in their physical order), once over
	-- the transition table (ts order, then arrival order).
	FOR r IN SELECT * FROM (VALUES (1, format('%s AS segpipe_new', readings), 'ctid'),
	                               (2, 'segpipe_new', 'row_number() OVER ()')) AS v(n, src, arrival)
	         ORDER BY n LOOP
		-- 1. the states of the batch's sensors, in their order: new ones are
		-- inserted, existing ones locked (ON CONFLICT ... WHERE false locks
		-- the row without updating it), so two inserters never wait for each
		-- other in a cycle, and one waits for the other's commit when they
		-- share a sensor
		lock_sql := format('INSERT INTO %1$s AS s (%2$I) SELECT DISTINCT %2$I FROM %3$s ORDER BY 1 '
		                   'ON CONFLICT (%2$I) DO UPDATE SET state = s.state WHERE false',
		                   q_state, partition_by, r.src);
		-- 2. each state runs its rows and is saved; the emissions go to the
		-- results table
		run_sql := format($q$WITH batch AS (
	SELECT %2$I AS part, %3$I AS ts, %4$I AS v, (
%5$s
) AS k, %9$s AS n FROM %10$s),
run AS (
	SELECT s.%2$I AS part, %1$I.pipeline_agg(b.ts, b.v, b.k, s.state ORDER BY b.ts, b.n) AS state
	FROM batch AS b JOIN %6$s AS s ON s.%2$I = b.part
	GROUP BY s.%2$I),
saved AS (
	UPDATE %6$s AS s SET state = run.state FROM run WHERE s.%2$I = run.part)
INSERT INTO %7$s (%2$I, ts, key, port, value)
SELECT run.part, e.ts, e.key::%8$s, e.port, e.value FROM run, %1$I.emissions(run.state) AS e$q$,
		                  ext, partition_by, ts, value, key, q_state, q_results, key_type, r.arrival, r.src);
		IF r.n = 1 THEN
			-- no insert in between: this lock conflicts with INSERT (CREATE
			-- TRIGGER takes it too)
			EXECUTE format('LOCK TABLE %s IN SHARE ROW EXCLUSIVE MODE', readings);
			EXECUTE lock_sql;
			EXECUTE run_sql;
			EXECUTE format('SELECT count(*) FROM %s', readings) INTO ran;
		END IF;
	END LOOP;

	EXECUTE format($q$CREATE FUNCTION %I.%I() RETURNS trigger LANGUAGE plpgsql
	SET search_path = pg_catalog, pg_temp
	SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres' SET jit = off
	AS %L$q$, nsp, fn_t,
	               format(E'BEGIN\n%s;\n%s;\nRETURN NULL;\nEND', lock_sql, run_sql));
	EXECUTE format('COMMENT ON FUNCTION %I.%I() IS %L', nsp, fn_t,
	               format('segpipe: maintains %s from %s', q_results, readings));
	EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS segpipe_new '
	               'FOR EACH STATEMENT EXECUTE FUNCTION %I.%I()', fn_t, readings, nsp, fn_t);

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
COMMENT ON FUNCTION segpipe_maintain(regclass, text, text, text, text, pipeline, text) IS
	'creates a results table, a state table and a real-time view, and a trigger that keeps them up to date on every insert into readings; runs the readings already there and returns their number';

CREATE FUNCTION segpipe_unmaintain(results regclass, drop_tables boolean DEFAULT false)
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
	FOR t IN SELECT tgrelid::regclass AS tab, tgname FROM pg_trigger WHERE tgfoid = fn LOOP
		EXECUTE format('DROP TRIGGER %I ON %s', t.tgname, t.tab);
	END LOOP;
	EXECUTE format('DROP FUNCTION %s', fn);
	IF drop_tables THEN
		EXECUTE format('DROP VIEW IF EXISTS %I.%I', nsp, rel || '_realtime');
		EXECUTE format('DROP TABLE IF EXISTS %I.%I', nsp, rel || '_state');
		EXECUTE format('DROP TABLE %s', results);
	END IF;
END
$fn$;
COMMENT ON FUNCTION segpipe_unmaintain(regclass, boolean) IS
	'drops the trigger and trigger function that segpipe_maintain() made for this results table; with drop_tables, also the results and state tables and the real-time view';

-- Casts for clients: json and jsonb to pipeline, pipeline to json and jsonb.
-- json keeps its text as written, so json -> pipeline reads exactly what the
-- text cast reads, and pipeline -> json gives the exact text back.  jsonb
-- reorders object members, collapses duplicate keys and has no negative
-- zero: jsonb -> pipeline reads configurations only (a "state" member is
-- refused), and pipeline -> jsonb is for looking inside.  Values turn into
-- pipelines on assignment (INSERT, UPDATE of a pipeline column), and into
-- json or jsonb only when asked.  No SQL bodies: nothing is looked up by
-- name when the casts run.
CREATE FUNCTION pipeline_from_jsonb(jsonb) RETURNS pipeline
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
COMMENT ON FUNCTION pipeline_from_jsonb(jsonb) IS
	'the cast from jsonb: reads a configuration; a value with a "state" member is refused';

CREATE CAST (json AS pipeline) WITH INOUT AS ASSIGNMENT;
CREATE CAST (jsonb AS pipeline) WITH FUNCTION pipeline_from_jsonb(jsonb) AS ASSIGNMENT;
CREATE CAST (pipeline AS json) WITH INOUT;
CREATE CAST (pipeline AS jsonb) WITH INOUT;

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
