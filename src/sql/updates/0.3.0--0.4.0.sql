-- Run by the update from 0.3.0 or before, ahead of the definitions (the
-- Makefile builds each update script: these deltas from the version it
-- starts at, then every definition of src/sql/, then the deltas' -after
-- parts).  Only what a definition cannot say goes here: what 0.4.0 dropped
-- or changed in place.

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
