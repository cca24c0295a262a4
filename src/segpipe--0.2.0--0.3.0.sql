/* segpipe--0.2.0--0.3.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.3.0'" to load this file. \quit

-- 0.3.0 has no install script of its own: CREATE EXTENSION segpipe runs
-- segpipe--0.2.0.sql and then this file, as pg_stat_statements does, so a
-- fresh install and an upgraded one run the same statements.
