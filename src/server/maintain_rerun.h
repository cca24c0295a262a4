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
 * Run each sensor of parts (an array of the sensor column's type) on from
 * its latest checkpoint over its readings but those in the partitions of
 * excluded (oid[]), and save it as MS_COR_RUN would (after MS_COR_DELETE).
 * Returns the sensors it left to MS_COR_RUN (parts itself when it takes
 * none), or 0 when none.  Call inside SPI, under maintain_settings.
 */
extern Datum maintain_rerun(MaintainPlans *mp, Datum parts, Datum excluded);

#endif							/* MAINTAIN_RERUN_H */
