/*
 * maintain_citus.h
 *	  Maintained results on a Citus distributed table (docs/scale-out.md):
 *	  what the coordinator's functions hand on to the shard groups.
 */
#ifndef MAINTAIN_CITUS_H
#define MAINTAIN_CITUS_H

#include "postgres.h"

/* whether rel is a hash-distributed table of Citus (false without Citus) */
extern bool maintain_citus_distributed(Oid rel);

/*
 * The settings Citus needs for segpipe's DDL on distributed tables (their
 * triggers, the view over them), in force until sp_settings_end of what it
 * returns.
 */
extern int	maintain_citus_ddl_begin(void);

/*
 * segpipe_shards(results, op, arg) of the extension's schema: op ("attach",
 * "detach", "untrigger", "rebuild", "close") on every shard group of a set-up on the
 * coordinator; the sum of what each returned.
 */
extern int64 maintain_citus_shards(Oid results, const char *op, const char *arg);

/*
 * The coordinator's set-up id in the reference table segpipe_citus_setup,
 * as the catalog has it (gone when the catalog has none): what a node reads
 * to attach a shard group Citus moved onto it.
 */
extern void maintain_citus_publish(int32 id);

/*
 * From the trigger of a readings shard rel without a catalog row of the
 * coordinator's set-up shard_of on this node: the group's row made from
 * that set-up (see segpipe_citus_setup); its id, 0 when there is none.
 */
extern int32 maintain_citus_adopt(int32 shard_of, Oid rel);

/*
 * Before DROP EXTENSION segpipe on the Citus coordinator: the reference
 * table segpipe_citus_setup dropped as a Citus table, so that its copies on
 * the nodes go too.
 */
extern void maintain_citus_release(void);

#endif							/* MAINTAIN_CITUS_H */
