-- The extension installs from scratch and exposes exactly the documented
-- objects, with honest labels.
CREATE EXTENSION segpipe;

\pset format unaligned
\pset null 'null'

SELECT p.oid::regprocedure AS function,
       p.prokind AS kind,
       p.provolatile AS volatility,
       p.proisstrict AS strict,
       p.proparallel AS parallel
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
JOIN pg_extension e ON d.refobjid = e.oid AND e.extname = 'segpipe'
ORDER BY 1::text COLLATE "C";

SELECT typname, typlen, typalign, typstorage, typinput, typoutput, typreceive, typsend
FROM pg_type WHERE typname = 'pipeline';
