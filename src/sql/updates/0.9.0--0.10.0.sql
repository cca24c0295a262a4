-- Run by the update from 0.9.0 or before, ahead of the definitions (the
-- Makefile builds each update script: these deltas from the version it
-- starts at, then every definition of src/sql/, then the deltas' -after
-- parts).  Only what a definition cannot say goes here: what 0.10.0 dropped
-- or changed in place.

-- The triggers are made from the catalog's row, no longer from a generated
-- function.
DROP FUNCTION IF EXISTS segpipe_maintain_triggers(regprocedure, oid, boolean);
