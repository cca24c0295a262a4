/*
 * maintain_sql.h
 *	  The statements that maintain a results table, built from its catalog
 *	  row (maintain_catalog.h) and prepared once per backend.
 *
 * Every table, column, type and operator in them is named by a name looked
 * up from its OID when the statements are built, and they are built again
 * when the catalog row, one of its tables, a schema or the key's type
 * changes (invalidation callbacks).  Before a statement runs, the tables are
 * locked (maintain_plans_for): a table cannot be renamed while it is, and a
 * schema renamed since the statements were built makes them be built again
 * first.  The extension's own functions are named in the extension's schema
 * with exact argument types: those signatures belong to the extension's
 * members there, which no role but the extension's scripts can replace.
 *
 * The statements are written for fixed settings (sp_settings.h:
 * maintain_settings), under which they are prepared and run.
 */
#ifndef MAINTAIN_SQL_H
#define MAINTAIN_SQL_H

#include "executor/spi.h"

#include "maintain_cache.h"
#include "maintain_catalog.h"
#include "sp_settings.h"

typedef enum MaintainStatement
{
	/* the insert trigger's (maintain_insert.c explains each) */
	MS_INS_LOCK,				/* $1 sensors: insert new ones, lock all */
	MS_INS_READ,				/* $1 sensors: (ordinal, state, sensor, ctid, tableoid) */
	MS_INS_ROWS,				/* the rows of segpipe_new: sensor, ts, value, key */
	MS_INS_SAVE,				/* $1 sensors, $2 states */
	MS_INS_EMIT,				/* $1 sensors, $2 ts, $3 keys, $4 ports, $5 values */
	MS_INS_CKPT,				/* $1 sensors, $2 ts, $3 states */
	MS_INS_SORTED,				/* $1 sensors: run from their states, sorted */
	MS_INS_LATE,				/* $1 sensors: (sensors, since) of their late rows */
	MS_INS_LOCKREAD,			/* $1 sensors: states locked in order */
	MS_INS_PRUNE,				/* $1 sensors: checkpoints past the horizon */
	/* corrections ($1 parts, $2 since, $3 excluded, $4 touched, $5 spec) */
	MS_COR_KEEP,				/* beyond 'keep': (parts, since) within the horizon */
	MS_COR_ERROR,				/* beyond 'error': the first change past it */
	MS_COR_LOCK,				/* insert new states, lock all, in order */
	MS_COR_HB_GONE,				/* heartbeats of sensors without readings */
	MS_COR_DELETE,				/* checkpoints and results after the base */
	MS_COR_RUN,					/* the run from the base, saved */
	MS_COR_GONE,				/* states of sensors without readings */
	MS_COR_PRUNE,				/* checkpoints past the horizon ($4); also $1 */
	/* a correction's run in C (maintain_rerun.h), one sensor $1 */
	MS_COR_BASE,				/* $2 since: the base (ts, state), the state
								 * row (ctid, sensor), whether
								 * MS_COR_DELETE_SINCE has work */
	MS_COR_DELETE1,				/* $2 since: MS_COR_DELETE's, by its index entries */
	MS_COR_DELETE_SINCE,		/* $2 since: the same, but results before $2 */
	MS_COR_ROWS,				/* $2 from, $3 excluded: (ts, value, key) in ts order */
	MS_COR_ROWS_FROM,			/* $2 from, nothing excluded */
	MS_COR_ROWS_ALL,			/* no base, nothing excluded */
	MS_COR_SAVE,				/* $2 its state */
	MS_COR_STALE,				/* $2 ts: its checkpoint there goes */
	/* the change trigger's, over segpipe_old and segpipe_new */
	MS_CHG_UPDATE,				/* (parts, since) of an UPDATE */
	MS_CHG_DELETE,				/* (parts, since) of a DELETE */
	MS_CHG_CLEAR_HB,			/* a TRUNCATE of the readings: all goes */
	MS_CHG_CLEAR_RESULTS,
	MS_CHG_CLEAR_CKPT,
	MS_CHG_CLEAR_STATE,
	/* segpipe_close_silent ($1 watermark time) */
	MS_CLOSE_LOCK,				/* the sensors behind it, locked */
	MS_CLOSE_RUN,				/* $1 w, $2 parts: heartbeats applied */
	/* segpipe_rebuild: every sensor with readings or a state */
	MS_REBUILD_ALL,
	MS_REBUILD_COUNT,			/* $1 sensors: how many readings they have */
	MS_N
} MaintainStatement;

/* One results table's statements in a backend. */
typedef struct MaintainPlans
{
	int32		id;				/* hash key: the catalog row's id */
	MemoryContext cxt;
	MemoryContext names_cxt;	/* the names and statements' text, in cxt */
	MaintainEntry *entry;		/* in cxt */
	uint64		catalog_changes;	/* maintain_catalog_changes() when read */
	uint64		generation;		/* of the names the statements hold */
	bool		valid;
	/* names, quoted, as looked up when built */
	char	   *ext;			/* the extension's schema */
	char	   *readings;
	char	   *state;
	char	   *results;
	char	   *ckpt;
	char	   *hb;
	char	   *part;
	char	   *ts;
	char	   *value;
	char	   *part_typ;		/* the sensor column's type (typmod too) */
	char	   *part_coll;		/* " COLLATE x.y" or "" */
	char	   *v_type;
	char	   *key_typ;
	char	   *key_ord;		/* how keys are ordered among equal ts and value */
	char	   *eq_op;			/* the state key's equality, OPERATOR(x.=) */
	char	   *hb_cols;		/* a heartbeat's row over a sensor's latest reading */
	char	   *horizon;		/* literals, or NULL */
	char	   *watermark;
	Oid			part_type;
	Oid			pipeline_type;
	bool		array;			/* values are float8[] */
	char	   *sql[MS_N];
	SPIPlanPtr	plans[MS_N];
	FmgrInfo	flinfo;			/* parsed configurations (sp_config_cache.h) */
	StateCache	cache;			/* the insert trigger's runs (maintain_cache.h) */
} MaintainPlans;

/* The settings the statements are written for. */
extern const SpSetting maintain_settings[];
extern const int maintain_n_settings;

/*
 * The statements of catalog row id, valid now: its tables locked (the
 * readings AccessShareLock, the others RowExclusiveLock), its names looked
 * up again when anything they depend on changed.  NULL when the catalog has
 * no such row.  Call under maintain_settings.  In two steps for the
 * triggers, which check the row against the table they fire on before
 * anything of it is locked: maintain_plans_entry (the row, read again only
 * when its version changed), then maintain_plans_ready.
 */
extern MaintainPlans *maintain_plans_for(int32 id);
extern MaintainPlans *maintain_plans_entry(int32 id);
extern void maintain_plans_ready(MaintainPlans *mp);

/*
 * Statement which of mp, prepared (generic plan) and kept; nargs and
 * argtypes as its comment above says.  Call inside SPI.
 */
extern SPIPlanPtr maintain_plan(MaintainPlans *mp, MaintainStatement which, int nargs,
								Oid *argtypes);

/* The correction's parameter types ($1 .. $5), for maintain_plan. */
extern void maintain_correct_argtypes(MaintainPlans *mp, Oid *argtypes);

/* An array type, or an error. */
extern Oid	maintain_array_type(Oid elem);

/*
 * Whether a read-only query of another extension's catalog, with one OID
 * parameter $1, returns a row (in an SPI connection of its own; what is
 * wrong is said as "segpipe could not read <what>").
 */
extern bool maintain_sql_finds(const char *query, Oid arg, const char *what);

#endif							/* MAINTAIN_SQL_H */
