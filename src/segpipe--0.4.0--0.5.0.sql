/* segpipe--0.4.0--0.5.0.sql */

\echo Use "ALTER EXTENSION segpipe UPDATE TO '0.5.0'" to load this file. \quit

-- 0.5.0: maintained results corrected on every change of their readings
-- (section "corrections"), and operators that know time (section "time").
