/*
 * maintain_correct.h
 *	  Corrections of maintained results: sensors run again from their last
 *	  checkpoint before a change (maintain_correct.c), and what calls them
 *	  (the change trigger, segpipe_rebuild, segpipe_close_silent, the
 *	  partition event trigger, the insert trigger's late rows).
 */
#ifndef MAINTAIN_CORRECT_H
#define MAINTAIN_CORRECT_H

#include "commands/trigger.h"

#include "maintain_sql.h"

/*
 * Run each sensor of parts (an array of the sensor column's type) again from
 * its last checkpoint before the matching since (timestamptz[]), over its
 * readings as they are now but those in the partitions of excluded (oid[],
 * or 0 for none), and replace its state, checkpoints and results from
 * there.  Connects to SPI itself; call under maintain_settings.
 */
extern void maintain_correct(MaintainPlans *mp, Datum parts, Datum since, Datum excluded);

/*
 * The same for the sensors of the rows of relation rel (readings, or a
 * table that was), from the earliest row of each; leave_out runs them
 * without rel's rows (a partition about to be truncated or detached).
 */
extern void maintain_correct_relation(MaintainPlans *mp, Oid rel, bool leave_out);

/*
 * The catalog row a trigger of segpipe's names, checked: its one argument
 * is the row's id (a second, 'partition', on the partitions of the
 * readings), and it fires on that row's readings or one of its partitions.
 * Anything else is refused (39P01).  Returns the row's statements.
 */
extern MaintainPlans *maintain_trigger_plans(TriggerData *td, const char *fn);

/* Run a prepared statement (inside SPI); anything but the expected result is an error. */
extern void maintain_run(SPIPlanPtr p, Datum *values, const char *nulls, int expected);

#endif							/* MAINTAIN_CORRECT_H */
