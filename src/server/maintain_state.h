/*
 * maintain_state.h
 *	  A maintained results table's states, locked at their addresses and
 *	  written in place by the insert trigger (maintain_insert.c) and by a
 *	  correction's run in C (maintain_rerun.c).
 *
 * The trigger has locked each sensor's state row (SELECT ... FOR UPDATE,
 * which also checked the inserting role's right to update the table, or
 * maintain_state_lock at the address it wrote last; a correction, INSERT
 * ... ON CONFLICT DO UPDATE) and knows its tuple's address.  Writing the new states as new versions of those tuples costs a
 * heap update each, where an UPDATE statement would
 * also plan, start and end an executor and find every row again by the
 * key.  It is done only when the table is as segpipe_maintain made it: a
 * heap table of the sensor and the state, without triggers, rules, row
 * security or CHECK constraints, which an UPDATE would run; otherwise the
 * caller saves by its UPDATE statement.
 */
#ifndef MAINTAIN_STATE_H
#define MAINTAIN_STATE_H

#include "fmgr.h"
#include "storage/itemptr.h"

typedef struct StateTable StateTable;

/*
 * The state table relid opened for writing in place (RowExclusiveLock, held
 * to the end of the transaction, as an UPDATE holds it); NULL when the
 * table is gone, is not as segpipe_maintain made it, or the current role
 * may not read it or update its state column (the rights the trigger's
 * statements that lock, read and update the states check).  part_name
 * names the sensor column, pipeline_type is the state column's type.
 */
extern StateTable *maintain_state_open(Oid relid, const char *part_name, Oid part_type,
									   Oid pipeline_type);

/*
 * Lock the row at tid, where this backend last wrote the state of sensor
 * part (maintain_cache.h keeps the address), as the trigger's SELECT ...
 * FOR UPDATE would lock it, without a statement: true, with the row's
 * sensor and state (copies in the current memory context), when a row
 * visible to the transaction's snapshot is there, was not replaced or
 * deleted since, and is the sensor's (cmp under coll says so).  False when
 * any of that fails: the caller then locks and reads by its statements,
 * which wait for, follow or refuse a newer version as SELECT ... FOR UPDATE
 * does.
 */
extern bool maintain_state_lock(StateTable *t, ItemPointer tid, Datum part, FmgrInfo *cmp,
								Oid coll, Datum *stored_part, Datum *state);

/*
 * Replace the state of the row at tid, locked by this transaction, whose
 * sensor is part: a new version of the tuple, with index entries when it
 * is not a heap-only one.  tid becomes the new version's address.
 */
extern void maintain_state_write(StateTable *t, ItemPointer tid, Datum part, Datum state);

/* Done: the writes become visible to the statements that follow. */
extern void maintain_state_close(StateTable *t);

#endif							/* MAINTAIN_STATE_H */
