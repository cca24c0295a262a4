/*
 * maintain_changed.h
 *	  The sensors an UPDATE or a DELETE of the readings touched, read from
 *	  its transition tables (maintain_changed.c).
 */
#ifndef MAINTAIN_CHANGED_H
#define MAINTAIN_CHANGED_H

#include "commands/trigger.h"

#include "maintain_sql.h"

/*
 * What MS_CHG_UPDATE or MS_CHG_DELETE gives, from td's transition tables:
 * *parts the sensors (an array of the sensor column's type) and *since
 * (timestamptz[]) each one's earliest ts among the rows, or under
 * beyond_horizon 'keep' each row's sensor and ts; *parts is 0 when there
 * are no rows.  false, with nothing set, where the statement is to say it:
 * a sensor column that is not an integer, a NULL sensor, or columns no
 * longer of the types set-up saw.
 */
extern bool maintain_changed(MaintainPlans *mp, TriggerData *td, Datum *parts, Datum *since);

#endif							/* MAINTAIN_CHANGED_H */
