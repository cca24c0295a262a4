/* segpipe--0.3.0--0.4.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.4.0'" to load this file. \quit

-- 0.4.0: stored pipelines are read without looking up their key type or
-- parsing their keys (a C change, nothing here), and the code that
-- segpipe_maintain() writes can no longer be led to call anything but
-- segpipe's own aggregate and the partition column's own equality.

-- pipeline_agg with the key as a one-column row, ROW(key): the argument
-- types are fixed, so a call that gives them exactly matches this aggregate
-- and no other (an exact match wins over every candidate; two functions of
-- one schema cannot share the signature).  The maintained trigger calls it.
CREATE FUNCTION pipeline_agg_row_step(internal, timestamptz, float8, record, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_row_step' LANGUAGE C IMMUTABLE PARALLEL SAFE;
CREATE FUNCTION pipeline_agg_row_step(internal, timestamptz, float8[], record, pipeline)
	RETURNS internal
	AS 'MODULE_PATHNAME', 'pipeline_agg_row_step_array' LANGUAGE C IMMUTABLE PARALLEL SAFE;

CREATE AGGREGATE pipeline_agg_row(ts timestamptz, value float8, key_row record, spec pipeline) (
	SFUNC = pipeline_agg_row_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg_row(timestamptz, float8, record, pipeline) IS
	'pipeline_agg with the key passed as ROW(key) (its only column, compared under that column''s collation): the form generated code calls';

CREATE AGGREGATE pipeline_agg_row(ts timestamptz, value float8[], key_row record, spec pipeline) (
	SFUNC = pipeline_agg_row_step,
	STYPE = internal,
	FINALFUNC = pipeline_agg_final,
	FINALFUNC_MODIFY = READ_ONLY,
	PARALLEL = SAFE
);
COMMENT ON AGGREGATE pipeline_agg_row(timestamptz, float8[], record, pipeline) IS
	'pipeline_agg, one value per data port, with the key passed as ROW(key): the form generated code calls';

-- segpipe_maintain() as in 0.3.0, but what it writes calls pipeline_agg_row
-- with its argument types given exactly, joins sensors with the partition
-- column's own equality (schema-qualified), and set-up refuses a key or a
-- partition column it cannot maintain, before anything is created.
CREATE OR REPLACE FUNCTION segpipe_maintain(readings regclass, partition_by text, ts text, value text,
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
	v_type text;        -- the value column's type, as the aggregate takes it
	eq_op text;         -- OPERATOR(schema.name): the partition column's equality
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

	-- the extension is relocatable: its schema is looked up now and written
	-- into the generated code, which names every segpipe object with it
	SELECT n.nspname INTO ext FROM pg_extension AS e JOIN pg_namespace AS n ON n.oid = e.extnamespace
	WHERE e.extname = 'segpipe';
	q_state := format('%I.%I', nsp, state_t);
	q_results := format('%I.%I', nsp, results);

	-- the key's type must compare (a default btree or hash operator class),
	-- and the value column must suit the spec's ports: one punctuation row
	-- without a key checks both, as the first insert would
	EXECUTE format('SELECT %1$I.pipeline_agg_row(''infinity''::pg_catalog.timestamptz, NULL::%2$s, ROW(NULL::%3$s), %4$L::%1$I.pipeline)',
	               ext, v_type, key_type, spec::text);

	-- the spec is the state column's default: a new sensor starts from it
	BEGIN
		EXECUTE format('CREATE TABLE %s (%I %s PRIMARY KEY, state %I.pipeline NOT NULL DEFAULT %L::%I.pipeline)',
		               q_state, partition_by, part_type, ext, spec::text, ext);
	EXCEPTION WHEN undefined_object THEN
		RAISE EXCEPTION 'column "%" of relation "%" cannot be maintained', partition_by, rel
			USING ERRCODE = 'datatype_mismatch',
			DETAIL = format('Its type %s has no default btree operator class; the state table is keyed by it.', part_type);
	END;
	-- The state table's primary key decides which values are one sensor: its
	-- operator class's equality (citext's, ltree's, an enum's, text's for a
	-- domain over text) joins the batch to the states.  It is written
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
		-- results table.  pipeline_agg_row takes fixed argument types (the
		-- key as ROW(k)), each given exactly, so the call finds segpipe's
		-- own aggregate whatever else is named so in its schema.
		run_sql := format($q$WITH batch AS (
	SELECT %2$I AS part, %3$I::pg_catalog.timestamptz AS ts, %4$I::%11$s AS v, (
%5$s
) AS k, %9$s AS n FROM %10$s),
run AS (
	SELECT s.%2$I AS part, %1$I.pipeline_agg_row(b.ts, b.v, ROW(b.k), s.state ORDER BY b.ts, b.n) AS state
	FROM batch AS b JOIN %6$s AS s ON s.%2$I %12$s b.part
	GROUP BY s.%2$I),
saved AS (
	UPDATE %6$s AS s SET state = run.state FROM run WHERE s.%2$I %12$s run.part)
INSERT INTO %7$s (%2$I, ts, key, port, value)
SELECT run.part, e.ts, e.key::%8$s, e.port, e.value FROM run, %1$I.emissions(run.state) AS e$q$,
		                  ext, partition_by, ts, value, key, q_state, q_results, key_type, r.arrival, r.src,
		                  v_type, eq_op);
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


-- The trigger functions that 0.3.0's segpipe_maintain() wrote call
-- pipeline_agg and "=" as the search path finds them: they are rewritten
-- here to the form above, in place (same function, owner, settings and
-- trigger).  An extension script may not replace an object that is not its
-- own, so the body is set in the catalog directly; the script runs as a
-- superuser, also for a trusted install.  Only bodies that still have the
-- exact text 0.3.0 generated are touched.
DO $upgrade$
DECLARE
	f record;
	body text;
	q_state text;
	v_col text;
	v_type text;
	eq_op text;
BEGIN
	FOR f IN SELECT p.oid, p.prosrc, t.tgrelid
	         FROM pg_catalog.pg_proc AS p JOIN pg_catalog.pg_trigger AS t ON t.tgfoid = p.oid
	         WHERE pg_catalog.starts_with(pg_catalog.obj_description(p.oid, 'pg_proc'), 'segpipe: maintains ')
	           AND pg_catalog.strpos(p.prosrc, '.pipeline_agg(b.ts, b.v, b.k, s.state ORDER BY b.ts, b.n) AS state') > 0
	LOOP
		q_state := (pg_catalog.regexp_match(f.prosrc, '^BEGIN\nINSERT INTO (.+?) AS s \('))[1];
		v_col := (pg_catalog.regexp_match(f.prosrc, '\n\tSELECT .+? AS part, .+? AS ts, (.+?) AS v, \(\n'))[1];
		SELECT CASE WHEN a.atttypid = 'pg_catalog.float8'::pg_catalog.regtype THEN 'pg_catalog.float8'
		            ELSE 'pg_catalog.float8[]' END INTO v_type
		FROM pg_catalog.pg_attribute AS a
		WHERE a.attrelid = f.tgrelid AND a.attname = (pg_catalog.parse_ident(v_col))[1];
		SELECT pg_catalog.format('OPERATOR(%I.%s)', on_.nspname, o.oprname) INTO eq_op
		FROM pg_catalog.pg_index AS i
		JOIN pg_catalog.pg_opclass AS oc ON oc.oid = i.indclass[0]
		JOIN pg_catalog.pg_amop AS a ON a.amopfamily = oc.opcfamily AND a.amopmethod = oc.opcmethod
		     AND a.amoplefttype = oc.opcintype AND a.amoprighttype = oc.opcintype AND a.amopstrategy = 3
		JOIN pg_catalog.pg_operator AS o ON o.oid = a.amopopr
		JOIN pg_catalog.pg_namespace AS on_ ON on_.oid = o.oprnamespace
		WHERE i.indrelid = pg_catalog.to_regclass(q_state) AND i.indisprimary;
		IF q_state IS NULL OR v_type IS NULL OR eq_op IS NULL THEN
			RAISE WARNING 'trigger function % was not rewritten', f.oid::pg_catalog.regprocedure
				USING DETAIL = 'Its body, readings or state table are not as segpipe_maintain() made them.',
				HINT = 'Run segpipe_unmaintain() and segpipe_maintain() again for it.';
			CONTINUE;
		END IF;
		body := pg_catalog.replace(f.prosrc,
			'.pipeline_agg(b.ts, b.v, b.k, s.state ORDER BY b.ts, b.n) AS state',
			'.pipeline_agg_row(b.ts, b.v, ROW(b.k), s.state ORDER BY b.ts, b.n) AS state');
		body := pg_catalog.regexp_replace(body, '\n\tSELECT (.+?) AS part, (.+?) AS ts, (.+?) AS v, \(\n',
			E'\n\tSELECT \\1 AS part, \\2::pg_catalog.timestamptz AS ts, \\3::' || v_type || E' AS v, (\n');
		body := pg_catalog.replace(body, E' = b.part\n', ' ' || eq_op || E' b.part\n');
		body := pg_catalog.replace(body, ' = run.part)', ' ' || eq_op || ' run.part)');
		UPDATE pg_catalog.pg_proc SET prosrc = body WHERE oid = f.oid;
	END LOOP;
END
$upgrade$;
