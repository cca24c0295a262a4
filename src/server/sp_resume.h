/*
 * sp_resume.h
 *	  Continuing from the state a `pipeline` value carries: the one restore
 *	  path of pipeline_agg (which resumes a group from it) and segment_agg
 *	  (which starts each partition from it).
 */
#ifndef SP_RESUME_H
#define SP_RESUME_H

#include "sp_codec.h"
#include "sp_engine.h"
#include "sp_key.h"
#include "sp_state.h"

/*
 * Decode the state of view (which has one) for cfg into a run in ks->cxt,
 * and make its key, read with the type of ks, the current key of ks (which
 * is empty).  A state whose keys are of another type raises 42804; a
 * malformed one 22P03.  When info is not NULL it receives the progress and
 * counters (its key, key type and emissions are left empty).  Nothing else
 * of the decoding is kept.
 */
extern SpRun *sp_resume_state(const SpValueView *view, const SpConfig *cfg,
							  SpKeyState *ks, SpState *info);

#endif							/* SP_RESUME_H */
