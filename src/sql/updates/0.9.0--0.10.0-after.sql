-- Run by the update from 0.9.0 or before, after the definitions of src/sql/
-- (it needs the catalog and the C triggers).

-- ---- results tables set up before 0.10.0: into the catalog, onto the machine ----
-- Each set-up of 0.4.0 to 0.9.0 is found by the maintenance function it
-- generated (<results>_maintain(), with segpipe's comment) and taken only
-- when everything checks: the function is a trigger of the readings'
-- (<results>_update, or 0.4.0's insert trigger), and the readings, the
-- function and the results, state and checkpoint tables have one owner, so
-- that what is moved is that owner's own set-up.  What it was given is read
-- back from the generated code's text (nothing of it runs): the key
-- expression, the columns, the late-row policy and horizon from
-- <results>_correct (0.4.0: from the trigger), the watermark and its
-- heartbeats from <results>_close, the spec from the state column's
-- default (a constant).  Then the catalog's row is written, the old
-- triggers and generated functions go, and the new triggers come; results,
-- states, checkpoints and heartbeats stay as they are (0.4.0 had no
-- checkpoints: its table is made, empty, and corrections of its sensors
-- run from their first reading).  A set-up that does not check is left as
-- it was, with a warning.
DO $migrate$
DECLARE
	ext name := (SELECT n.nspname FROM pg_catalog.pg_extension AS e JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace
	             WHERE e.extname = 'segpipe');
	ins_fn regproc := (SELECT p.oid FROM pg_catalog.pg_proc AS p JOIN pg_catalog.pg_extension AS e ON e.extnamespace = p.pronamespace
	                   WHERE e.extname = 'segpipe' AND p.proname = 'segpipe_insert_trigger');
	m record;
	results oid; readings oid; state oid; ckpt oid; hb oid; view oid;
	correct_fn oid; close_fn oid;
	src text; csrc text; msrc text;
	key text; ts_col name; value_col name; part name; key_type oid; spec text; spec_p pipeline;
	late text; horizon interval; beyond text; watermark interval; unit text; zone text; quiet interval;
	job name; sched text;
	mm text[];
	i integer;
	tr record;
	v04 boolean;
	q_results text;
	id integer;
BEGIN
	FOR m IN SELECT p.oid AS fn, p.pronamespace AS nsp, n.nspname, left(p.proname, -length('_maintain')) AS base,
	                p.proowner, p.prosrc, obj_description(p.oid, 'pg_proc') NOT LIKE '%, corrected on every change' AS v04
	         FROM pg_catalog.pg_proc AS p JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace
	         WHERE p.proname LIKE '%\_maintain' AND p.prorettype = 'pg_catalog.trigger'::pg_catalog.regtype AND p.pronargs = 0
	           AND obj_description(p.oid, 'pg_proc') LIKE 'segpipe: maintains % from %'
	         ORDER BY n.nspname, p.proname
	LOOP
		v04 := m.v04;
		SELECT c.oid INTO results FROM pg_catalog.pg_class AS c WHERE c.relnamespace = m.nsp AND c.relname = m.base AND c.relkind = 'r';
		SELECT c.oid INTO state FROM pg_catalog.pg_class AS c WHERE c.relnamespace = m.nsp AND c.relname = m.base || '_state' AND c.relkind = 'r';
		SELECT c.oid INTO ckpt FROM pg_catalog.pg_class AS c WHERE c.relnamespace = m.nsp AND c.relname = m.base || '_checkpoint' AND c.relkind = 'r';
		SELECT c.oid INTO hb FROM pg_catalog.pg_class AS c WHERE c.relnamespace = m.nsp AND c.relname = m.base || '_heartbeat' AND c.relkind = 'r';
		SELECT c.oid INTO view FROM pg_catalog.pg_class AS c WHERE c.relnamespace = m.nsp AND c.relname = m.base || '_realtime' AND c.relkind = 'v';
		SELECT t.tgrelid INTO readings FROM pg_catalog.pg_trigger AS t
		WHERE t.tgfoid = m.fn AND t.tgnargs = 0 AND t.tgname = CASE WHEN v04 THEN m.base || '_maintain' ELSE m.base || '_update' END;
		SELECT p.oid, p.prosrc INTO correct_fn, src FROM pg_catalog.pg_proc AS p
		WHERE p.pronamespace = m.nsp AND p.proname = m.base || '_correct' AND p.pronargs = 3;
		SELECT p.oid, p.prosrc INTO close_fn, csrc FROM pg_catalog.pg_proc AS p
		WHERE p.pronamespace = m.nsp AND p.proname = m.base || '_close' AND p.pronargs = 1;
		IF results IS NULL OR state IS NULL OR readings IS NULL OR (NOT v04 AND (ckpt IS NULL OR src IS NULL))
		   OR EXISTS (SELECT 1 FROM pg_catalog.pg_class AS c WHERE c.oid IN (readings, results, state, ckpt, hb) AND c.relowner <> m.proowner) THEN
			RAISE WARNING 'results table "%"."%" is left on the machinery that set it up', m.nspname, m.base
				USING DETAIL = 'Its generated function, triggers or tables are not as segpipe_maintain() made them, or have different owners.',
				      HINT = 'Run segpipe_maintain() again for it once its owner has checked what it is.';
			CONTINUE;
		END IF;
		IF v04 THEN
			src := m.prosrc;
		END IF;
		-- the key expression: written alone between "AS v, (" and ") AS k"
		i := strpos(src, E' AS v, (\n');
		key := substr(src, i + length(E' AS v, (\n'));
		key := left(key, strpos(key, E'\n) AS k') - 1);
		mm := regexp_match(src, '(?:SELECT segpipe_new\.|SELECT [^,]+ AS part, )((?:"(?:[^"]|"")+")|[^:]+)::pg_catalog\.timestamptz AS ts, '
		                        '(?:segpipe_new\.)?((?:"(?:[^"]|"")+")|[^:]+)::pg_catalog\.float8(?:\[\])? AS v, \(');
		ts_col := (parse_ident(mm[1]))[1];
		value_col := (parse_ident(mm[2]))[1];
		SELECT a.attname INTO part FROM pg_catalog.pg_index AS x JOIN pg_catalog.pg_attribute AS a ON a.attrelid = x.indrelid AND a.attnum = x.indkey[0]
		WHERE x.indrelid = state AND x.indisprimary;
		SELECT a.atttypid INTO key_type FROM pg_catalog.pg_attribute AS a WHERE a.attrelid = results AND a.attname = 'key' AND NOT a.attisdropped;
		-- the spec: the state column's default, a constant
		SELECT CASE WHEN d.adbin::text LIKE '{CONST %' THEN pg_catalog.pg_get_expr(d.adbin, d.adrelid) END INTO spec
		FROM pg_catalog.pg_attrdef AS d JOIN pg_catalog.pg_attribute AS a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
		WHERE d.adrelid = state AND a.attname = 'state';
		spec := replace((regexp_match(spec, '^''(.*)''::[^'']+$'))[1], '''''', '''');
		IF key IS NULL OR key = '' OR ts_col IS NULL OR value_col IS NULL OR part IS NULL OR key_type IS NULL OR spec IS NULL THEN
			RAISE WARNING 'results table "%"."%" is left on the machinery that set it up', m.nspname, m.base
				USING DETAIL = 'What it was set up with cannot be read back from its generated code.',
				      HINT = 'Run segpipe_unmaintain() and segpipe_maintain() again for it.';
			CONTINUE;
		END IF;
		spec_p := spec::pipeline;
		-- the late-row policy: the insert trigger's (0.6.0 on), else the
		-- correction the trigger ran (0.5.0), else the spec's (0.4.0)
		SELECT CASE WHEN t.tgfoid = ins_fn THEN split_part(encode(t.tgargs, 'escape'), '\000', 12) END INTO late
		FROM pg_catalog.pg_trigger AS t WHERE t.tgrelid = readings AND t.tgname = m.base || '_insert';
		IF late IS NULL OR late = '' THEN
			late := CASE WHEN NOT v04 AND m.prosrc LIKE '%m.t <= %' THEN 'correct'
			             ELSE coalesce(spec::jsonb ->> 'late', spec::jsonb -> 'config' ->> 'late', 'error') END;
		END IF;
		horizon := (regexp_match(src, 'pipeline_progress\(s\.state\) - ''([^'']*)''::pg_catalog\.interval'))[1]::interval;
		beyond := CASE WHEN src LIKE '%is older than the horizon of%' THEN 'error'
		               WHEN src LIKE '%(beyond_horizon ''keep'')%' THEN 'keep' ELSE 'replay' END;
		watermark := NULL; unit := NULL; zone := NULL; quiet := NULL; job := NULL; sched := NULL;
		IF close_fn IS NOT NULL AND hb IS NOT NULL THEN
			watermark := (regexp_match(csrc, 'segpipe_w := segpipe_at - ''([^'']*)''::pg_catalog\.interval'))[1]::interval;
			mm := regexp_match(csrc, 'heartbeats\(''([^'']*)''::pg_catalog\.text, g\.segpipe_progress, segpipe_w, ''([^'']*)''::pg_catalog\.text\)');
			unit := mm[1];
			zone := mm[2];
			quiet := (regexp_match(csrc, 'segpipe_w \+ ''1 microsecond''::pg_catalog\.interval, ''([^'']*)''::pg_catalog\.interval\)'))[1]::interval;
		ELSE
			hb := NULL;
		END IF;
		q_results := format('%I.%I', m.nspname, m.base);
		IF EXISTS (SELECT 1 FROM pg_catalog.pg_extension AS e WHERE e.extname = 'pg_cron') THEN
			EXECUTE format('SELECT j.jobname, j.schedule FROM %I.job AS j WHERE j.command = $1 ORDER BY j.jobid LIMIT 1',
			               (SELECT n.nspname FROM pg_catalog.pg_extension AS e JOIN pg_catalog.pg_namespace AS n ON n.oid = e.extnamespace
			                WHERE e.extname = 'pg_cron'))
			INTO job, sched USING format('SELECT %I.segpipe_close_silent(%L::pg_catalog.regclass)', ext, q_results);
		END IF;
		IF v04 THEN
			-- 0.4.0 kept no checkpoints: the table set-up makes, empty, its sensor
			-- column as the state table's
			EXECUTE format('CREATE TABLE %I.%I (%s)', m.nspname, m.base || '_checkpoint',
			               segpipe_table_definition('checkpoint', state::regclass, part, NULL, NULL));
			EXECUTE format('ALTER TABLE %I.%I OWNER TO %I', m.nspname, m.base || '_checkpoint', (SELECT r.rolname FROM pg_catalog.pg_roles AS r WHERE r.oid = m.proowner));
			ckpt := format('%I.%I', m.nspname, m.base || '_checkpoint')::regclass;
			-- made by this script, so a member of the extension: it is the
			-- readings owner's, as the tables of a set-up are
			EXECUTE format('ALTER EXTENSION segpipe DROP TABLE %s', ckpt::regclass);
		END IF;

		id := segpipe_catalog_register(results::regclass, readings::regclass, state::regclass, ckpt::regclass, hb::regclass,
		                               view::regclass, NULL, part, ts_col, value_col, key, key_type::regtype, spec_p, late,
		                               horizon, beyond, watermark, unit, zone, quiet, sched, job);
		-- the old triggers (the generated function's, and the insert
		-- trigger of the same name on segpipe_insert_trigger), then the
		-- generated functions
		FOR tr IN SELECT g.tgrelid::regclass AS tab, g.tgname FROM pg_catalog.pg_trigger AS g
		         WHERE g.tgfoid = m.fn
		            OR (g.tgfoid = ins_fn AND g.tgname = m.base || '_insert'
		                AND g.tgrelid IN (SELECT h.tgrelid FROM pg_catalog.pg_trigger AS h WHERE h.tgfoid = m.fn))
		         ORDER BY g.tgrelid, g.tgname LOOP
			EXECUTE format('DROP TRIGGER %I ON %s', tr.tgname, tr.tab);
		END LOOP;
		EXECUTE format('DROP FUNCTION %s', m.fn::regprocedure);
		FOR tr IN SELECT p.oid::regprocedure AS f FROM pg_catalog.pg_proc AS p
		         WHERE p.pronamespace = m.nsp AND p.proname IN (m.base || '_correct', m.base || '_close') LOOP
			EXECUTE format('DROP FUNCTION %s', tr.f);
		END LOOP;
		FOR tr IN SELECT readings AS relid, 0 AS level UNION ALL
		         SELECT x.relid, x.level FROM pg_catalog.pg_partition_tree(readings) AS x WHERE x.relid <> readings
		         ORDER BY 2, 1 LOOP
			PERFORM segpipe_maintain_triggers(results::regclass, tr.relid::regclass);
		END LOOP;
	END LOOP;
END
$migrate$;
