/*
 * sp_visitor.c
 *	  sp_prefix_visitor (sp_operator.h): a state visitor that names every
 *	  field "<prefix>/<field>", for the operators within a nested Pipeline,
 *	  a KeyedPipeline, a TriggerSet or a FusedExpression.  On its own so that
 *	  the executor (sp_engine.c) and the RPN machine (sp_rpn.c), which both
 *	  use it, do not depend on each other.
 */
#include "postgres.h"

#include "sp_operator.h"

#define PREFIXED(v, name) \
	psprintf("%s/%s", ((SpPrefixVisitor *) (v))->prefix, (name))

static void
prefix_f64(SpStateVisitor *v, const char *name, double *field)
{
	SpStateVisitor *in = ((SpPrefixVisitor *) v)->inner;

	in->f64(in, PREFIXED(v, name), field);
}

static void
prefix_i64(SpStateVisitor *v, const char *name, int64 *field)
{
	SpStateVisitor *in = ((SpPrefixVisitor *) v)->inner;

	in->i64(in, PREFIXED(v, name), field);
}

static void
prefix_f64s(SpStateVisitor *v, const char *name, double *field, int n)
{
	SpStateVisitor *in = ((SpPrefixVisitor *) v)->inner;

	in->f64s(in, PREFIXED(v, name), field, n);
}

static void
prefix_ring(SpStateVisitor *v, const char *name, SpRing *r)
{
	SpStateVisitor *in = ((SpPrefixVisitor *) v)->inner;

	in->ring(in, PREFIXED(v, name), r);
}

SpStateVisitor *
sp_prefix_visitor(SpPrefixVisitor *pv, SpStateVisitor *inner, const char *prefix)
{
	pv->v.f64 = prefix_f64;
	pv->v.i64 = prefix_i64;
	pv->v.f64s = prefix_f64s;
	pv->v.ring = prefix_ring;
	pv->v.private = NULL;
	pv->inner = inner;
	pv->prefix = prefix;
	return &pv->v;
}
