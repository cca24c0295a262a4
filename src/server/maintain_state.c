/*
 * maintain_state.c
 *	  A maintained results table's states, written in place by the insert
 *	  trigger (maintain_state.h).
 */
#include "postgres.h"

#include "access/heapam.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/xact.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "executor/executor.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/rel.h"

#include "sp_compat.h"
#include "maintain_state.h"

struct StateTable
{
	Relation	rel;
	AttrNumber	part_att;
	AttrNumber	state_att;
	Datum	   *values;			/* a new version: the sensor, the state, */
	bool	   *nulls;			/* and NULL for dropped columns */
	EState	   *estate;			/* for index entries, made when first needed */
	ResultRelInfo *rri;
	TupleTableSlot *slot;
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
	*part_att = *state_att = InvalidAttrNumber;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);

		if (att->attisdropped)
			continue;
		if (strcmp(NameStr(att->attname), part_name) == 0 && att->atttypid == part_type)
			*part_att = att->attnum;
		else if (strcmp(NameStr(att->attname), "state") == 0 && att->atttypid == pipeline_type)
			*state_att = att->attnum;
		else
			return false;
	}
	return *part_att != InvalidAttrNumber && *state_att != InvalidAttrNumber;
}

StateTable *
maintain_state_open(Oid relid, const char *part_name, Oid part_type, Oid pipeline_type)
{
	Relation	rel = table_open(relid, RowExclusiveLock);
	AttrNumber	part_att,
				state_att;
	StateTable *t;

	/* the right an UPDATE of the state column checks */
	if (!as_made(rel, part_name, part_type, pipeline_type, &part_att, &state_att) ||
		(pg_class_aclcheck(relid, GetUserId(), ACL_UPDATE) != ACLCHECK_OK &&
		 pg_attribute_aclcheck(relid, state_att, GetUserId(), ACL_UPDATE) != ACLCHECK_OK))
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
	t->values = palloc0(sizeof(Datum) * RelationGetDescr(rel)->natts);
	t->nulls = palloc(sizeof(bool) * RelationGetDescr(rel)->natts);
	memset(t->nulls, true, sizeof(bool) * RelationGetDescr(rel)->natts);
	t->nulls[part_att - 1] = t->nulls[state_att - 1] = false;
	return t;
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
	HeapTuple	tup;
	bool		all,
				summarizing;

	t->values[t->part_att - 1] = part;
	t->values[t->state_att - 1] = state;
	tup = heap_form_tuple(RelationGetDescr(t->rel), t->values, t->nulls);
	/* the row is locked by this transaction: nothing else can change it */
	SP_HEAP_UPDATE(t->rel, tid, tup, &all, &summarizing);
	if (all || summarizing)
		index_entries(t, tup, !all);
	heap_freetuple(tup);
}

void
maintain_state_close(StateTable *t)
{
	if (t->estate != NULL)
	{
		ExecDropSingleTupleTableSlot(t->slot);
		ExecCloseIndices(t->rri);
		FreeExecutorState(t->estate);
	}
	table_close(t->rel, NoLock);
	CommandCounterIncrement();
}
