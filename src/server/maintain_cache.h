/*
 * maintain_cache.h
 *	  The runs whose states a backend's insert trigger wrote, kept to
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
 * The runs of the sensors a statement wrote replace theirs; those of other
 * sensors stay, so a sensor that comes back a few statements later is
 * continued too.  Up to MAINTAIN_CACHE_BYTES of memory per trigger and
 * MAINTAIN_CACHE_BACKEND_BYTES for all of a backend's triggers: a new run
 * that would exceed them pushes out the runs kept longest ago, and is not
 * kept when they are gone.
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
	bool		part_copied;	/* part points to a copy of its own */
	struct varlena *state;		/* the bytes written */
	AggState   *as;				/* the run, in its own context; NULL once gone */
	MemoryContext cxt;
	ItemPointerData tid;		/* where it was written in place, or invalid */
	uint64		stamp;			/* the statement that kept it */
	Size		bytes;			/* memory it holds */
} CachedRun;

typedef struct StateCache
{
	MemoryContext cxt;			/* holds everything kept */
	int			n;				/* runs kept, sorted as their sensors */
	int			max;
	CachedRun  *runs;
	int			n_new;			/* the runs a statement is keeping, sorted */
	int			max_new;
	CachedRun  *new_runs;
	uint64		stamp;			/* statements that kept runs */
	Size		bytes;			/* memory they all hold */
	Oid			key_coll;		/* the collation their keys compare under */
	Oid			rel;			/* the state table of the addresses */
} StateCache;

extern void maintain_cache_init(StateCache *c, MemoryContext parent);

/*
 * The run of sensor part whose stored state is state, when the cache holds
 * one written as exactly those bytes, its keys compared under key_coll:
 * its context moves under cxt, and it is the caller's.  Sensors are asked
 * for in their sort order (cmp, under collation coll), as they were kept;
 * *pos is where the search is, 0 for the first.  NULL otherwise; a run of
 * the sensor written as other bytes is dropped.
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

/*
 * Before a statement looks in the cache: runs that a statement which
 * failed while keeping them left half kept are let go.
 */
extern void maintain_cache_begin(StateCache *c);

/* Forget every run kept (and not taken); before the cache's context goes. */
extern void maintain_cache_clear(StateCache *c);

/*
 * Keep the run as of sensor part (a datum of typlen, typbyval), written as
 * state at tid of table rel (tid invalid when not written in place), its
 * keys compared under key_coll: its context as_cxt moves into the cache.
 * A statement keeps its runs in sensor order, then calls
 * maintain_cache_kept.  False, and nothing kept, when the runs of earlier
 * statements are gone and the caps are still exceeded.
 */
extern bool maintain_cache_keep(StateCache *c, Datum part, int16 typlen, bool typbyval,
								Datum state, ItemPointer tid, Oid rel, Oid key_coll,
								AggState *as, MemoryContext as_cxt);

/*
 * The statement's runs join those kept before, in sensor order (cmp under
 * coll); the runs it took are gone from there.
 */
extern void maintain_cache_kept(StateCache *c, FmgrInfo *cmp, Oid coll);

#endif							/* MAINTAIN_CACHE_H */
