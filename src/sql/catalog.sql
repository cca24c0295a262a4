-- The catalog of maintained results: one row per results table that
-- segpipe_maintain() set up, what it was given and what it made, tables by
-- OID (regclass: pg_dump writes their names, pg_restore reads the new OIDs
-- back).  It is the only way segpipe finds a results table.  No role may
-- write it; segpipe's functions write it for the owner of the readings
-- (src/server/maintain_catalog.c, which checks on every read that the table
-- is the extension's own and has this shape).
-- @since 0.10.0
CREATE TABLE segpipe_catalog (
	id integer PRIMARY KEY,
	results regclass NOT NULL UNIQUE,
	readings regclass NOT NULL,
	state_table regclass NOT NULL,
	checkpoint_table regclass NOT NULL,
	heartbeat_table regclass,
	realtime_view regclass,
	readings_index name,        -- by name: an index is restored after the data
	partition_column name NOT NULL,
	ts_column name NOT NULL,
	value_column name NOT NULL,
	key text NOT NULL,
	key_type regtype NOT NULL,
	spec pipeline NOT NULL,
	late text NOT NULL,
	horizon interval,
	beyond_horizon text NOT NULL,
	watermark interval,
	heartbeat_unit text,
	heartbeat_zone text,
	quiet interval,
	schedule text,
	cron_job text,
	shard_of integer            -- Citus: the coordinator's row whose shard group this is
);
-- @end

COMMENT ON TABLE segpipe_catalog IS
	'segpipe''s catalog of maintained results: one row per results table that segpipe_maintain() set up (written only by segpipe''s functions)';

-- pg_dump dumps its rows (a member's rows are otherwise left out), so that a
-- restored database goes on maintaining its results.
SELECT pg_catalog.pg_extension_config_dump('segpipe_catalog', '');
REVOKE ALL ON segpipe_catalog FROM PUBLIC;
GRANT SELECT ON segpipe_catalog TO PUBLIC;

CREATE OR REPLACE FUNCTION segpipe_catalog_register(results regclass, readings regclass, state_table regclass,
		checkpoint_table regclass, heartbeat_table regclass, realtime_view regclass, readings_index regclass,
		partition_column name, ts_column name, value_column name, key text, key_type regtype, spec pipeline,
		late text, horizon interval, beyond_horizon text, watermark interval, heartbeat_unit text,
		heartbeat_zone text, quiet interval, schedule text, cron_job text, shard_of integer DEFAULT NULL)
	RETURNS integer
	AS 'MODULE_PATHNAME', 'segpipe_catalog_register'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_catalog_register(regclass, regclass, regclass, regclass, regclass, regclass, regclass,
		name, name, name, text, regtype, pipeline, text, interval, text, interval, text, text, interval, text, text, integer) IS
	'segpipe_maintain()''s work: the catalog''s row of a set-up, for the owner of the readings and of every table named (shard_of: on a Citus node, the coordinator''s row whose shard group these tables are); returns its id';

-- ---- segpipe_maintained: from the catalog ----
-- Figures are summed over the state table when the caller may read it and
-- the results table; only tables are read (never a view someone put in
-- their place), by their OIDs' names at the time.
CREATE OR REPLACE FUNCTION segpipe_maintained()
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
BEGIN
	SELECT s.nspname INTO ext FROM pg_extension AS e JOIN pg_namespace AS s ON s.oid = e.extnamespace
	WHERE e.extname = 'segpipe';
	FOR m IN EXECUTE format($q$SELECT c.id, c.results, c.readings, c.spec, c.state_table, c.partition_column, c.shard_of
	                          FROM %I.segpipe_catalog AS c JOIN pg_class AS r ON r.oid = c.results
	                          JOIN pg_namespace AS n ON n.oid = r.relnamespace
	                          ORDER BY n.nspname, r.relname$q$, ext)
	LOOP
		results := m.results;
		readings := m.readings;
		spec := m.spec;
		SELECT t.tgfoid::regproc::text INTO insert_trigger FROM pg_trigger AS t
		WHERE t.tgrelid = m.readings
		  AND t.tgargs IN (convert_to(m.id::text, 'UTF8') || '\x00'::bytea,
		                   -- Citus: on the distributed readings, and its copies on the shards
		                   convert_to(coalesce(m.shard_of, m.id)::text, 'UTF8') || '\x00'::bytea
		                   || convert_to('citus', 'UTF8') || '\x00'::bytea)
		  AND t.tgtype & 4 <> 0;
		sensors := NULL; rows := NULL; late := NULL; discarded := NULL; open_segments := NULL;
		oldest_progress := NULL; newest_progress := NULL; lag := NULL; last_emission := NULL;
		IF (SELECT c.relkind FROM pg_class AS c WHERE c.oid = m.state_table) = 'r'
		   AND (SELECT c.relkind FROM pg_class AS c WHERE c.oid = m.results) = 'r'
		   AND has_table_privilege(m.state_table, 'SELECT') AND has_table_privilege(m.results, 'SELECT') THEN
			EXECUTE format($q$SELECT count(*), sum(%1$I.pipeline_rows(s.state)), sum(%1$I.pipeline_late(s.state)),
			                         sum(%1$I.pipeline_discarded(s.state)),
			                         count(*) FILTER (WHERE %1$I.pipeline_key(s.state) IS NOT NULL),
			                         min(%1$I.pipeline_progress(s.state)), max(%1$I.pipeline_progress(s.state))
			                  FROM %2$s AS s$q$, ext, m.state_table)
			INTO sensors, rows, late, discarded, open_segments, oldest_progress, newest_progress;
			-- (a statement of its own: Citus pushes it down to the shards whole)
			EXECUTE format($q$SELECT max(x.t) FROM %1$s AS s2
			                  CROSS JOIN LATERAL (SELECT max(r.ts) AS t FROM %2$s AS r WHERE r.%3$I = s2.%3$I) AS x$q$,
			               m.state_table, m.results, m.partition_column)
			INTO last_emission;
			lag := now() - oldest_progress;
		END IF;
		RETURN NEXT;
	END LOOP;
END
$fn$;

COMMENT ON FUNCTION segpipe_maintained() IS
	'the results tables segpipe_maintain() made, with figures summed over their state tables';

CREATE OR REPLACE VIEW segpipe_maintained AS SELECT * FROM segpipe_maintained();

COMMENT ON VIEW segpipe_maintained IS
	'one row per maintained results table: readings, spec, insert trigger, sensors, rows, late, discarded, open segments, oldest and newest progress, lag, last emission';

GRANT SELECT ON segpipe_maintained TO PUBLIC;
