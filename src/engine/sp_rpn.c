/*
 * sp_rpn.c
 *	  The RPN bytecode interpreter (sp_rpn.h): compiling and checking a
 *	  bytecode, running it on a row, and its state.
 *
 * A bytecode is a flat array of numbers: an opcode, then its arguments.
 * Every value on the stack is either a number or "absent": the value of a
 * stateful opcode that produces nothing on this row (a window not full
 * yet, DIFF on the first row).  Arithmetic on an absent value is absent, a
 * stateful opcode given one does not advance (as an operator in a mesh
 * does not run when its input produced nothing), and an END that finds one
 * makes the row emit nothing.
 *
 * Numbers follow PostgreSQL's float8, as the operators of the same names
 * do: ADD overflowing is "value out of range: overflow", DIV by zero is
 * "division by zero", LOG of zero and SQRT of a negative number are errors,
 * comparisons order NaN above every number and equal to NaN, ROUND rounds
 * half to even.
 */
#include "postgres.h"

#include <math.h>

#include "utils/float.h"

#include "sp_float.h"
#include "sp_rpn.h"
#include "sp_sum.h"

typedef enum RpnKind
{
	K_INPUT,					/* push an input */
	K_CONST,					/* push a constant */
	K_UNARY,					/* pop 1, push 1 */
	K_BINARY,					/* pop 2, push 1 */
	K_END,						/* pop the expression's value */
	K_GATE,						/* pop a predicate */
	K_SLOT,						/* stateful, one of the original's state slots */
	K_LOAD,						/* STATE_LOAD: push a slot's value */
	K_WINDOW					/* stateful, an operator of its own */
} RpnKind;

enum
{
	OP_INPUT = 0, OP_CONST, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_POW, OP_ABS,
	OP_SQRT, OP_LOG, OP_LOG10, OP_EXP, OP_SIN, OP_COS, OP_TAN, OP_SIGN,
	OP_FLOOR, OP_CEIL, OP_ROUND, OP_NEG, OP_END, OP_CUMSUM, OP_COUNT,
	OP_MAX_AGG, OP_MIN_AGG, OP_STATE_LOAD, OP_GT, OP_GTE, OP_LT, OP_LTE,
	OP_EQ, OP_NEQ, OP_AND, OP_OR, OP_NOT, OP_MA_UPDATE, OP_MSUM_UPDATE,
	OP_STD_UPDATE, OP_DIFF, OP_SIGN_CHANGE, OP_WIN_MIN, OP_WIN_MAX,
	OP_FIR_UPDATE, OP_IIR_UPDATE, OP_GATE,
	N_OPCODES
};

typedef struct RpnOpInfo
{
	const char *name;
	RpnKind		kind;
	int			nargs;			/* numbers after the opcode */
	int			nslots;			/* K_SLOT: state slots it takes */
} RpnOpInfo;

static const RpnOpInfo opinfo[N_OPCODES] = {
	[OP_INPUT] = {"INPUT", K_INPUT, 1},
	[OP_CONST] = {"CONST", K_CONST, 1},
	[OP_ADD] = {"ADD", K_BINARY},
	[OP_SUB] = {"SUB", K_BINARY},
	[OP_MUL] = {"MUL", K_BINARY},
	[OP_DIV] = {"DIV", K_BINARY},
	[OP_POW] = {"POW", K_BINARY},
	[OP_ABS] = {"ABS", K_UNARY},
	[OP_SQRT] = {"SQRT", K_UNARY},
	[OP_LOG] = {"LOG", K_UNARY},
	[OP_LOG10] = {"LOG10", K_UNARY},
	[OP_EXP] = {"EXP", K_UNARY},
	[OP_SIN] = {"SIN", K_UNARY},
	[OP_COS] = {"COS", K_UNARY},
	[OP_TAN] = {"TAN", K_UNARY},
	[OP_SIGN] = {"SIGN", K_UNARY},
	[OP_FLOOR] = {"FLOOR", K_UNARY},
	[OP_CEIL] = {"CEIL", K_UNARY},
	[OP_ROUND] = {"ROUND", K_UNARY},
	[OP_NEG] = {"NEG", K_UNARY},
	[OP_END] = {"END", K_END},
	[OP_CUMSUM] = {"CUMSUM", K_SLOT, 1, 2},
	[OP_COUNT] = {"COUNT", K_SLOT, 1, 1},
	[OP_MAX_AGG] = {"MAX_AGG", K_SLOT, 1, 1},
	[OP_MIN_AGG] = {"MIN_AGG", K_SLOT, 1, 1},
	[OP_STATE_LOAD] = {"STATE_LOAD", K_LOAD, 1},
	[OP_GT] = {"GT", K_BINARY},
	[OP_GTE] = {"GTE", K_BINARY},
	[OP_LT] = {"LT", K_BINARY},
	[OP_LTE] = {"LTE", K_BINARY},
	[OP_EQ] = {"EQ", K_BINARY},
	[OP_NEQ] = {"NEQ", K_BINARY},
	[OP_AND] = {"AND", K_BINARY},
	[OP_OR] = {"OR", K_BINARY},
	[OP_NOT] = {"NOT", K_UNARY},
	[OP_MA_UPDATE] = {"MA_UPDATE", K_WINDOW, 1},
	[OP_MSUM_UPDATE] = {"MSUM_UPDATE", K_WINDOW, 1},
	[OP_STD_UPDATE] = {"STD_UPDATE", K_WINDOW, 1},
	[OP_DIFF] = {"DIFF", K_SLOT, 1, 2},
	[OP_SIGN_CHANGE] = {"SIGN_CHANGE", K_SLOT, 1, 2},
	[OP_WIN_MIN] = {"WIN_MIN", K_WINDOW, 1},
	[OP_WIN_MAX] = {"WIN_MAX", K_WINDOW, 1},
	[OP_FIR_UPDATE] = {"FIR_UPDATE", K_WINDOW, 2},
	[OP_IIR_UPDATE] = {"IIR_UPDATE", K_WINDOW, 3},
	[OP_GATE] = {"GATE", K_GATE},
};

/* ---- the slot opcodes' own cells (the windowed ones are operators') ---- */

/* COUNT: 1, 2, 3, ... */
typedef struct CountCell
{
	int64		n;
} CountCell;

static size_t
count_size(const SpParams *p)
{
	return sizeof(CountCell);
}

static bool
count_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	CountCell  *s = state;

	s->n = sp_count_next(s->n, SP_MAX_COUNT, "COUNT");
	*out = (double) s->n;
	return true;
}

static void
count_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	v->i64(v, "n", &((CountCell *) state)->n);
}

static const char *
count_check(const SpParams *p, const void *state, const SpRing *rings)
{
	int64		n = ((const CountCell *) state)->n;

	return (n >= 0 && n < SP_MAX_COUNT) ? NULL : "n must be a count of rows";
}

static const SpOpType cell_count = {
	.name = "COUNT", .params = sp_no_params, .nin = 1, .state_size = count_size,
	.step = count_step, .visit = count_visit, .check_state = count_check,
};

/*
 * MAX_AGG, MIN_AGG: greatest(m, x) and least(m, x) under PostgreSQL's
 * ordering, from -Infinity and Infinity (n = 0: m is that, and stored as 0).
 */
typedef struct ExtremeCell
{
	int64		n;				/* 0 or 1: whether m holds a value */
	double		m;
} ExtremeCell;

static size_t
extreme_size(const SpParams *p)
{
	return sizeof(ExtremeCell);
}

static double
extreme_value(const SpParams *p, const void *state, const SpRing *rings)
{
	const ExtremeCell *s = state;

	if (s->n == 0)
		return p->choice ? get_float8_infinity() : -get_float8_infinity();
	return s->m;
}

/* choice: 0 MAX_AGG, 1 MIN_AGG */
static bool
extreme_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	ExtremeCell *s = state;
	double		m = extreme_value(p, state, rings);

	if (p->choice ? float8_lt(in[0], m) : float8_gt(in[0], m))
		m = in[0];
	s->m = m;
	s->n = 1;
	*out = m;
	return true;
}

static void
extreme_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	ExtremeCell *s = state;

	v->i64(v, "n", &s->n);
	v->f64(v, "m", &s->m);
}

static const char *
extreme_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const ExtremeCell *s = state;

	if (s->n == 0)
		return (s->m == 0 && !signbit(s->m)) ? NULL : "m must be 0 before the first value";
	return s->n == 1 ? NULL : "n must be 0 or 1";
}

static const SpOpType cell_extreme = {
	.name = "MAX_AGG", .params = sp_no_params, .nin = 1, .state_size = extreme_size,
	.step = extreme_step, .visit = extreme_visit, .check_state = extreme_check,
};

/*
 * DIFF: x - previous, as Difference computes it; SIGN_CHANGE: the sign of
 * x - previous (1, -1, or 0 when equal or NaN is involved), exact whatever
 * the magnitudes.  Both produce nothing on the first value.
 */
typedef struct PrevCell
{
	int64		seen;			/* 0 or 1: whether previous holds a value */
	double		previous;
} PrevCell;

static size_t
prev_size(const SpParams *p)
{
	return sizeof(PrevCell);
}

/* choice: 0 DIFF, 1 SIGN_CHANGE */
static bool
prev_step(const SpParams *p, void *state, SpRing *rings, const double *in, double *out)
{
	PrevCell   *s = state;
	bool		emit = s->seen > 0;

	if (emit)
	{
		if (p->choice)
		{
			/* IEEE difference: an overflow to infinity keeps the sign */
			double		d = in[0] - s->previous;

			*out = (d > 0) ? 1.0 : (d < 0) ? -1.0 : 0.0;
		}
		else
			*out = float8_mi(in[0], s->previous);
	}
	s->previous = in[0];
	s->seen = 1;
	return emit;
}

static void
prev_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	PrevCell   *s = state;

	v->i64(v, "seen", &s->seen);
	v->f64(v, "previous", &s->previous);
}

static const char *
prev_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const PrevCell *s = state;

	if (s->seen == 0)
		return (s->previous == 0 && !signbit(s->previous)) ? NULL :
			"previous must be 0 before the first value";
	return s->seen == 1 ? NULL : "seen must be 0 or 1";
}

static const SpOpType cell_prev = {
	.name = "DIFF", .params = sp_no_params, .nin = 1, .state_size = prev_size,
	.step = prev_step, .visit = prev_visit, .check_state = prev_check,
};

/* A slot's value for STATE_LOAD: field 1 is the second slot of DIFF's pair. */
static double
cell_load(const SpRpnCell *c, int field, const char *state)
{
	const void *s = state + c->state_off;

	if (c->type == &sp_op_cumulative_sum)
		return sp_sum_value(*(const SpSum *) s);
	if (c->type == &cell_count)
		return (double) ((const CountCell *) s)->n;
	if (c->type == &cell_extreme)
		return extreme_value(&c->params, s, NULL);
	Assert(c->type == &cell_prev);
	return field ? (double) ((const PrevCell *) s)->seen : ((const PrevCell *) s)->previous;
}

/* ---- compiling ---- */

#define bytecode_error(...) \
	ereport(ERROR, \
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE), \
			 errmsg("invalid bytecode"), \
			 errdetail(__VA_ARGS__)))

/* The state slots the slot opcodes take, for overlaps and STATE_LOAD. */
typedef struct SlotUse
{
	int32		slot;
	int32		cell;
	int32		field;			/* which of the cell's slots */
	int32		element;		/* the opcode's, 1-based */
	int32		op;
} SlotUse;

static int
slot_use_cmp(const void *a, const void *b)
{
	const SlotUse *x = a,
			   *y = b;

	if (x->slot != y->slot)
		return x->slot < y->slot ? -1 : 1;
	return x->element < y->element ? -1 : x->element > y->element;
}

/* An argument: an integer in [lo, hi], else an error naming 'what'. */
static int32
int_arg(const SpRpnSource *src, int at, int op, int k, double lo, double hi, const char *what)
{
	double		x = src->code[at + 1 + k];

	if (!(x == floor(x) && x >= lo && x <= hi))
		bytecode_error("%s at element %d: %s must be an integer from %.0f to %.0f, not %s.",
					   opinfo[op].name, at + 1, what, lo, hi, float8out_internal(x));
	return (int32) x;
}

/* The parameters of a windowed opcode's operator, as a spec would give them. */
static void
window_params(SpRpnCell *c, const SpOpType *type, int32 window)
{
	c->type = type;
	memset(&c->params, 0, sizeof(c->params));
	for (const SpParamDef *d = type->params; d->name; d++)
	{
		if (d->kind == SP_PARAM_INT || d->kind == SP_PARAM_CHOICE || d->kind == SP_PARAM_BOOL)
		{
			int32		v = (int32) d->dflt;

			memcpy((char *) &c->params + d->offset, &v, sizeof(v));
		}
		else if (d->kind == SP_PARAM_FLOAT)
			memcpy((char *) &c->params + d->offset, &d->dflt, sizeof(double));
	}
	c->params.window_size = window;
}

const SpRpn *
sp_rpn_compile(const SpRpnSource *src)
{
	SpRpn	   *prog = palloc0(sizeof(SpRpn));
	SlotUse    *uses;
	int			n_uses = 0;
	int			depth = 0;
	int			ends = 0;
	int			at;
	Size		off = 0;
	int64		limits[SP_MAX_RINGS];

	prog->insns = palloc0(sizeof(SpRpnInsn) * Max(src->n_code, 1));
	prog->cells = palloc0(sizeof(SpRpnCell) * Max(src->n_code, 1));
	uses = palloc(sizeof(SlotUse) * 2 * Max(src->n_code, 1));
	prog->constants = src->constants;

	for (at = 0; at < src->n_code; at += 1 + opinfo[prog->insns[prog->n_insns - 1].op].nargs)
	{
		double		x = src->code[at];
		SpRpnInsn  *ins = &prog->insns[prog->n_insns++];
		int			op;
		const RpnOpInfo *info;
		int			pops = 0,
					pushes = 0;

		if (!(x == floor(x) && x >= 0 && x < N_OPCODES))
			bytecode_error("Element %d is %s, which is not an opcode.", at + 1,
						   float8out_internal(x));
		op = (int) x;
		info = &opinfo[op];
		ins->op = op;
		/* a segment key is a function of the row's vector alone, as the original's */
		if (src->segment_key && info->kind != K_INPUT && info->kind != K_CONST &&
			info->kind != K_UNARY && info->kind != K_BINARY && info->kind != K_END)
			bytecode_error("Element %d is %s, which a segment bytecode cannot use: its opcodes are 0 to 20 and 26 to 34, those without state.",
						   at + 1, info->name);
		if (at + info->nargs >= src->n_code)
			bytecode_error("%s at element %d takes %d argument%s; the bytecode has %d after it.",
						   info->name, at + 1, info->nargs, info->nargs == 1 ? "" : "s",
						   src->n_code - at - 1);
		switch (info->kind)
		{
			case K_INPUT:
				if (src->max_inputs >= 0)
					ins->arg = int_arg(src, at, op, 0, 0, src->max_inputs - 1,
									   psprintf("its index (%s is %d)", src->inputs_name,
												src->max_inputs));
				else
					ins->arg = int_arg(src, at, op, 0, 0, SP_RPN_MAX_VALUES - 1, "its index");
				prog->n_inputs = Max(prog->n_inputs, ins->arg + 1);
				pushes = 1;
				break;
			case K_CONST:
				if (src->n_constants == 0)
					bytecode_error("CONST at element %d: \"%s\" is empty.", at + 1,
								   src->constants_name ? src->constants_name : "constants");
				ins->arg = int_arg(src, at, op, 0, 0, src->n_constants - 1,
								   psprintf("its index (\"%s\" has %d)",
											src->constants_name ? src->constants_name : "constants",
											src->n_constants));
				pushes = 1;
				break;
			case K_UNARY:
				pops = pushes = 1;
				break;
			case K_BINARY:
				pops = 2;
				pushes = 1;
				break;
			case K_END:
			case K_GATE:
				if (depth != 1)
					bytecode_error("%s at element %d must find one value on the stack, its expression's; it finds %d.",
								   info->name, at + 1, depth);
				pops = 1;
				ends += info->kind == K_END;
				break;
			case K_LOAD:
				/* resolved once every slot is known */
				ins->arg = int_arg(src, at, op, 0, 0, SP_RPN_MAX_SLOT, "its state slot");
				pushes = 1;
				break;
			case K_SLOT:
				{
					SpRpnCell  *c = &prog->cells[prog->n_cells];
					int32		slot = int_arg(src, at, op, 0, 0, SP_RPN_MAX_SLOT - info->nslots + 1,
											   "its state slot");

					memset(&c->params, 0, sizeof(c->params));
					switch (op)
					{
						case OP_CUMSUM:
							c->type = &sp_op_cumulative_sum;
							break;
						case OP_COUNT:
							c->type = &cell_count;
							break;
						case OP_MAX_AGG:
						case OP_MIN_AGG:
							c->type = &cell_extreme;
							c->params.choice = op == OP_MIN_AGG;
							break;
						default:
							c->type = &cell_prev;
							c->params.choice = op == OP_SIGN_CHANGE;
							break;
					}
					for (int k = 0; k < info->nslots; k++)
						uses[n_uses++] = (SlotUse) {slot + k, prog->n_cells, k, at + 1, op};
					ins->arg = prog->n_cells++;
					pops = op == OP_COUNT ? 0 : 1;
					pushes = 1;
					break;
				}
			case K_WINDOW:
				{
					SpRpnCell  *c = &prog->cells[prog->n_cells];
					const char *msg;

					if (op == OP_FIR_UPDATE || op == OP_IIR_UPDATE)
					{
						int32		start,
									nb,
									na = 0;

						if (op == OP_FIR_UPDATE)
						{
							start = int_arg(src, at, op, 0, 0, SP_RPN_MAX_VALUES, "its first coefficient");
							nb = int_arg(src, at, op, 1, 1, SP_MAX_COEFFS, "its number of coefficients");
						}
						else
						{
							nb = int_arg(src, at, op, 0, 1, SP_MAX_COEFFS, "its number of b coefficients");
							na = int_arg(src, at, op, 1, 0, SP_MAX_COEFFS, "its number of a coefficients");
							start = int_arg(src, at, op, 2, 0, SP_RPN_MAX_VALUES, "its first coefficient");
						}
						if (start + nb + na > src->n_coefficients)
							bytecode_error("%s at element %d reads coefficients %d to %d; \"coefficients\" has %d.",
										   info->name, at + 1, start + 1, start + nb + na,
										   src->n_coefficients);
						window_params(c, op == OP_FIR_UPDATE ? &sp_op_fir : &sp_op_iir, 0);
						c->params.vec[0] = (double *) src->coefficients + start;
						c->params.nvec[0] = nb;
						c->params.vec[1] = (double *) src->coefficients + start + nb;
						c->params.nvec[1] = na;
					}
					else
					{
						int32		w = int_arg(src, at, op, 0, 1, SP_MAX_WINDOW, "its window");

						window_params(c,
									  op == OP_MA_UPDATE ? &sp_op_moving_average :
									  op == OP_MSUM_UPDATE ? &sp_op_moving_sum :
									  op == OP_STD_UPDATE ? &sp_op_standard_deviation :
									  &sp_op_window_min_max, w);
						if (op == OP_WIN_MAX)
							c->params.choice = 1;	/* WindowMinMax's "max" */
					}
					if (c->type->check_params &&
						(msg = c->type->check_params(&c->params)) != NULL)
						bytecode_error("%s at element %d: %s.", info->name, at + 1, msg);
					Assert(c->type->timed == NULL || !c->type->timed(&c->params));
					ins->arg = prog->n_cells++;
					pops = pushes = 1;
					break;
				}
		}
		if (info->kind == K_SLOT || info->kind == K_WINDOW)
			prog->cells[ins->arg].name = psprintf("%s@%d", info->name, at + 1);
		if (depth < pops)
			bytecode_error("%s at element %d takes %d value%s from the stack; it holds %d.",
						   info->name, at + 1, pops, pops == 1 ? "" : "s", depth);
		depth += pushes - pops;
		if (depth > SP_RPN_MAX_STACK)
			bytecode_error("At element %d the stack would hold %d values; at most %d are allowed.",
						   at + 1, depth, SP_RPN_MAX_STACK);
	}
	if (depth != 0)
		bytecode_error("The bytecode ends with %d value%s on the stack: its last expression has no END.",
					   depth, depth == 1 ? "" : "s");
	if (ends != src->n_outputs && src->segment_key)
		bytecode_error("The bytecode has %d END opcodes; a segment bytecode is one expression, ending in its one END.",
					   ends);
	if (ends != src->n_outputs)
		bytecode_error("The bytecode has %d END opcode%s; \"%s\" is %d.",
					   ends, ends == 1 ? "" : "s",
					   src->outputs_name ? src->outputs_name : "numOutputs", src->n_outputs);
	prog->n_outputs = ends;

	/* every slot has one owner; STATE_LOAD reads an owned slot */
	qsort(uses, n_uses, sizeof(SlotUse), slot_use_cmp);
	for (int k = 1; k < n_uses; k++)
		if (uses[k].slot == uses[k - 1].slot)
			bytecode_error("%s at element %d takes state slot %d, which %s at element %d takes already.",
						   opinfo[uses[k].op].name, uses[k].element, uses[k].slot,
						   opinfo[uses[k - 1].op].name, uses[k - 1].element);
	at = 0;
	for (int i = 0; i < prog->n_insns; at += 1 + opinfo[prog->insns[i].op].nargs, i++)
	{
		SpRpnInsn  *ins = &prog->insns[i];
		int			lo = 0,
					hi = n_uses;

		if (ins->op != OP_STATE_LOAD)
			continue;
		while (lo < hi)
		{
			int			mid = (lo + hi) / 2;

			if (uses[mid].slot < ins->arg)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo == n_uses || uses[lo].slot != ins->arg)
			bytecode_error("STATE_LOAD at element %d reads state slot %d, which no CUMSUM, COUNT, MAX_AGG, MIN_AGG, DIFF or SIGN_CHANGE takes.",
						   at + 1, ins->arg);
		if (prog->cells[uses[lo].cell].type == &sp_op_cumulative_sum && uses[lo].field == 1)
			bytecode_error("STATE_LOAD at element %d reads state slot %d, the compensation of CUMSUM at element %d, which segpipe keeps in a form of its own.",
						   at + 1, ins->arg, uses[lo].element);
		ins->field = uses[lo].field;
		ins->arg = uses[lo].cell;
	}

	/* the cells' states and rings, one after another */
	prog->ring_limits = palloc(sizeof(int64) * Max(prog->n_cells * SP_MAX_RINGS, 1));
	for (int i = 0; i < prog->n_cells; i++)
	{
		SpRpnCell  *c = &prog->cells[i];

		c->lazy = c->type->value != NULL &&
			(c->type->lazy == NULL || c->type->lazy(&c->params));
		c->state_size = c->type->state_size ? c->type->state_size(&c->params) : 0;
		c->state_off = off;
		off += MAXALIGN(c->state_size);
		c->n_rings = c->type->rings ? c->type->rings(&c->params, limits) : 0;
		c->first_ring = prog->n_rings;
		for (int r = 0; r < c->n_rings; r++)
		{
			Assert(limits[r] != SP_RING_SHARE);
			prog->ring_limits[prog->n_rings++] = limits[r];
		}
	}
	prog->state_size = off;
	pfree(uses);
	return prog;
}

/* ---- running ---- */

/* A stateful opcode on x: whether it produced *out. */
static inline bool
cell_step(const SpRpnCell *c, char *state, SpRing *rings, double x, double *out)
{
	void	   *s = state + c->state_off;
	SpRing	   *r = rings + c->first_ring;

	if (!c->type->step(&c->params, s, r, &x, out))
		return false;
	if (c->lazy)
		*out = c->type->value(&c->params, s, r);
	return true;
}

static inline double
sign_of(double x)
{
	/* NaN compares false both ways and gets 0, as the Sign operator gives */
	return (x > 0) ? 1.0 : (x < 0) ? -1.0 : 0.0;
}

static inline double
unary(int op, double x)
{
	switch (op)
	{
		case OP_ABS:
			return fabs(x);
		case OP_SQRT:
			if (x < 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_ARGUMENT_FOR_POWER_FUNCTION),
						 errmsg("cannot take square root of a negative number")));
			return sqrt(x);
		case OP_LOG:
			return sp_float8_ln(x);
		case OP_LOG10:
			return sp_float8_log10(x);
		case OP_EXP:
			return sp_float8_exp(x);
		case OP_SIN:
			return sp_float8_sin(x);
		case OP_COS:
			return sp_float8_cos(x);
		case OP_TAN:
			return sp_float8_tan(x);
		case OP_SIGN:
			return sign_of(x);
		case OP_FLOOR:
			return floor(x);
		case OP_CEIL:
			return ceil(x);
		case OP_ROUND:
			return rint(x);
		case OP_NEG:
			return -x;
		case OP_NOT:
			return x == 0.0 ? 1.0 : 0.0;
	}
	pg_unreachable();
}

static inline double
binary(int op, double a, double b)
{
	switch (op)
	{
		case OP_ADD:
			return float8_pl(a, b);
		case OP_SUB:
			return float8_mi(a, b);
		case OP_MUL:
			return float8_mul(a, b);
		case OP_DIV:
			return float8_div(a, b);
		case OP_POW:
			return sp_float8_power(a, b);
		case OP_GT:
			return float8_gt(a, b) ? 1.0 : 0.0;
		case OP_GTE:
			return float8_ge(a, b) ? 1.0 : 0.0;
		case OP_LT:
			return float8_lt(a, b) ? 1.0 : 0.0;
		case OP_LTE:
			return float8_le(a, b) ? 1.0 : 0.0;
		case OP_EQ:
			return float8_eq(a, b) ? 1.0 : 0.0;
		case OP_NEQ:
			return float8_ne(a, b) ? 1.0 : 0.0;
		case OP_AND:
			return (a != 0.0 && b != 0.0) ? 1.0 : 0.0;
		case OP_OR:
			return (a != 0.0 || b != 0.0) ? 1.0 : 0.0;
	}
	pg_unreachable();
}

bool
sp_rpn_run(const SpRpn *prog, void *state, SpRing *rings,
		   const double *in, int n_in, double *out)
{
	double		val[SP_RPN_MAX_STACK];
	bool		have[SP_RPN_MAX_STACK];
	int			sp = 0;
	int			o = 0;
	bool		emit = true;

	if (unlikely(n_in < prog->n_inputs))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("too few input values for the bytecode"),
				 errdetail("The bytecode reads %d values; the row has %d.",
						   prog->n_inputs, n_in)));
	for (int i = 0; i < prog->n_insns; i++)
	{
		const SpRpnInsn *ins = &prog->insns[i];
		const SpRpnCell *c;

		switch (opinfo[ins->op].kind)
		{
			case K_INPUT:
				val[sp] = in[ins->arg];
				have[sp++] = true;
				break;
			case K_CONST:
				val[sp] = prog->constants[ins->arg];
				have[sp++] = true;
				break;
			case K_UNARY:
				if (have[sp - 1])
					val[sp - 1] = unary(ins->op, val[sp - 1]);
				break;
			case K_BINARY:
				sp--;
				if (have[sp - 1] && have[sp])
					val[sp - 1] = binary(ins->op, val[sp - 1], val[sp]);
				else
					have[sp - 1] = false;
				break;
			case K_END:
				sp--;
				if (have[sp])
					out[o] = val[sp];
				else
					emit = false;
				o++;
				break;
			case K_GATE:
				sp--;
				if (!have[sp] || val[sp] == 0.0)
					emit = false;
				break;
			case K_LOAD:
				val[sp] = cell_load(&prog->cells[ins->arg], ins->field, state);
				have[sp++] = true;
				break;
			case K_SLOT:
			case K_WINDOW:
				c = &prog->cells[ins->arg];
				if (ins->op == OP_COUNT)
				{
					have[sp] = cell_step(c, state, rings, 0.0, &val[sp]);
					sp++;
				}
				else if (have[sp - 1])
					have[sp - 1] = cell_step(c, state, rings, val[sp - 1], &val[sp - 1]);
				if (!have[sp - 1])
					val[sp - 1] = 0.0;
				break;
		}
	}
	Assert(sp == 0 && o == prog->n_outputs);
	return emit;
}

/* ---- state ---- */

int
sp_rpn_rings(const SpRpn *prog, int64 *limits)
{
	memcpy(limits, prog->ring_limits, sizeof(int64) * prog->n_rings);
	return prog->n_rings;
}

void
sp_rpn_visit(const SpRpn *prog, void *state, SpRing *rings, SpStateVisitor *v)
{
	for (int i = 0; i < prog->n_cells; i++)
	{
		const SpRpnCell *c = &prog->cells[i];
		SpPrefixVisitor pv;

		/* a cell's fields are named "<cell>/<field>" in the operator's state */
		if (c->type->visit)
			c->type->visit(&c->params, (char *) state + c->state_off,
						   rings + c->first_ring, sp_prefix_visitor(&pv, v, c->name));
	}
}

const char *
sp_rpn_check(const SpRpn *prog, const void *state, const SpRing *rings)
{
	for (int i = 0; i < prog->n_cells; i++)
	{
		const SpRpnCell *c = &prog->cells[i];
		const char *msg;

		if (c->type->check_state &&
			(msg = c->type->check_state(&c->params, (const char *) state + c->state_off,
										rings + c->first_ring)) != NULL)
			return psprintf("%s: %s", c->name, msg);
	}
	return NULL;
}

void
sp_rpn_restore(const SpRpn *prog, void *state, const SpRing *rings)
{
	for (int i = 0; i < prog->n_cells; i++)
	{
		const SpRpnCell *c = &prog->cells[i];

		if (c->type->restore)
			c->type->restore(&c->params, (char *) state + c->state_off,
							 rings + c->first_ring);
	}
}
