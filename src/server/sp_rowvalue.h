/*
 * sp_rowvalue.h
 *	  A row's value as the SQL functions receive it (a float8, or a float8[]
 *	  or boolean[] of one value per data port, or the vector of a pipeline's
 *	  one vector port), checked the same way by segment_agg, segment_key and
 *	  pipeline_agg.
 */
#ifndef SP_ROWVALUE_H
#define SP_ROWVALUE_H

#include "sp_engine.h"

/*
 * A single float8 feeds one data port only, and not a vector port; raises
 * 22023 otherwise.
 */
extern void sp_check_scalar_form(const SpConfig *cfg);

/*
 * Read a float8[] value.  Returns false for punctuation (every element
 * NULL).  With values, also unpacks the elements there; cfg's data ports,
 * when cfg is given, are the length the array must have.
 */
extern bool sp_read_array_row(Datum d, double *values, const SpConfig *cfg);

/*
 * Read an array value into run's row: one value per data port as above,
 * or, for a pipeline whose data port is a vector, the vector's lanes (at
 * most SP_MAX_LANES, 54000 beyond).  Returns false for punctuation.
 */
extern bool sp_read_run_row(Datum d, SpRun *run);

#endif							/* SP_ROWVALUE_H */
