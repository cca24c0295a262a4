/*
 * maintain_rerun.h
 *	  A correction's run of its sensors in C, streaming their readings in
 *	  ts order from the index instead of sorting them in an aggregate
 *	  (maintain_rerun.c).
 */
#ifndef MAINTAIN_RERUN_H
#define MAINTAIN_RERUN_H

#include "maintain_sql.h"

/*
 * Whether maintain_rerun takes the sensors of parts (an array of the
 * sensor column's type): at most a few, each once, and no heartbeats.
 */
extern bool maintain_rerun_takes(MaintainPlans *mp, Datum parts);

/*
 * For each sensor of parts, what MS_COR_DELETE and MS_COR_RUN do: its
 * checkpoints after its last checkpoint before the matching since
 * (timestamptz[]) deleted, and a run from there over its readings but those
 * in the partitions of excluded (oid[]), saved; its results from since on
 * replaced by the run's (those before since are what the run gives again,
 * and stay), or under beyond_horizon 'keep' all after that checkpoint.  Returns the sensors
 * whose run it left to MS_COR_RUN (two readings of one ts), or 0 when none;
 * *all_had_readings says that every sensor it ran had a reading (so none
 * lost its state: MS_COR_GONE has nothing to do).  Call inside SPI, under
 * maintain_settings.
 */
extern Datum maintain_rerun(MaintainPlans *mp, Datum parts, Datum since, Datum excluded,
							bool *all_had_readings);

#endif							/* MAINTAIN_RERUN_H */
