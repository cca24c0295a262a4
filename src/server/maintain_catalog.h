/*
 * maintain_catalog.h
 *	  The catalog of maintained results: one row of the extension's table
 *	  segpipe_catalog per results table that segpipe_maintain set up
 *	  (docs/reference.md "Maintained results", docs/security.md).
 *
 * It is the only way segpipe finds a results table: the triggers carry the
 * row's id, and check that they fire on that row's readings (or one of its
 * partitions); segpipe_rebuild, segpipe_close_silent, segpipe_unmaintain,
 * segpipe_maintained and the event triggers look the row up by the results
 * table's OID.  Tables are kept as regclass (OIDs, which pg_dump writes as
 * names and pg_restore reads back as the new OIDs), columns by name.  No
 * role may write the table: segpipe_catalog_register and
 * segpipe_unmaintain write it, each only for the role that owns
 * the readings.
 */
#ifndef MAINTAIN_CATALOG_H
#define MAINTAIN_CATALOG_H

#include "fmgr.h"
#include "datatype/timestamp.h"
#include "storage/itemptr.h"

typedef enum MaintainLate
{
	LATE_CORRECT,
	LATE_ERROR,
	LATE_DROP
} MaintainLate;

typedef enum MaintainBeyond
{
	BEYOND_REPLAY,
	BEYOND_ERROR,
	BEYOND_KEEP
} MaintainBeyond;

/* One row, as read (copies in the caller's memory context). */
typedef struct MaintainEntry
{
	int32		id;
	Oid			results;
	Oid			readings;
	Oid			state_rel;
	Oid			ckpt_rel;
	Oid			hb_rel;			/* InvalidOid without a watermark */
	Oid			view_rel;		/* the real-time view, if any */
	Oid			index_rel;		/* the index set-up made on the readings, if any */
	char	   *part_col;
	char	   *ts_col;
	char	   *value_col;
	char	   *key;			/* the key expression, SQL text */
	Oid			key_type;
	Datum		spec;			/* a pipeline */
	MaintainLate late;
	bool		has_horizon;
	Interval	horizon;
	MaintainBeyond beyond;
	bool		has_watermark;
	Interval	watermark;
	char	   *hb_unit;		/* NULL when none */
	char	   *hb_zone;
	bool		has_quiet;
	Interval	quiet;
	char	   *schedule;
	char	   *cron_job;
	int32		shard_of;		/* Citus: the coordinator's row whose shard group this is; 0 if none */
	/* the row version read: a row made again has another */
	TransactionId xmin;
	ItemPointerData tid;
} MaintainEntry;

/* The extension's schema and its type pipeline (by OID, not by name). */
extern Oid	maintain_extension_schema(void);
extern Oid	maintain_schema_of_extension(Oid ext);
extern Oid	maintain_owner_of_extension(Oid ext);
extern Oid	maintain_pipeline_type(void);

/* a relation's owner; InvalidOid when it does not exist */
extern Oid	maintain_rel_owner(Oid relid);

/* the catalog's OID: the extension's table of that name, owned by a superuser */
extern Oid	maintain_catalog_relid(void);

/*
 * The extension's table of that name in its schema, a member of it owned by
 * a superuser (what no other role can put in its place); InvalidOid with
 * missing_ok, else an error saying that what is missing, when there is none.
 */
extern Oid	maintain_extension_table(const char *name, const char *what, bool missing_ok);

/*
 * The catalog's row of that id: cached itself (*same) when the row is still
 * the version cached was read from, else read again; NULL when none.
 */
extern MaintainEntry *maintain_entry_fresh(int32 id, MaintainEntry *cached, bool *same);

/*
 * A count that changes with every change of the catalog that this backend
 * has taken in (segpipe's writes of it send an invalidation): rows cached
 * while it stays the same are still as the catalog has them.
 */
extern uint64 maintain_catalog_changes(void);

/*
 * On a Citus node: the row of the shard group whose readings shard is
 * readings, of the coordinator's row shard_of; NULL when none.
 */
extern MaintainEntry *maintain_entry_of_shard(int32 shard_of, Oid readings);

/* The catalog's row of that results table; NULL when none. */
extern MaintainEntry *maintain_entry_by_results(Oid results);

/*
 * The entry of a results table, or an error naming it as not maintained
 * (42704).
 */
extern MaintainEntry *maintain_entry_required(Oid results);

/*
 * The row of e goes, with no check of the caller: for the callers that
 * checked (segpipe_unmaintain), or whose readings are gone.
 */
extern void maintain_entry_delete(const MaintainEntry *e);

/* Every entry, for the event triggers and segpipe_maintained. */
extern MaintainEntry **maintain_entries_all(int *n);

#endif							/* MAINTAIN_CATALOG_H */
