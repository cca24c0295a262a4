-- Run by the update from 0.6.0 or before, ahead of the definitions (the
-- Makefile builds each update script: these deltas from the version it
-- starts at, then every definition of src/sql/, then the deltas' -after
-- parts).  Only what a definition cannot say goes here: what 0.7.0 dropped
-- or changed in place.

-- segpipe_maintain() took more arguments (the watermark and its heartbeats,
-- the schedule).
DROP FUNCTION IF EXISTS segpipe_maintain(regclass, text, text, text, text, pipeline, text, text, interval, text);
