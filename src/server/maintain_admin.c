/*
 * maintain_admin.c
 *	  What makes and unmakes maintained results around the catalog: their
 *	  triggers on the readings and their partitions, segpipe_unmaintain(),
 *	  and the event triggers that keep partitions, drops and DROP EXTENSION
 *	  in step with the catalog.
 *
 * The event triggers fire for every role's DDL.  They read the catalog and
 * act on the tables of its rows only, with the rights of whoever ran the
 * DDL; a table not in the catalog costs them one scan of it.
 */
#include "postgres.h"

#include "access/table.h"
#include "catalog/indexing.h"
#include "catalog/namespace.h"
#include "catalog/partition.h"
#include "catalog/pg_class.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/event_trigger.h"
#include "commands/extension.h"
#include "executor/spi.h"
#include "utils/memutils.h"
#include "miscadmin.h"
#include "nodes/parsenodes.h"
#include "parser/parse_func.h"
#include "utils/acl.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "sp_compat.h"
#include "maintain_citus.h"
#include "maintain_correct.h"
#include "maintain_drops.h"
#include "sp_settings.h"

PG_FUNCTION_INFO_V1(segpipe_maintain_triggers);
PG_FUNCTION_INFO_V1(segpipe_unmaintain);
PG_FUNCTION_INFO_V1(segpipe_partitions_changed);
PG_FUNCTION_INFO_V1(segpipe_triggers_dropped);
PG_FUNCTION_INFO_V1(segpipe_drop_starting);

/* segpipe's own drops of its triggers, which the drop event trigger lets through */
static bool dropping_own = false;

static const char *const trigger_suffixes[] = {"_insert", "_update", "_delete", "_truncate"};

static char *
qualified(Oid relid)
{
	return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)),
									  get_rel_name(relid));
}

static Oid
trigger_function(const char *name)
{
	List	   *n = list_make1(makeString(get_namespace_name(maintain_extension_schema())));

	n = lappend(n, makeString(pstrdup(name)));
	return LookupFuncName(n, 0, NULL, false);
}

/*
 * a trigger's arguments as pg_trigger.tgargs holds them, each ended by a
 * zero byte: the row's id, then "partition" (on a partition of the
 * readings), "citus" (on distributed readings, copied by Citus onto their
 * shards) or nothing
 */
static bytea *
trigger_args(int32 id, const char *second)
{
	char	   *s = psprintf("%d%c%s", id, '\0', second ? second : "");
	int			len = strlen(s) + 1 + (second ? strlen(second) + 1 : 0);
	bytea	   *b = palloc(VARHDRSZ + len);

	SET_VARSIZE(b, VARHDRSZ + len);
	memcpy(VARDATA(b), s, len);
	return b;
}

/* whether rel carries the triggers of entry e */
static bool
has_triggers(Oid rel, const MaintainEntry *e)
{
	Relation	r = table_open(rel, AccessShareLock);
	Oid			change = trigger_function("segpipe_change_trigger");
	bool		found = false;
	char		id[16];

	snprintf(id, sizeof(id), "%d", e->id);
	for (int i = 0; r->trigdesc != NULL && i < r->trigdesc->numtriggers && !found; i++)
	{
		Trigger    *t = &r->trigdesc->triggers[i];

		found = t->tgfoid == change && t->tgnargs >= 1 && strcmp(t->tgargs[0], id) == 0;
	}
	table_close(r, AccessShareLock);
	return found;
}

/* The four triggers of entry e on rel: the readings, or one of their partitions. */
static void
make_triggers(const MaintainEntry *e, Oid rel)
{
	char	   *ext = pstrdup(quote_identifier(get_namespace_name(maintain_extension_schema())));
	char	   *base = get_rel_name(e->results);
	char	   *on = qualified(rel);
	bool		partition = rel != e->readings;
	bool		citus = !partition && maintain_citus_distributed(rel);
	char	   *args = partition ? psprintf("'%d', 'partition'", e->id)
		: citus ? psprintf("'%d', 'citus'", e->id) : psprintf("'%d'", e->id);
	int			nest = citus ? maintain_citus_ddl_begin() : 0;
	static const char *const how[] = {
		"AFTER INSERT ON %s REFERENCING NEW TABLE AS segpipe_new FOR EACH STATEMENT EXECUTE FUNCTION %s.segpipe_insert_trigger(%s)",
		"AFTER UPDATE ON %s REFERENCING OLD TABLE AS segpipe_old NEW TABLE AS segpipe_new FOR EACH STATEMENT EXECUTE FUNCTION %s.segpipe_change_trigger(%s)",
		"AFTER DELETE ON %s REFERENCING OLD TABLE AS segpipe_old FOR EACH STATEMENT EXECUTE FUNCTION %s.segpipe_change_trigger(%s)",
		"BEFORE TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION %s.segpipe_change_trigger(%s)",
	};

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	for (int i = 0; i < lengthof(how); i++)
	{
		const char *name = quote_identifier(psprintf("%s%s", base, trigger_suffixes[i]));

		if (SPI_execute(psprintf("CREATE TRIGGER %s %s", name, psprintf(how[i], on, ext, args)),
						false, 0) != SPI_OK_UTILITY)
			elog(ERROR, "segpipe could not create trigger %s", name);
	}
	SPI_finish();
	sp_settings_end(nest);
}

/*
 * the relations that carry the triggers of entry e, and their names, in
 * cxt (outside the caller's SPI connection, which frees its own memory)
 */
static int
triggers_of(const MaintainEntry *e, Oid **rels, char ***names, MemoryContext cxt)
{
	Oid			types[5] = {OIDARRAYOID, BYTEAOID, BYTEAOID, BYTEAOID, OIDOID};
	Datum		fns[2] = {ObjectIdGetDatum(trigger_function("segpipe_insert_trigger")),
	ObjectIdGetDatum(trigger_function("segpipe_change_trigger"))};
	Datum		v[5];
	int			n;

	v[0] = PointerGetDatum(construct_array(fns, 2, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	v[1] = PointerGetDatum(trigger_args(e->id, NULL));
	v[2] = PointerGetDatum(trigger_args(e->id, "partition"));
	v[3] = PointerGetDatum(trigger_args(e->id, "citus"));
	v[4] = ObjectIdGetDatum(e->readings);
	/* (Citus's copies on the shards go with the distributed readings' own) */
	if (SPI_execute_with_args("SELECT t.tgrelid, t.tgname::pg_catalog.text FROM pg_catalog.pg_trigger AS t "
							  "WHERE t.tgfoid = ANY ($1) AND (t.tgargs = $2 OR t.tgargs = $3 "
							  "OR (t.tgargs = $4 AND t.tgrelid = $5)) ORDER BY 1, 2",
							  5, types, v, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "segpipe could not read its triggers");
	n = SPI_processed;
	*rels = MemoryContextAlloc(cxt, sizeof(Oid) * Max(n, 1));
	*names = MemoryContextAlloc(cxt, sizeof(char *) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		(*rels)[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		(*names)[i] = MemoryContextStrdup(cxt, SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2));
	}
	return n;
}

/* drop the triggers of entry e on rel (InvalidOid: on every relation) */
static void
drop_triggers(const MaintainEntry *e, Oid rel)
{
	Oid		   *rels;
	char	  **names;
	int			n;

	MemoryContext cxt = CurrentMemoryContext;
	/* (as make_triggers: Citus drops the shards' copies with them) */
	int			nest = maintain_citus_distributed(e->readings) ? maintain_citus_ddl_begin() : 0;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	n = triggers_of(e, &rels, &names, cxt);
	dropping_own = true;
	PG_TRY();
	{
		for (int i = 0; i < n; i++)
			if (!OidIsValid(rel) || rels[i] == rel)
				if (SPI_execute(psprintf("DROP TRIGGER %s ON %s", quote_identifier(names[i]), qualified(rels[i])),
								false, 0) != SPI_OK_UTILITY)
					elog(ERROR, "segpipe could not drop trigger %s", names[i]);
	}
	PG_FINALLY();
	{
		dropping_own = false;
	}
	PG_END_TRY();
	SPI_finish();
	sp_settings_end(nest);
}

/*
 * segpipe_maintain_triggers(results, rel): the triggers of a results
 * table on rel, its readings or a partition of them (segpipe_maintain).
 */
Datum
segpipe_maintain_triggers(PG_FUNCTION_ARGS)
{
	MaintainEntry *e = maintain_entry_required(PG_GETARG_OID(0));
	Oid			rel = PG_GETARG_OID(1);

	if (rel != e->readings &&
		(!get_rel_relispartition(rel) || !list_member_oid(get_partition_ancestors(rel), e->readings)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("\"%s\" is neither the readings of \"%s\" nor one of their partitions",
						get_rel_name(rel), get_rel_name(e->results))));
	if (rel == e->readings)
		maintain_drops_require_preload(rel);
	if (!has_triggers(rel, e))
		make_triggers(e, rel);
	PG_RETURN_VOID();
}

/*
 * segpipe_unmaintain(results, drop_tables): the triggers go, the pg_cron
 * job, and the catalog's row; with drop_tables, also the tables and the
 * view set-up made, and its index on the readings unless another results
 * table uses it.
 */
Datum
segpipe_unmaintain(PG_FUNCTION_ARGS)
{
	MaintainEntry *e;
	bool		citus;
	int			nest;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("argument \"%s\" must not be null", PG_ARGISNULL(0) ? "results" : "drop_tables")));
	e = maintain_entry_required(PG_GETARG_OID(0));
	/* (the owner's check, before anything is dropped) */
	if (get_rel_relkind(e->readings) != '\0' && !SP_CLASS_OWNERCHECK(e->readings, GetUserId()))
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_PRIVILEGE),
				 errmsg("must be owner of table %s", get_rel_name(e->readings))));

	/*
	 * Citus: the coordinator's row first takes those of its shard groups
	 * (detach, on the nodes that hold them), whose triggers are Citus's
	 * copies of the distributed readings' and go with them; a shard group's
	 * row alone takes no trigger.
	 */
	citus = e->shard_of == 0 && maintain_citus_distributed(e->readings);
	nest = citus ? maintain_citus_ddl_begin() : 0;
	if (citus)
		(void) maintain_citus_shards(e->results, "detach", NULL);
	if (e->shard_of == 0)
		drop_triggers(e, InvalidOid);
	if (citus)
		(void) maintain_citus_shards(e->results, "untrigger", NULL);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (e->cron_job != NULL && OidIsValid(get_extension_oid("pg_cron", true)))
	{
		Oid			t = TEXTOID;
		Datum		v = CStringGetTextDatum(e->cron_job);
		char	   *cron;

		/* pg_cron's schema: that of its own function unschedule(), by membership */
		if (SPI_execute("SELECT n.nspname FROM pg_catalog.pg_proc AS p "
						"JOIN pg_catalog.pg_namespace AS n ON n.oid = p.pronamespace "
						"JOIN pg_catalog.pg_depend AS d ON d.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass "
						"AND d.objid = p.oid AND d.deptype = 'e' "
						"JOIN pg_catalog.pg_extension AS x ON x.oid = d.refobjid AND x.extname = 'pg_cron' "
						"WHERE p.proname = 'unschedule' LIMIT 1", true, 0) != SPI_OK_SELECT || SPI_processed != 1)
			elog(ERROR, "segpipe could not find pg_cron's unschedule()");
		cron = pstrdup(quote_identifier(SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1)));
		if (SPI_execute_with_args(psprintf("SELECT pg_catalog.count(%1$s.unschedule(j.jobid)) FROM %1$s.job AS j WHERE j.jobname = $1",
										   cron),
								  1, &t, &v, NULL, false, 0) != SPI_OK_SELECT)
			elog(ERROR, "segpipe could not unschedule its pg_cron job");
	}
	maintain_entry_delete(e);
	/* the set-up's copy on every node goes with it */
	if (citus)
		maintain_citus_publish(e->id);
	if (PG_GETARG_BOOL(1))
	{
		int			n;
		MaintainEntry **all = maintain_entries_all(&n);
		bool		index_used = false;
		Oid			drop[] = {e->state_rel, e->ckpt_rel, e->hb_rel, e->results};

		for (int i = 0; i < n; i++)
			index_used |= all[i]->index_rel == e->index_rel;
		dropping_own = true;
		PG_TRY();
		{
			if (OidIsValid(e->view_rel) && get_rel_relkind(e->view_rel) == RELKIND_VIEW)
				SPI_execute(psprintf("DROP VIEW %s", qualified(e->view_rel)), false, 0);
			for (int i = 0; i < lengthof(drop); i++)
				if (OidIsValid(drop[i]) && get_rel_relkind(drop[i]) == RELKIND_RELATION)
					SPI_execute(psprintf("DROP TABLE %s", qualified(drop[i])), false, 0);
			if (OidIsValid(e->index_rel) && !index_used &&
				(get_rel_relkind(e->index_rel) == RELKIND_INDEX || get_rel_relkind(e->index_rel) == RELKIND_PARTITIONED_INDEX))
				SPI_execute(psprintf("DROP INDEX %s", qualified(e->index_rel)), false, 0);
		}
		PG_FINALLY();
		{
			dropping_own = false;
		}
		PG_END_TRY();
	}
	SPI_finish();
	sp_settings_end(nest);
	PG_RETURN_VOID();
}

/* ---- event triggers ---- */

/*
 * Row-level security on maintained readings would make a correction see
 * only the rows the changing role may see (erasing the emissions of other
 * inserters' rows), and put aggregates of rows a policy hides into the
 * results: segpipe_maintain() refuses such readings, and enabling it later
 * is refused here.
 */
static void
refuse_row_security(const MaintainEntry *e, List *tree)
{
	ListCell   *lc;

	foreach(lc, tree)
	{
		HeapTuple	t = SearchSysCache1(RELOID, ObjectIdGetDatum(lfirst_oid(lc)));
		bool		rls;

		if (!HeapTupleIsValid(t))
			continue;
		rls = ((Form_pg_class) GETSTRUCT(t))->relrowsecurity;
		ReleaseSysCache(t);
		if (rls)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("row-level security cannot be enabled on \"%s\": segpipe maintains results from it",
							get_rel_name(lfirst_oid(lc))),
					 errdetail("Corrections run every reading of a sensor again; under row-level security they would see only the rows the changing role may see, and the results \"%s\" would hold aggregates of rows a policy hides.",
							   get_rel_name(e->results)),
					 errhint("Put row-level security on the results table instead, or run segpipe_unmaintain() first.")));
	}
}

/*
 * At the end of every CREATE TABLE and ALTER TABLE: a relation that joined
 * maintained readings (created as a partition, or attached with its rows)
 * gets the triggers and its rows are run; one that left them (detached)
 * loses them and its sensors are run without its rows.
 */
Datum
segpipe_partitions_changed(PG_FUNCTION_ARGS)
{
	int			nroots;
	Oid		   *roots;
	int			nentries;
	MaintainEntry **entries;
	int			nest;
	MemoryContext cxt = CurrentMemoryContext;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		elog(ERROR, "segpipe_partitions_changed() was not called by the event trigger manager");
	entries = maintain_entries_all(&nentries);
	if (nentries == 0)
		PG_RETURN_VOID();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT DISTINCT coalesce(pg_catalog.pg_partition_root(c.objid)::pg_catalog.oid, c.objid) "
					"FROM pg_catalog.pg_event_trigger_ddl_commands() AS c "
					"WHERE c.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND c.object_type = 'table'",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "segpipe could not read the DDL commands");
	nroots = SPI_processed;
	roots = MemoryContextAlloc(cxt, sizeof(Oid) * Max(nroots, 1));
	for (int i = 0; i < nroots; i++)
	{
		bool		isnull;

		roots[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
	}
	SPI_finish();

	nest = sp_settings_begin(maintain_settings, maintain_n_settings,
							 SP_SETTINGS_ALL(maintain_n_settings));
	for (int r = 0; r < nroots; r++)
		for (int k = 0; k < nentries; k++)
		{
			MaintainEntry *e = entries[k];
			MaintainPlans *mp;
			List	   *tree;
			Oid		   *rels;
			char	  **names;
			int			n;
			ListCell   *lc;

			if (e->readings != roots[r])
				continue;
			mp = maintain_plans_for(e->id);
			tree = find_all_inheritors(e->readings, NoLock, NULL);
			refuse_row_security(e, tree);
			/* a hypertable's chunks: its own triggers see their rows */
			if (maintain_drops_hypertable(e->readings))
				tree = list_make1_oid(e->readings);
			/* left: relations with the partition triggers, out of the tree */
			if (SPI_connect() != SPI_OK_CONNECT)
				elog(ERROR, "SPI_connect failed");
			n = triggers_of(e, &rels, &names, cxt);
			SPI_finish();
			for (int i = 0; i < n; i++)
				if (!list_member_oid(tree, rels[i]) && (i == 0 || rels[i] != rels[i - 1]))
				{
					drop_triggers(e, rels[i]);
					if (get_rel_relkind(rels[i]) == RELKIND_RELATION)
						maintain_correct_relation(mp, rels[i], false);
				}
			/* joined: relations of the tree without the triggers */
			foreach(lc, tree)
			{
				Oid			rel = lfirst_oid(lc);

				if (rel == e->readings || has_triggers(rel, e))
					continue;
				make_triggers(e, rel);
				if (get_rel_relkind(rel) == RELKIND_RELATION)
					maintain_correct_relation(mp, rel, false);
			}
		}
	sp_settings_end(nest);
	PG_RETURN_VOID();
}

/*
 * What a DROP may take away, noted when it starts (ddl_command_start) for
 * its sql_drop to check: after the drop, the dropped partitions' parents
 * and the dropped triggers' arguments are gone from the catalogs.  Kept in
 * the backend, where no role can set it.
 */
typedef struct Watched
{
	int32		id;				/* the catalog row */
	Oid			oid;			/* a partition of its readings, or one of its triggers */
	bool		trigger;
} Watched;

static Watched *watched = NULL;
static int	nwatched = -1;		/* -1: no DROP started */

static void
watch(MemoryContext cxt, int *cap, int32 id, Oid oid, bool trigger)
{
	if (nwatched == *cap)
		watched = repalloc(watched, sizeof(Watched) * (*cap *= 2));
	watched[nwatched].id = id;
	watched[nwatched].oid = oid;
	watched[nwatched++].trigger = trigger;
}

static void
watch_drop(void)
{
	int			n;
	MaintainEntry **e = maintain_entries_all(&n);
	int			cap = 16;
	Oid			types[1] = {OIDARRAYOID};
	Datum		fns[2];
	Datum		v[1];
	List	  **trees;

	if (watched != NULL)
		pfree(watched);
	watched = MemoryContextAlloc(TopMemoryContext, sizeof(Watched) * cap);
	nwatched = 0;
	if (n == 0)
		return;
	trees = palloc(sizeof(List *) * n);
	for (int k = 0; k < n; k++)
	{
		ListCell   *lc;

		trees[k] = find_all_inheritors(e[k]->readings, NoLock, NULL);
		foreach(lc, trees[k])
			if (lfirst_oid(lc) != e[k]->readings)
				watch(TopMemoryContext, &cap, e[k]->id, lfirst_oid(lc), false);
	}
	fns[0] = ObjectIdGetDatum(trigger_function("segpipe_insert_trigger"));
	fns[1] = ObjectIdGetDatum(trigger_function("segpipe_change_trigger"));
	v[0] = PointerGetDatum(construct_array(fns, 2, OIDOID, sizeof(Oid), true, TYPALIGN_INT));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/*
	 * The later of two twins (same relation, function, row and events) is
	 * not watched: both refuse to run while both exist
	 * (maintain_trigger_plans), and dropping the later leaves the first.
	 */
	if (SPI_execute_with_args("SELECT t.oid, pg_catalog.split_part(pg_catalog.encode(t.tgargs, 'escape'), '\\000', 1), t.tgrelid, "
							  "pg_catalog.lag(t.oid) OVER (PARTITION BY t.tgrelid, t.tgfoid, t.tgtype, t.tgargs ORDER BY t.oid) IS NOT NULL "
							  "FROM pg_catalog.pg_trigger AS t WHERE t.tgfoid = ANY ($1) AND t.tgnargs >= 1",
							  1, types, v, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "segpipe could not read its triggers");
	for (uint64 i = 0; i < SPI_processed; i++)
	{
		bool		isnull;
		Oid			oid = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		char	   *arg = SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2);
		Oid			rel = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 3, &isnull));

		if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 4, &isnull)))
			continue;

		/* a trigger of the row's, on its readings or a partition of them */
		for (int k = 0; k < n; k++)
			if (arg != NULL && strcmp(arg, psprintf("%d", e[k]->id)) == 0 && list_member_oid(trees[k], rel))
				watch(TopMemoryContext, &cap, e[k]->id, oid, true);
	}
	SPI_finish();
}

/*
 * sql_drop: a DROP TABLE of a partition of maintained readings takes its
 * rows away without a trigger firing, so dropping a partition, one of the
 * triggers segpipe made, or a table of maintained results is refused
 * (DETACH the partition first, or run segpipe_unmaintain()).  Dropping the
 * readings themselves goes through, and their row leaves the catalog.
 */
Datum
segpipe_triggers_dropped(PG_FUNCTION_ARGS)
{
	int			n,
				nentries;
	MaintainEntry **entries;
	Oid		   *objs;
	bool	   *is_trigger;
	char	  **identity;
	MemoryContext cxt = CurrentMemoryContext;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		elog(ERROR, "segpipe_triggers_dropped() was not called by the event trigger manager");
	/* (the extension itself going: nothing of it to keep) */
	if (dropping_own || !OidIsValid(get_extension_oid("segpipe", true)))
		PG_RETURN_VOID();
	entries = maintain_entries_all(&nentries);
	if (nentries == 0)
		PG_RETURN_VOID();
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute("SELECT o.objid, o.object_type = 'trigger', o.object_identity FROM pg_catalog.pg_event_trigger_dropped_objects() AS o "
					"WHERE o.object_type IN ('table', 'foreign table', 'trigger')",
					true, 0) != SPI_OK_SELECT)
		elog(ERROR, "segpipe could not read the dropped objects");
	n = SPI_processed;
	objs = MemoryContextAlloc(cxt, sizeof(Oid) * Max(n, 1));
	is_trigger = MemoryContextAlloc(cxt, sizeof(bool) * Max(n, 1));
	identity = MemoryContextAlloc(cxt, sizeof(char *) * Max(n, 1));
	for (int i = 0; i < n; i++)
	{
		bool		isnull;

		objs[i] = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull));
		is_trigger[i] = DatumGetBool(SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &isnull));
		identity[i] = MemoryContextStrdup(cxt, SPI_getvalue(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 3));
	}
	SPI_finish();

	for (int k = 0; k < nentries; k++)
	{
		MaintainEntry *e = entries[k];
		Oid			own[] = {e->results, e->state_rel, e->ckpt_rel, e->hb_rel};
		bool		readings_gone = false;

		for (int i = 0; i < n; i++)
			readings_gone |= !is_trigger[i] && objs[i] == e->readings;
		/*
		 * Citus moves and drops the shards of a shard group's row (after a
		 * rebalance, a split, a drop on the coordinator): when one of them
		 * goes, the group has left this node, and so does its row.
		 */
		for (int i = 0; i < n && e->shard_of != 0; i++)
			for (int j = 0; j < lengthof(own); j++)
				readings_gone |= !is_trigger[i] && OidIsValid(own[j]) && objs[i] == own[j];
		if (readings_gone)
		{
			/* nothing is maintained any more: the row goes */
			maintain_entry_delete(e);
			continue;
		}
		for (int i = 0; i < n; i++)
		{
			if (is_trigger[i])
				continue;
			for (int j = 0; j < lengthof(own); j++)
				if (OidIsValid(own[j]) && objs[i] == own[j])
					ereport(ERROR,
							(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
							 errmsg("cannot drop table %s: segpipe maintains results in it", identity[i]),
							 errdetail("It is a table of the maintained results \"%s\".",
									   get_rel_name(e->results) ? get_rel_name(e->results) : "?"),
							 errhint("Run segpipe_unmaintain() first (drop_tables => true drops its tables too).")));
		}
		for (int w = 0; w < nwatched; w++)
			for (int i = 0; i < n; i++)
				if (watched[w].id == e->id && watched[w].oid == objs[i] && watched[w].trigger == is_trigger[i])
					ereport(ERROR,
							(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
							 errmsg("cannot drop %s %s: segpipe maintains results from it",
									is_trigger[i] ? "trigger" : "table", identity[i]),
							 errdetail("Dropping a partition (or its triggers) of maintained readings would leave its rows in the results."),
							 errhint("Detach the partition first (its rows then leave the results), or run segpipe_unmaintain().")));
	}
	nwatched = -1;
	PG_RETURN_VOID();
}

/*
 * ddl_command_start of the DROPs: what they may take away is noted
 * (watch_drop), and segpipe is not dropped while it maintains results,
 * CASCADE or not: its type's columns in the state and checkpoint tables of
 * other roles would go with it, and a pg_cron job would be left behind.
 */
static void
refuse_extension_drop(const char *how)
{
	int			n;

	(void) maintain_entries_all(&n);
	if (n > 0)
		ereport(ERROR,
				(errcode(ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST),
				 errmsg_plural("cannot drop extension segpipe because it maintains %d results table",
							   "cannot drop extension segpipe because it maintains %d results tables", n, n),
				 errdetail("%s would drop the extension, the state columns of those tables with it, and leave their triggers and jobs behind.",
						   how),
				 errhint("Run segpipe_unmaintain() on each results table of the view segpipe_maintained first.")));
}

Datum
segpipe_drop_starting(PG_FUNCTION_ARGS)
{
	EventTriggerData *trig;
	ListCell   *lc;
	Oid			ext;

	if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
		elog(ERROR, "segpipe_drop_starting() was not called by the event trigger manager");
	trig = (EventTriggerData *) fcinfo->context;
	ext = get_extension_oid("segpipe", true);
	if (!OidIsValid(ext))
		PG_RETURN_VOID();
	/* the extension goes with a DROP EXTENSION, a DROP SCHEMA of its schema, a DROP OWNED of its owner */
	if (IsA(trig->parsetree, DropStmt) && ((DropStmt *) trig->parsetree)->removeType == OBJECT_EXTENSION)
	{
		foreach(lc, ((DropStmt *) trig->parsetree)->objects)
			if (strcmp(strVal(lfirst(lc)), "segpipe") == 0)
			{
				refuse_extension_drop("DROP EXTENSION");
				maintain_citus_release();
			}
	}
	else if (IsA(trig->parsetree, DropStmt) && ((DropStmt *) trig->parsetree)->removeType == OBJECT_SCHEMA)
	{
		foreach(lc, ((DropStmt *) trig->parsetree)->objects)
			if (get_namespace_oid(strVal(lfirst(lc)), true) == maintain_schema_of_extension(ext))
			{
				refuse_extension_drop("DROP SCHEMA");
				maintain_citus_release();
			}
	}
	else if (IsA(trig->parsetree, DropOwnedStmt))
	{
		foreach(lc, ((DropOwnedStmt *) trig->parsetree)->roles)
			if (get_rolespec_oid((RoleSpec *) lfirst(lc), true) == maintain_owner_of_extension(ext))
			{
				refuse_extension_drop("DROP OWNED");
				maintain_citus_release();
			}
	}
	watch_drop();
	PG_RETURN_VOID();
}
