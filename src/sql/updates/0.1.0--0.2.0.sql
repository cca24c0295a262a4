-- Run by the update from 0.1.0 or before, ahead of the definitions (the
-- Makefile builds each update script: these deltas from the version it
-- starts at, then every definition of src/sql/, then the deltas' -after
-- parts).  Only what a definition cannot say goes here: what 0.2.0 dropped
-- or changed in place.

-- The key became anyelement.  Dropping the float8-key forms fails when a
-- view uses them; such a view must be dropped first and created again.
DROP FUNCTION IF EXISTS segment_agg(float8, float8);
DROP FUNCTION IF EXISTS segment_agg(float8, float8, pipeline);
DROP FUNCTION IF EXISTS segment_agg(float8[], float8, pipeline);
