-- Every property of segpipe's objects that a user or the server can tell
-- apart, one line each, sorted: what test/integration/upgrade_paths.py
-- compares between a fresh install and each update path.  Bodies are
-- compared by md5 (C functions by symbol); owners and OIDs are left out
-- (they differ by design).
\pset format unaligned
\pset tuples_only on
WITH ext AS (SELECT oid, extnamespace FROM pg_extension WHERE extname = 'segpipe'),
members AS (
    SELECT d.classid, d.objid, d.objsubid FROM pg_depend d, ext
    WHERE d.refclassid = 'pg_extension'::regclass AND d.refobjid = ext.oid AND d.deptype = 'e'),
lines AS (
    SELECT 'member ' || pg_describe_object(classid, objid, objsubid) AS line FROM members
    WHERE NOT (classid = 'pg_type'::regclass AND objid IN (
        SELECT t.oid FROM pg_type t LEFT JOIN pg_type el ON el.oid = t.typelem
        WHERE t.typrelid <> 0 OR el.typrelid <> 0 OR t.typname = '_pipeline'))
  UNION ALL
    SELECT format('function %s args=(%s) result=%s lang=%s body=%s bin=%s kind=%s vol=%s strict=%s par=%s secdef=%s leakproof=%s cost=%s rows=%s config=%s acl=%s comment=%s',
        p.oid::regprocedure, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid), l.lanname,
        CASE WHEN l.lanname = 'c' THEN p.prosrc ELSE md5(p.prosrc) END, p.probin, p.prokind, p.provolatile,
        p.proisstrict, p.proparallel, p.prosecdef, p.proleakproof, p.procost, p.prorows, p.proconfig,
        p.proacl, md5(obj_description(p.oid, 'pg_proc')))
    FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
    WHERE p.oid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)
  UNION ALL
    SELECT format('aggregate %s kind=%s direct=%s trans=%s final=%s extra=%s modify=%s combine=%s serial=%s deserial=%s mtrans=%s minv=%s mfinal=%s stype=%s init=%s sort=%s',
        a.aggfnoid::regprocedure, a.aggkind, a.aggnumdirectargs, a.aggtransfn::regprocedure, a.aggfinalfn::regprocedure,
        a.aggfinalextra, a.aggfinalmodify, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn, a.aggmtransfn, a.aggminvtransfn,
        a.aggmfinalfn, a.aggtranstype::regtype, a.agginitval, a.aggsortop)
    FROM pg_aggregate a WHERE a.aggfnoid IN (SELECT objid FROM members WHERE classid = 'pg_proc'::regclass)
  UNION ALL
    SELECT format('type %s len=%s byval=%s align=%s storage=%s in=%s out=%s recv=%s send=%s category=%s preferred=%s comment=%s',
        t.oid::regtype, t.typlen, t.typbyval, t.typalign, t.typstorage, t.typinput, t.typoutput, t.typreceive, t.typsend,
        t.typcategory, t.typispreferred, obj_description(t.oid, 'pg_type'))
    FROM pg_type t WHERE t.oid IN (SELECT objid FROM members WHERE classid = 'pg_type'::regclass) AND t.typrelid = 0
  UNION ALL
    SELECT format('operator %s code=%s com=%s neg=%s rest=%s join=%s merge=%s hash=%s',
        o.oid::regoperator, o.oprcode, o.oprcom::regoperator, o.oprnegate::regoperator, o.oprrest, o.oprjoin, o.oprcanmerge, o.oprcanhash)
    FROM pg_operator o WHERE o.oid IN (SELECT objid FROM members WHERE classid = 'pg_operator'::regclass)
  UNION ALL
    SELECT format('opclass %s %s default=%s type=%s', am.amname, c.opcname, c.opcdefault, c.opcintype::regtype)
    FROM pg_opclass c JOIN pg_am am ON am.oid = c.opcmethod
    WHERE c.oid IN (SELECT objid FROM members WHERE classid = 'pg_opclass'::regclass)
  UNION ALL
    SELECT format('amop %s %s strategy=%s %s', am.amname, f.opfname, ao.amopstrategy, ao.amopopr::regoperator)
    FROM pg_amop ao JOIN pg_opfamily f ON f.oid = ao.amopfamily JOIN pg_am am ON am.oid = f.opfmethod
    WHERE f.oid IN (SELECT c.opcfamily FROM pg_opclass c WHERE c.oid IN (SELECT objid FROM members WHERE classid = 'pg_opclass'::regclass))
  UNION ALL
    SELECT format('amproc %s %s %s %s', am.amname, f.opfname, ap.amprocnum, ap.amproc::regprocedure)
    FROM pg_amproc ap JOIN pg_opfamily f ON f.oid = ap.amprocfamily JOIN pg_am am ON am.oid = f.opfmethod
    WHERE f.oid IN (SELECT c.opcfamily FROM pg_opclass c WHERE c.oid IN (SELECT objid FROM members WHERE classid = 'pg_opclass'::regclass))
  UNION ALL
    SELECT format('cast %s as %s func=%s context=%s method=%s', c.castsource::regtype, c.casttarget::regtype,
        c.castfunc::regprocedure, c.castcontext, c.castmethod)
    FROM pg_cast c WHERE c.oid IN (SELECT objid FROM members WHERE classid = 'pg_cast'::regclass)
  UNION ALL
    SELECT format('event trigger %s on %s tags=%s func=%s enabled=%s comment=%s', e.evtname, e.evtevent, e.evttags,
        e.evtfoid::regprocedure, e.evtenabled, obj_description(e.oid, 'pg_event_trigger'))
    FROM pg_event_trigger e WHERE e.oid IN (SELECT objid FROM members WHERE classid = 'pg_event_trigger'::regclass)
  UNION ALL
    SELECT format('relation %s kind=%s acl=%s rls=%s comment=%s view=%s', c.oid::regclass, c.relkind, c.relacl,
        c.relrowsecurity, obj_description(c.oid, 'pg_class'),
        CASE WHEN c.relkind = 'v' THEN md5(pg_get_viewdef(c.oid)) END)
    FROM pg_class c WHERE c.oid IN (SELECT objid FROM members WHERE classid = 'pg_class'::regclass)
  UNION ALL
    SELECT format('column %s.%s %s notnull=%s default=%s', a.attrelid::regclass, a.attname,
        format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(ad.adbin, ad.adrelid))
    FROM pg_attribute a LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
    WHERE a.attrelid IN (SELECT objid FROM members WHERE classid = 'pg_class'::regclass) AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL
    SELECT format('constraint %s %s', con.conrelid::regclass, pg_get_constraintdef(con.oid))
    FROM pg_constraint con WHERE con.conrelid IN (SELECT objid FROM members WHERE classid = 'pg_class'::regclass)
  UNION ALL
    SELECT format('index %s', pg_get_indexdef(i.indexrelid))
    FROM pg_index i WHERE i.indrelid IN (SELECT objid FROM members WHERE classid = 'pg_class'::regclass)
  UNION ALL
    SELECT format('config dump %s condition=%s', c::regclass, e.extcondition)
    FROM pg_extension e, unnest(e.extconfig) AS c WHERE e.extname = 'segpipe'
  UNION ALL
    SELECT format('extension version=%s relocatable=%s', extversion, extrelocatable) FROM pg_extension WHERE extname = 'segpipe'
)
SELECT line FROM lines ORDER BY line COLLATE "C";
