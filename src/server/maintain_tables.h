/*
 * maintain_tables.h
 *	  The shapes of the tables segpipe_maintain() makes: one definition,
 *	  which writes their CREATE TABLE (segpipe_table_definition(), called by
 *	  set-up and by the update that makes 0.4.0's checkpoint tables) and
 *	  which C checks a table against before it writes it.
 */
#ifndef MAINTAIN_TABLES_H
#define MAINTAIN_TABLES_H

#include "utils/relcache.h"

typedef enum MaintainTable
{
	MT_STATE,					/* (sensor, state): one row per sensor */
	MT_RESULTS,					/* (sensor, ts, key, port, value): the emissions */
	MT_CHECKPOINT,				/* (sensor, ts, state): each segment's starting state */
	MT_HEARTBEAT,				/* (sensor, ts, key): the heartbeats applied */
	MT_N
} MaintainTable;

/*
 * Whether rel has table t's columns, in order (dropped ones aside) and of
 * their types, with the sensor column part_name of part_type; the attribute
 * numbers of the sensor and, for states and checkpoints, the state column
 * come back in *part_att and *state_att.
 */
extern bool maintain_table_has_shape(Relation rel, MaintainTable t, const char *part_name, Oid part_type,
									 Oid key_type, Oid pipeline_type, AttrNumber *part_att,
									 AttrNumber *state_att);

#endif							/* MAINTAIN_TABLES_H */
