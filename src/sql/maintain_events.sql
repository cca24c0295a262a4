-- segpipe's event triggers: they read the catalog of maintained results
-- only, and act on the tables it names only (src/server/maintain_admin.c).

CREATE OR REPLACE FUNCTION segpipe_partitions_changed()
	RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'segpipe_partitions_changed'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_partitions_changed() IS
	'event trigger: gives partitions that join maintained readings their triggers and runs their rows; takes them from detached ones and runs their sensors without their rows';

CREATE OR REPLACE FUNCTION segpipe_triggers_dropped()
	RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'segpipe_triggers_dropped'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_triggers_dropped() IS
	'event trigger: refuses to drop a partition of maintained readings, one of the triggers segpipe made on it, or a table of maintained results; forgets results whose readings were dropped';

CREATE OR REPLACE FUNCTION segpipe_drop_starting()
	RETURNS event_trigger
	AS 'MODULE_PATHNAME', 'segpipe_drop_starting'
	LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION segpipe_drop_starting() IS
	'event trigger: notes what a DROP may take from maintained results (segpipe_triggers_dropped checks it), and refuses DROP EXTENSION segpipe while it maintains results';

-- An event trigger has no OR REPLACE: each is made once, by the install or
-- by the update from a version that lacks it.
-- @since 0.5.0
CREATE EVENT TRIGGER segpipe_partitions ON ddl_command_end
	WHEN TAG IN ('CREATE TABLE', 'ALTER TABLE')
	EXECUTE FUNCTION segpipe_partitions_changed();

CREATE EVENT TRIGGER segpipe_triggers_dropped ON sql_drop
	EXECUTE FUNCTION segpipe_triggers_dropped();
-- @end

-- @since 0.10.0
CREATE EVENT TRIGGER segpipe_drop_starting ON ddl_command_start
	WHEN TAG IN ('DROP EXTENSION', 'DROP TABLE', 'DROP FOREIGN TABLE', 'DROP SCHEMA', 'DROP OWNED', 'DROP TRIGGER')
	EXECUTE FUNCTION segpipe_drop_starting();
-- @end
