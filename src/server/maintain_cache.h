/*
 * maintain_cache.h
 *	  The runs whose states a backend's insert trigger wrote last, kept to
 *	  continue from without reading the states again (maintain_insert.c).
 *
 * A statement's trigger reads each sensor's state, runs it on, and writes
 * it back; an inserting session usually sends the same sensors again in
 * its next statement.  The trigger keeps, for each sensor it wrote, the
 * run as it was written with a copy of the bytes it wrote.  The next
 * statement's trigger takes a run instead of reading the state only when
 * the state it locked has exactly those bytes: then no other writer came
 * in between (an update, a correction, another session, a rollback all
 * leave other bytes), and a run continued in memory gives what one resumed
 * from its stored state gives (test/integration/resume.py: a resumed run
 * gives, bit for bit, what one run over all the rows gives).
 *
 * Only the last statement's runs are kept, up to MAINTAIN_CACHE_BYTES of
 * memory per trigger (what that statement held already) and
 * MAINTAIN_CACHE_BACKEND_BYTES for all of a backend's triggers.
 */
#ifndef MAINTAIN_CACHE_H
#define MAINTAIN_CACHE_H

#include "fmgr.h"
#include "storage/itemptr.h"

#include "pipeline_agg.h"

#define MAINTAIN_CACHE_BYTES (8 * 1024 * 1024)
#define MAINTAIN_CACHE_BACKEND_BYTES (32 * 1024 * 1024)

typedef struct CachedRun
{
	Datum		part;			/* the sensor, as the statement's rows have it */
	struct varlena *state;		/* the bytes written */
	AggState   *as;				/* the run, in its own context */
	MemoryContext cxt;
	ItemPointerData tid;		/* where it was written in place, or invalid */
} CachedRun;

typedef struct StateCache
{
	MemoryContext cxt;			/* holds everything kept */
	int			n;				/* runs kept, sorted as their sensors */
	int			max;
	CachedRun  *runs;
	Size		bytes;			/* memory they hold */
	Oid			key_coll;		/* the collation their keys compare under */
	Oid			rel;			/* the state table of the addresses */
} StateCache;

extern void maintain_cache_init(StateCache *c, MemoryContext parent);

/*
 * The run of sensor part whose stored state is state, when the cache holds
 * one written as exactly those bytes, its keys compared under key_coll:
 * its context moves under cxt, and it is the caller's.  Sensors are asked for in their sort order (cmp, under
 * collation coll), as they were kept; *pos is where the search is, 0 for
 * the first.  NULL otherwise.
 */
extern AggState *maintain_cache_take(StateCache *c, int *pos, Datum part, Datum state,
									 Oid key_coll, FmgrInfo *cmp, Oid coll, MemoryContext cxt,
									 MemoryContext *as_cxt);

/*
 * Where the state of sensor part was written in place (in table c->rel),
 * when the cache holds its run and knows it; asked in sort order as for
 * maintain_cache_take, from *pos.  The run stays in the cache.
 */
extern bool maintain_cache_address(StateCache *c, int *pos, Datum part, FmgrInfo *cmp, Oid coll,
								   ItemPointer tid);

/* Forget every run kept (and not taken); before the cache's context goes. */
extern void maintain_cache_clear(StateCache *c);

/*
 * Keep the run as of sensor part (a datum of typlen, typbyval), written as
 * state at tid of table rel (tid invalid when not written in place), its
 * keys compared under key_coll: its context as_cxt moves into the cache.
 * False, and nothing kept, when the cache would hold more than
 * MAINTAIN_CACHE_BYTES.
 */
extern bool maintain_cache_keep(StateCache *c, Datum part, int16 typlen, bool typbyval,
								Datum state, ItemPointer tid, Oid rel, Oid key_coll,
								AggState *as, MemoryContext as_cxt);

#endif							/* MAINTAIN_CACHE_H */
