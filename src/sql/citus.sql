-- Maintained results on a Citus distributed table (docs/scale-out.md).
--
-- segpipe_maintain() on hash-distributed readings makes the results, state,
-- checkpoint and heartbeat tables distributed and co-located with them, a
-- catalog row on the coordinator, and the triggers on the distributed
-- readings, which Citus copies onto every shard (and onto the shards a
-- rebalance or split makes) with the coordinator's row id.  Each node keeps
-- a catalog row per shard group it holds (shard_of: the coordinator's id),
-- which those triggers find by that id and the shard they fire on.  The
-- coordinator reaches each shard group by a query that Citus routes to the
-- node holding it, in the distributed transaction: a value of the
-- distribution column that hashes into the group picks the node.

-- ---- the set-ups, on every node ----
-- What a node needs to attach a shard group that Citus moved or split onto
-- it (sql/citus.sql's segpipe_shard_adopt, from the shard's trigger): each
-- set-up's row of the coordinator's catalog, by its id, its tables by
-- schema-qualified name.  A Citus reference table, so that Citus copies it
-- to every node, and to a node added later before it moves shards there;
-- written only as its owner (a superuser), from the coordinator's catalog
-- (src/server/maintain_citus.c, maintain_citus_publish).
-- @since 0.10.0
CREATE TABLE segpipe_citus_setup (
	id integer PRIMARY KEY,     -- the coordinator's catalog row
	results text NOT NULL,
	readings text NOT NULL,
	state_table text NOT NULL,
	checkpoint_table text NOT NULL,
	heartbeat_table text,
	partition_column name NOT NULL,
	ts_column name NOT NULL,
	value_column name NOT NULL,
	key text NOT NULL,
	key_type text NOT NULL,
	spec text NOT NULL,         -- (text: Citus's copies of the table on the nodes are not the
	                            -- extension's, and a column of its type would keep it from
	                            -- being dropped)
	late text NOT NULL,
	horizon interval,
	beyond_horizon text NOT NULL,
	watermark interval,
	heartbeat_unit text,
	heartbeat_zone text,
	quiet interval
);
-- @end

COMMENT ON TABLE segpipe_citus_setup IS
	'segpipe''s set-ups of maintained results on Citus distributed tables, as the coordinator''s catalog has them: a reference table, so that every node can attach the shard groups Citus moves onto it (written only by segpipe''s functions)';
REVOKE ALL ON segpipe_citus_setup FROM PUBLIC;
GRANT SELECT ON segpipe_citus_setup TO PUBLIC;

-- the schema-qualified name of rel's shard whose hash range starts at
-- minvalue, a reference table's with NULL (Citus's metadata: on the
-- coordinator, or a node with metadata; Citus's shard_name() leaves out the
-- schema public)
CREATE OR REPLACE FUNCTION segpipe_shard_name(rel regclass, minvalue text)
	RETURNS text
	LANGUAGE sql STABLE PARALLEL UNSAFE  -- (as Citus's shard_name is)
	SET search_path = pg_catalog, pg_temp
	AS $fn$
	SELECT format('%I.%I', n.nspname, i.name[array_length(i.name, 1)])
	FROM pg_catalog.pg_dist_shard AS t JOIN pg_catalog.pg_class AS c ON c.oid = t.logicalrelid
	JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace,
	     LATERAL (SELECT pg_catalog.parse_ident(pg_catalog.shard_name(t.logicalrelid, t.shardid)) AS name) AS i
	WHERE t.logicalrelid = rel AND t.shardminvalue IS NOT DISTINCT FROM minvalue
$fn$;

COMMENT ON FUNCTION segpipe_shard_name(regclass, text) IS
	'the schema-qualified name of the shard of a Citus distributed table whose hash range starts at minvalue (NULL: of a reference table)';

-- ---- on the node that holds a shard group ----
CREATE OR REPLACE FUNCTION segpipe_shard(op text, shard_of integer, shards text[], arg text,
		partition_column name, ts_column name, value_column name, key text, key_type regtype,
		spec pipeline, late text, horizon interval, beyond_horizon text, watermark interval,
		heartbeat_unit text, heartbeat_zone text, quiet interval)
	RETURNS bigint
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $fn$
DECLARE
	ext name;
	rels regclass[];    -- results, readings, state, checkpoint, heartbeat shards
	found_row record;
	manual text;
	n bigint := 0;
BEGIN
	IF op IS NULL OR op NOT IN ('attach', 'detach', 'untrigger', 'rebuild', 'close') OR shard_of IS NULL
	   OR array_length(shards, 1) IS DISTINCT FROM 5 OR shards[1] IS NULL OR shards[2] IS NULL
	   OR shards[3] IS NULL OR shards[4] IS NULL THEN
		RAISE EXCEPTION 'segpipe_shard() is segpipe''s own, called by the coordinator on a shard group'
			USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT s.nspname INTO ext FROM pg_extension AS e JOIN pg_namespace AS s ON s.oid = e.extnamespace
	WHERE e.extname = 'segpipe';
	-- each shard by its schema-qualified name, as the coordinator read it
	-- from Citus's metadata (this node's may not have the tables of the
	-- transaction yet); the register checks that the caller owns them all
	FOR i IN 1..5 LOOP
		rels[i] := CASE WHEN shards[i] IS NOT NULL THEN to_regclass(shards[i]) END;
		IF shards[i] IS NOT NULL AND rels[i] IS NULL THEN
			RAISE EXCEPTION 'shard % is not on this node', shards[i] USING ERRCODE = 'undefined_table';
		END IF;
	END LOOP;

	-- What Citus leaves behind when the distributed readings' triggers are
	-- dropped: it copies a truncate trigger onto a shard that a rebalance
	-- moves, but drops none on the shards (it fires none on them either)
	IF op = 'untrigger' THEN
		manual := current_setting('citus.enable_manual_changes_to_shards');
		PERFORM set_config('citus.enable_manual_changes_to_shards', 'on', true);
		FOR found_row IN SELECT t.tgname FROM pg_trigger AS t
		                 WHERE t.tgrelid = rels[2]
		                   AND t.tgfoid IN (format('%I.segpipe_insert_trigger()', ext)::regprocedure,
		                                    format('%I.segpipe_change_trigger()', ext)::regprocedure)
		                   AND t.tgargs = convert_to(shard_of::text, 'UTF8') || '\x00'::bytea
		                                  || convert_to('citus', 'UTF8') || '\x00'::bytea LOOP
			EXECUTE format('DROP TRIGGER %I ON %s', found_row.tgname, rels[2]);
			n := n + 1;
		END LOOP;
		PERFORM set_config('citus.enable_manual_changes_to_shards', manual, true);
		RETURN n;
	END IF;
	EXECUTE format('SELECT c.id, c.readings, c.shard_of FROM %I.segpipe_catalog AS c WHERE c.results = $1', ext)
	INTO found_row USING rels[1];
	IF op = 'detach' THEN
		IF found_row.id IS NOT NULL AND found_row.shard_of = shard_of THEN
			EXECUTE format('SELECT %I.segpipe_unmaintain($1)', ext) USING rels[1];
			RETURN 1;
		END IF;
		RETURN 0;
	END IF;
	IF found_row.id IS NULL THEN
		-- the register checks that the caller owns every table named
		EXECUTE format('SELECT %I.segpipe_catalog_register($1, $2, $3, $4, $5, NULL, NULL, $6, $7, $8, $9, $10, $11, '
		               '$12, $13, $14, $15, $16, $17, $18, NULL, NULL, $19)', ext)
		USING rels[1], rels[2], rels[3], rels[4], rels[5], partition_column, ts_column, value_column, key,
		      key_type, spec, late, horizon, beyond_horizon, watermark, heartbeat_unit, heartbeat_zone, quiet,
		      shard_of;
		n := 1;
	ELSIF found_row.shard_of IS DISTINCT FROM shard_of OR found_row.readings <> rels[2] THEN
		RAISE EXCEPTION 'shard "%" is maintained already, by another set-up', rels[1]
			USING ERRCODE = 'duplicate_object';
	END IF;
	IF op = 'attach' THEN
		IF n = 1 AND arg = 'rebuild' THEN
			EXECUTE format('SELECT %I.segpipe_rebuild_sensors($1, NULL)', ext) USING rels[1];
		END IF;
		RETURN n;
	ELSIF op = 'rebuild' THEN
		EXECUTE format('SELECT %I.segpipe_rebuild_sensors($1, $2)', ext) INTO n USING rels[1], arg;
	ELSE
		EXECUTE format('SELECT %I.segpipe_close_silent($1, $2::pg_catalog.timestamptz)', ext) INTO n USING rels[1], arg;
	END IF;
	RETURN n;
END
$fn$;

COMMENT ON FUNCTION segpipe_shard(text, integer, text[], text, name, name, name, text, regtype, pipeline, text,
                                  interval, text, interval, text, text, interval) IS
	'segpipe''s work on the node that holds a shard group of maintained results on Citus, called by the coordinator: attach (the catalog row of the group), detach, untrigger (the copies of the triggers Citus left on the shard), rebuild or close';

-- A shard group with the triggers of a set-up and no catalog row on this
-- node (Citus moved or split it here): its row made from the set-up's in
-- segpipe_citus_setup, this node's copy, as segpipe_shard('attach') makes
-- it.  The trigger that fires on readings_shard calls it, as the owner of
-- the readings, with the catalog locked (src/server/maintain_citus.c,
-- maintain_citus_adopt).  Returns the rows made: 0 when the set-up or the
-- group is not known here.
CREATE OR REPLACE FUNCTION segpipe_shard_adopt(shard_of integer, readings_shard regclass, setups regclass)
	RETURNS bigint
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $fn$
DECLARE
	ext name;
	placement regclass;
	e record;
	s record;
	names text[];
	t text;
	shard text;
	n bigint;
BEGIN
	SELECT x.nspname INTO ext FROM pg_extension AS e0 JOIN pg_namespace AS x ON x.oid = e0.extnamespace
	WHERE e0.extname = 'segpipe';
	-- setups: the extension's own table (the C caller checks its owner too)
	IF to_regclass('pg_catalog.pg_dist_shard') IS NULL OR shard_of IS NULL OR readings_shard IS NULL
	   OR NOT EXISTS (SELECT 1 FROM pg_depend AS d JOIN pg_extension AS x ON x.oid = d.refobjid
	                  WHERE d.classid = 'pg_class'::regclass AND d.objid = setups AND d.objsubid = 0
	                    AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
	                    AND x.extname = 'segpipe') THEN
		RETURN 0;
	END IF;
	-- this node's placement of the reference table (none where Citus has
	-- not made it one, or has no metadata)
	EXECUTE format('SELECT to_regclass(%I.segpipe_shard_name($1, NULL))', ext) INTO placement USING setups;
	IF placement IS NULL THEN
		RETURN 0;
	END IF;
	EXECUTE format('SELECT c.* FROM %s AS c WHERE c.id = $1', placement) INTO e USING shard_of;
	IF e.id IS NULL THEN
		RETURN 0;
	END IF;
	-- readings_shard must be a shard of the set-up's readings; the group's
	-- shards of its other tables, those of the same hash range in the same
	-- co-location group
	EXECUTE format($q$SELECT d.logicalrelid, d.shardminvalue, p.colocationid
	                  FROM pg_catalog.pg_dist_shard AS d JOIN pg_catalog.pg_dist_partition AS p USING (logicalrelid)
	                  WHERE d.logicalrelid = $1 AND to_regclass(%I.segpipe_shard_name(d.logicalrelid, d.shardminvalue)) = $2$q$, ext)
	INTO s USING to_regclass(e.readings), readings_shard;
	IF s.logicalrelid IS NULL THEN
		RETURN 0;
	END IF;
	FOREACH t IN ARRAY ARRAY[e.results, e.readings, e.state_table, e.checkpoint_table, e.heartbeat_table] LOOP
		IF t IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition AS p
		                                  WHERE p.logicalrelid = to_regclass(t) AND p.colocationid = s.colocationid) THEN
			RETURN 0;
		END IF;
		EXECUTE format('SELECT %I.segpipe_shard_name($1, $2)', ext)
		INTO shard USING to_regclass(t), s.shardminvalue;
		names := names || shard;
	END LOOP;
	IF names[1] IS NULL OR names[2] IS NULL OR names[3] IS NULL OR names[4] IS NULL
	   OR (e.heartbeat_table IS NOT NULL AND names[5] IS NULL) THEN
		RETURN 0;
	END IF;
	-- the register checks that the caller owns every shard named
	EXECUTE format('SELECT %1$I.segpipe_shard($1, $2, $3, NULL, $4, $5, $6, $7, $8, $9::%1$I.pipeline, $10, $11, $12, '
	               '$13, $14, $15, $16)', ext)
	INTO n
	USING 'attach', shard_of, names, e.partition_column, e.ts_column, e.value_column, e.key, e.key_type::regtype,
	      e.spec, e.late, e.horizon, e.beyond_horizon, e.watermark, e.heartbeat_unit, e.heartbeat_zone, e.quiet;
	RETURN n;
END
$fn$;

COMMENT ON FUNCTION segpipe_shard_adopt(integer, regclass, regclass) IS
	'segpipe''s work on a Citus node, from the trigger of a shard group that has no catalog row here (moved or split here): its row made from the set-up''s in segpipe_citus_setup; returns the rows made';

-- ---- on the coordinator: each shard group of a set-up ----
CREATE OR REPLACE FUNCTION segpipe_shards(results regclass, op text, arg text DEFAULT NULL)
	RETURNS bigint
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	-- Citus writes the arguments into the statements it sends as text, in
	-- these settings: read the same on every node
	SET search_path = pg_catalog, pg_temp
	SET TimeZone = 'UTC' SET DateStyle = 'ISO, YMD' SET IntervalStyle = 'postgres' SET extra_float_digits = 3
	AS $fn$
DECLARE
	ext name;
	e record;
	g record;
	col_type regtype;
	shard_ids bigint[];
	shard_values text[];
	total bigint := 0;
	n bigint;
	shards integer;
	mode text;
BEGIN
	IF op IS NULL OR op NOT IN ('attach', 'detach', 'untrigger', 'rebuild', 'close') THEN
		RAISE EXCEPTION 'invalid value for argument "op": "%"', op USING ERRCODE = 'invalid_parameter_value';
	END IF;
	SELECT s.nspname INTO ext FROM pg_extension AS e0 JOIN pg_namespace AS s ON s.oid = e0.extnamespace
	WHERE e0.extname = 'segpipe';
	EXECUTE format('SELECT c.* FROM %I.segpipe_catalog AS c WHERE c.results = $1 AND c.shard_of IS NULL', ext)
	INTO e USING results;
	IF e.id IS NULL THEN
		RAISE EXCEPTION '"%" is not a results table maintained by segpipe', results USING ERRCODE = 'undefined_object';
	ELSIF to_regclass('pg_catalog.pg_dist_partition') IS NULL THEN
		RAISE EXCEPTION '"%" is not maintained from a Citus distributed table', results
			USING ERRCODE = 'wrong_object_type';
	ELSIF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_dist_partition AS p WHERE p.logicalrelid = e.readings AND p.partmethod = 'h') THEN
		RAISE EXCEPTION '"%" is not maintained from a Citus distributed table', results
			USING ERRCODE = 'wrong_object_type';
	END IF;
	IF NOT pg_has_role((SELECT c.relowner FROM pg_class AS c WHERE c.oid = e.readings), 'USAGE') THEN
		RAISE EXCEPTION 'must be owner of table %', e.readings USING ERRCODE = 'insufficient_privilege';
	END IF;
	SELECT a.atttypid INTO col_type FROM pg_attribute AS a
	WHERE a.attrelid = e.readings AND a.attname = e.partition_column AND NOT a.attisdropped;
	-- Statements against several shards in one transaction: one connection
	-- per node, so that what a group's node wrote is what the next sees.
	mode := current_setting('citus.multi_shard_modify_mode');
	PERFORM set_config('citus.multi_shard_modify_mode', 'sequential', true);
	-- A lock on the readings that Citus takes on every node too: it also
	-- makes this a distributed transaction, so that the work routed below
	-- runs in a transaction block on each node and commits (or rolls back)
	-- with this one.
	EXECUTE format('LOCK TABLE %s IN ACCESS SHARE MODE', e.readings);

	-- one value of the distribution column per shard group: of 256 candidates
	-- a shard (a hash spreads them evenly), the first that falls in it
	SELECT count(*) INTO shards FROM pg_catalog.pg_dist_shard AS s WHERE s.logicalrelid = e.readings;
	BEGIN
		SELECT array_agg(x.shardid ORDER BY x.shardid), array_agg(x.v ORDER BY x.shardid) INTO shard_ids, shard_values
		FROM (SELECT DISTINCT ON (y.shardid) y.shardid, y.v
		      FROM (SELECT c.v, pg_catalog.get_shard_id_for_distribution_column(e.readings, c.v) AS shardid, c.g
		            FROM generate_series(0, 256 * shards - 1) AS g0,
		                 LATERAL (SELECT g0 AS g, CASE WHEN col_type = 'uuid'::regtype THEN md5(g0::text)::uuid::text
		                                     WHEN col_type IN ('date'::regtype, 'timestamp'::regtype, 'timestamptz'::regtype)
		                                     THEN (date '2000-01-01' + g0)::text
		                                     ELSE g0::text END AS v) AS c) AS y
		      ORDER BY y.shardid, y.g) AS x;
	EXCEPTION WHEN data_exception THEN
		shard_ids := NULL;
	END;
	IF coalesce(array_length(shard_ids, 1), 0) < shards THEN
		RAISE EXCEPTION 'segpipe cannot reach every shard of "%"', e.readings USING ERRCODE = 'feature_not_supported',
			DETAIL = format('It routes its work to a shard group by a value of the distribution column, of type %s, and found none for %s of the %s shards among the values it tries (integers, text, uuid, dates).',
			                col_type, shards - coalesce(array_length(shard_ids, 1), 0), shards);
	END IF;

	-- each group: the value, and the schema-qualified names of its shards of
	-- the results, readings, state, checkpoint and heartbeat tables (those of
	-- the same hash range), each in its table's schema
	FOR g IN EXECUTE format($q$SELECT sv.v,
	                                  ARRAY(SELECT %I.segpipe_shard_name(x.rel, s.shardminvalue)
	                                        FROM unnest($1) WITH ORDINALITY AS x(rel, k) ORDER BY x.k) AS names
	                           FROM pg_catalog.pg_dist_shard AS s
	                           JOIN unnest($2, $3) AS sv(shardid, v) USING (shardid)
	                           WHERE s.logicalrelid = $4 ORDER BY s.shardminvalue::bigint$q$, ext)
	         USING ARRAY[e.results, e.readings, e.state_table, e.checkpoint_table, e.heartbeat_table]::regclass[],
	               shard_ids, shard_values, e.readings LOOP
		IF g.names[1] IS NULL OR g.names[3] IS NULL OR g.names[4] IS NULL
		   OR (e.heartbeat_table IS NOT NULL AND g.names[5] IS NULL) THEN
			RAISE EXCEPTION 'the tables of "%" are not co-located with its readings', results
				USING ERRCODE = 'object_not_in_prerequisite_state',
				DETAIL = 'Each shard of the readings needs a shard of the results, state and checkpoint tables for the same hash range.';
		END IF;
		-- routed by Citus to the node that holds the group, in this transaction
		EXECUTE format('SELECT %1$I.segpipe_shard($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17), '
		               'pg_catalog.count(*) FROM %2$s WHERE %3$I = $18::%4$s', ext, e.readings, e.partition_column, col_type)
		INTO n
		USING op, e.id, g.names, arg,
		      e.partition_column, e.ts_column, e.value_column, e.key, e.key_type, e.spec, e.late, e.horizon,
		      e.beyond_horizon, e.watermark, e.heartbeat_unit, e.heartbeat_zone, e.quiet, g.v;
		total := total + n;
	END LOOP;
	PERFORM set_config('citus.multi_shard_modify_mode', mode, true);
	RETURN total;
END
$fn$;

COMMENT ON FUNCTION segpipe_shards(regclass, text, text) IS
	'segpipe''s work on every shard group of results maintained on Citus, from the coordinator: attach, detach, untrigger, rebuild or close; returns the sum of what each did';

-- (and the set-up's row in segpipe_citus_setup made again, with the
-- tables' names of now)
CREATE OR REPLACE FUNCTION segpipe_attach_shards(results regclass)
	RETURNS bigint
	AS 'MODULE_PATHNAME', 'segpipe_attach_shards'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_attach_shards(regclass) IS
	'on the Citus coordinator: the catalog rows of the shard groups of a maintained results table that have none on the node holding them (after a rebalance or a split); returns how many were made';
