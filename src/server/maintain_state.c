/*
 * maintain_state.c
 *	  A maintained results table's states, written in place by the insert
 *	  trigger and by corrections (maintain_state.h).
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"

#include "sp_compat.h"
#include "maintain_state.h"
#include "maintain_tables.h"

struct StateTable
{
	Relation	rel;
	AttrNumber	part_att;
	AttrNumber	state_att;
	int16		part_len;
	bool		part_byval;
	Datum	   *values;			/* a new version: the sensor, the state, */
	bool	   *nulls;			/* and NULL for dropped columns */
	EState	   *estate;			/* for index entries, made when first needed */
	ResultRelInfo *rri;
	TupleTableSlot *slot;
	TupleTableSlot *lock_slot;	/* for maintain_state_lock, when first needed */
	BlockNumber nblocks;		/* the table's blocks then */
};

/*
 * Whether rel is as segpipe_maintain made it, and what an UPDATE of its
 * state column would run is only the heap update and the index entries.
 */
static bool
as_made(Relation rel, const char *part_name, Oid part_type, Oid pipeline_type,
		AttrNumber *part_att, AttrNumber *state_att)
{
	TupleDesc	desc = RelationGetDescr(rel);

	if (rel->rd_rel->relkind != RELKIND_RELATION || rel->rd_rel->relam != HEAP_TABLE_AM_OID ||
		rel->trigdesc != NULL || rel->rd_rules != NULL || rel->rd_rel->relrowsecurity)
		return false;
	if (desc->constr != NULL && (desc->constr->num_check > 0 || desc->constr->has_generated_stored))
		return false;
	return maintain_table_has_shape(rel, MT_STATE, part_name, part_type, InvalidOid, pipeline_type,
									part_att, state_att);
}

/* The rights on a column that a statement checks: the table's, or the column's. */
static bool
may(Relation rel, AttrNumber att, AclMode mode)
{
	return pg_class_aclcheck(RelationGetRelid(rel), GetUserId(), mode) == ACLCHECK_OK ||
		pg_attribute_aclcheck(RelationGetRelid(rel), att, GetUserId(), mode) == ACLCHECK_OK;
}

StateTable *
maintain_state_open(Oid relid, const char *part_name, Oid part_type, Oid pipeline_type)
{
	Relation	rel = try_table_open(relid, RowExclusiveLock);
	AttrNumber	part_att,
				state_att;
	StateTable *t;

	if (rel == NULL)
		return NULL;
	/* the rights the statements that lock, read and update the states check */
	if (!as_made(rel, part_name, part_type, pipeline_type, &part_att, &state_att) ||
		!may(rel, part_att, ACL_SELECT) || !may(rel, state_att, ACL_SELECT) ||
		!may(rel, state_att, ACL_UPDATE))
	{
		table_close(rel, NoLock);
		return NULL;
	}
	/* a table published for updates must identify its rows, as for UPDATE */
	CheckCmdReplicaIdentity(rel, CMD_UPDATE);

	t = palloc0(sizeof(StateTable));
	t->rel = rel;
	t->part_att = part_att;
	t->state_att = state_att;
	t->part_len = TupleDescAttr(RelationGetDescr(rel), part_att - 1)->attlen;
	t->part_byval = TupleDescAttr(RelationGetDescr(rel), part_att - 1)->attbyval;
	t->values = palloc0(sizeof(Datum) * RelationGetDescr(rel)->natts);
	t->nulls = palloc(sizeof(bool) * RelationGetDescr(rel)->natts);
	memset(t->nulls, true, sizeof(bool) * RelationGetDescr(rel)->natts);
	t->nulls[part_att - 1] = t->nulls[state_att - 1] = false;
	t->nblocks = InvalidBlockNumber;
	return t;
}

bool
maintain_state_lock(StateTable *t, ItemPointer tid, Datum part, FmgrInfo *cmp, Oid coll,
					Datum *stored_part, Datum *state)
{
	HeapTupleData tup;
	Buffer		buf;
	TM_FailureData tmfd;
	TM_Result	res;
	Snapshot	snap = GetActiveSnapshot();
	Datum		d;
	bool		isnull;
	bool		ours;

	/* the table may have shrunk since (VACUUM, TRUNCATE): read no block past its end */
	if (t->nblocks == InvalidBlockNumber)
		t->nblocks = RelationGetNumberOfBlocks(t->rel);
	if (!ItemPointerIsValid(tid) || ItemPointerGetBlockNumber(tid) >= t->nblocks)
		return false;

	/*
	 * Only a version the snapshot sees: one rolled back or replaced is not
	 * locked (heap_lock_tuple refuses an invisible one with an error).
	 */
	tup.t_self = *tid;
	if (!heap_fetch(t->rel, snap, &tup, &buf, false))
		return false;

	/*
	 * The sensor's row, before it is locked: once pruned, a version's line
	 * pointer can hold another sensor's row, and locking that one would
	 * take a lock out of the sensors' order, which deadlocks with another
	 * inserter.  What the snapshot sees stays there while it is held.
	 */
	d = heap_getattr(&tup, t->part_att, RelationGetDescr(t->rel), &isnull);
	ours = !isnull && DatumGetInt32(FunctionCall2Coll(cmp, coll, d, part)) == 0;

	/*
	 * Prune the page, as an index scan that found the row would: the rows
	 * are updated on every statement and no longer reached by scans, and
	 * without it the page fills with dead versions and the updates stop
	 * being heap-only ones.  (tup points into the page: not read after.)
	 */
	heap_page_prune_opt(t->rel, buf);
	ReleaseBuffer(buf);
	if (!ours)
		return false;

	if (t->lock_slot == NULL)
		t->lock_slot = table_slot_create(t->rel, NULL);
	/* as FOR UPDATE locks, waiting for a writer; a newer version is the caller's */
	res = table_tuple_lock(t->rel, tid, snap, t->lock_slot, GetCurrentCommandId(true),
						   LockTupleExclusive, LockWaitBlock, 0, &tmfd);
	if (res != TM_Ok)
		return false;

	/* locked: the version seen above, still the sensor's */
	d = slot_getattr(t->lock_slot, t->part_att, &isnull);
	ours = !isnull && DatumGetInt32(FunctionCall2Coll(cmp, coll, d, part)) == 0;
	if (ours)
	{
		*stored_part = datumCopy(d, t->part_byval, t->part_len);
		d = slot_getattr(t->lock_slot, t->state_att, &isnull);
		ours = !isnull;
		if (ours)
			*state = datumCopy(d, false, -1);
	}
	ExecClearTuple(t->lock_slot);
	return ours;
}

/* The index entries of a new version that is not heap-only (or BRIN's). */
static void
index_entries(StateTable *t, HeapTuple tup, bool only_summarizing)
{
	if (t->estate == NULL)
	{
		t->estate = CreateExecutorState();
		t->rri = makeNode(ResultRelInfo);
		InitResultRelInfo(t->rri, t->rel, 1, NULL, 0);
		ExecOpenIndices(t->rri, false);
		t->slot = ExecInitExtraTupleSlot(t->estate, RelationGetDescr(t->rel),
										 &TTSOpsHeapTuple);
	}
	ExecStoreHeapTuple(tup, t->slot, false);
	(void) SP_INSERT_INDEX_TUPLES(t->rri, t->slot, t->estate, only_summarizing);
	ExecClearTuple(t->slot);
	ResetPerTupleExprContext(t->estate);
}

void
maintain_state_write(StateTable *t, ItemPointer tid, Datum part, Datum state)
{
	HeapTupleData old;
	Buffer		buf;
	HeapTuple	tup;
	bool		all,
				summarizing;
	bool		isnull;
	Datum		old_part;

	/*
	 * The address comes from a statement or from this backend's cache: before the update
	 * reads the page at it, check that a tuple is there and is the sensor's
	 * (its pin, kept over the update, keeps the page from being pruned).
	 */
	old.t_self = *tid;
	if (!heap_fetch(t->rel, SnapshotAny, &old, &buf, true))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("no state row of \"%s\" at %s",
						RelationGetRelationName(t->rel),
						DatumGetCString(DirectFunctionCall1(tidout, PointerGetDatum(tid))))));
	old_part = heap_getattr(&old, t->part_att, RelationGetDescr(t->rel), &isnull);
	if (isnull || !datum_image_eq(old_part, part, t->part_byval, t->part_len))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("the row of \"%s\" at %s is not the sensor's state",
						RelationGetRelationName(t->rel),
						DatumGetCString(DirectFunctionCall1(tidout, PointerGetDatum(tid))))));

	t->values[t->part_att - 1] = part;
	t->values[t->state_att - 1] = state;
	tup = heap_form_tuple(RelationGetDescr(t->rel), t->values, t->nulls);
	/* the row is locked by this transaction: nothing else can change it */
	SP_HEAP_UPDATE(t->rel, tid, tup, &all, &summarizing);
	ReleaseBuffer(buf);
	*tid = tup->t_self;
	if (all || summarizing)
		index_entries(t, tup, !all);
	heap_freetuple(tup);
}

void
maintain_state_close(StateTable *t)
{
	if (t->lock_slot != NULL)
		ExecDropSingleTupleTableSlot(t->lock_slot);
	if (t->estate != NULL)
	{
		ExecDropSingleTupleTableSlot(t->slot);
		ExecCloseIndices(t->rri);
		FreeExecutorState(t->estate);
	}
	table_close(t->rel, NoLock);
	CommandCounterIncrement();
}
