/*
 * ops_variable.c
 *	  Variable and KeyedVariable: values held from the rows that set them,
 *	  answered on the rows that ask (docs/reference.md, "Join, Variable
 *	  and KeyedVariable").
 *
 * Both run on a row when any of their ports received a value (step_some):
 * an update, a query, or both, the update first.  The original holds a
 * query until messages past its time show that no update at or before it
 * can still come; segpipe's rows come in order and a row's update reaches
 * the operator before its query does, so a query is answered on its own
 * row with the value the segment holds then.  Their state resets at every
 * boundary, as every operator's.
 */
#include "postgres.h"

#include <math.h>

#include "utils/float.h"

#include "sp_operator.h"

/* ---- Variable: i1 sets the value, c1 asks for it ---- */

static const SpParamDef variable_params[] = {
	{"default_value", SP_PARAM_FLOAT, offsetof(SpParams, value), false, 0},
	SP_PARAM_END
};

typedef struct VariableState
{
	int64		set;			/* 1 once an update came this segment */
	double		value;			/* the latest update */
} VariableState;

static int32
variable_nctl(const SpParams *p)
{
	return 1;
}

static size_t
variable_state_size(const SpParams *p)
{
	return sizeof(VariableState);
}

static bool
variable_step_some(const SpParams *p, void *state, SpRing *rings,
				   const SpValue *in, const bool *have_in, SpValue *out)
{
	VariableState *s = state;

	if (have_in[0])
	{
		s->set = 1;
		s->value = in[0].x;
	}
	if (!have_in[1])
		return false;
	out->x = s->set ? s->value : p->value;
	return true;
}

static void
variable_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	VariableState *s = state;

	v->i64(v, "set", &s->set);
	v->f64(v, "value", &s->value);
}

static const char *
variable_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const VariableState *s = state;

	if (s->set != 0 && s->set != 1)
		return "set must be 0 or 1";
	/* the initial state is all zero bytes: nothing else stands for "unset" */
	if (s->set == 0 && (s->value != 0.0 || signbit(s->value)))
		return "value must be 0 while set is 0";
	return NULL;
}

const SpOpType sp_op_variable = {
	.name = "Variable",
	.params = variable_params,
	.nin = 2,
	.in_type = SP_PORT_NUMBER,
	.out_type = SP_PORT_NUMBER,
	.nctl_from = variable_nctl,
	.state_size = variable_state_size,
	.step_some = variable_step_some,
	.visit = variable_visit,
	.check_state = variable_check,
};

/*
 * ---- KeyedVariable: i1, a vector [key, value], sets map[key] (a NaN value
 * deletes it); c1, a key, asks whether it is there ("exists") or its value
 * ("lookup") ----
 *
 * The map is rings[0], used as an array (as KeyedPipeline's instances):
 * pairs key, value in ascending order of key, keys compared as float8
 * (NaN equals NaN, -0 equals 0), at most maxKeys pairs.  The original keys
 * a hash map by the float8's own equality, so that a NaN key is never found
 * and each NaN update adds one more; it has no bound.  The original's c2, a
 * heartbeat that lets it answer queries it holds, has nothing to do here
 * (a query is answered on its row) and is not a port.
 */

#define KV_MAX_KEYS		65536

static const char *const kv_modes[] = {"exists", "lookup", NULL};

#define KV_EXISTS	0

/* mode in choice, default_value in value, maxKeys in min_rows */
static const SpParamDef kv_params[] = {
	{"mode", SP_PARAM_CHOICE, offsetof(SpParams, choice), false, KV_EXISTS, 0, 0, kv_modes},
	{"default_value", SP_PARAM_FLOAT, offsetof(SpParams, value), false, 0},
	{"maxKeys", SP_PARAM_INT, offsetof(SpParams, min_rows), false, 1024, 1, KV_MAX_KEYS},
	SP_PARAM_END
};

static int32
kv_nctl(const SpParams *p)
{
	return 1;
}

static SpPortType
kv_in_type_at(const SpParams *p, int port)
{
	return port == 0 ? SP_PORT_VECTOR_NUMBER : SP_PORT_NUMBER;
}

static SpPortType
kv_out_type_at(const SpParams *p, int port)
{
	return p->choice == KV_EXISTS ? SP_PORT_BOOLEAN : SP_PORT_NUMBER;
}

static int
kv_rings(const SpParams *p, int64 *limits)
{
	limits[0] = 2 * (int64) p->min_rows;
	return 1;
}

/*
 * Where key is in the map, or where it would go (*found false); the map
 * starts at the ring's buffer (head 0, as it is only pushed and popped at
 * its newest end).
 */
static int64
kv_find(const SpRing *map, double key, bool *found)
{
	int64		lo = 0,
				hi = map->count / 2;

	Assert(map->head == 0);
	*found = false;
	while (lo < hi)
	{
		int64		mid = lo + (hi - lo) / 2;
		int			c = float8_cmp_internal(map->buf[2 * mid], key);

		if (c == 0)
		{
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
kv_update(const SpParams *p, SpRing *map, double key, double value)
{
	bool		found;
	int64		i = kv_find(map, key, &found);
	int64		n = map->count / 2;

	if (isnan(value))
	{
		if (found)
		{
			memmove(map->buf + 2 * i, map->buf + 2 * (i + 1), sizeof(double) * 2 * (n - i - 1));
			sp_ring_pop_newest(map);
			sp_ring_pop_newest(map);
		}
		return;
	}
	if (found)
	{
		/* the key keeps the form it came in first (-0 or 0) */
		map->buf[2 * i + 1] = value;
		return;
	}
	if (n >= p->min_rows)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many keys in a KeyedVariable"),
				 errdetail("A KeyedVariable holds at most %d keys in a segment (its \"maxKeys\").",
						   p->min_rows),
				 errhint("Raise \"maxKeys\", or delete keys with a NaN value.")));
	sp_ring_push(map, 0.0);
	sp_ring_push(map, 0.0);
	memmove(map->buf + 2 * (i + 1), map->buf + 2 * i, sizeof(double) * 2 * (n - i));
	map->buf[2 * i] = key;
	map->buf[2 * i + 1] = value;
}

static bool
kv_step_some(const SpParams *p, void *state, SpRing *rings,
			 const SpValue *in, const bool *have_in, SpValue *out)
{
	SpRing	   *map = &rings[0];
	bool		found;
	int64		i;

	if (have_in[0])
	{
		if (in[0].n < 2)
			ereport(ERROR,
					(errcode(ERRCODE_ARRAY_SUBSCRIPT_ERROR),
					 errmsg("vector lane out of range"),
					 errdetail("KeyedVariable reads lanes 0 (the key) and 1 (the value) of its vector on \"i1\", which has %d lane%s.",
							   in[0].n, in[0].n == 1 ? "" : "s")));
		kv_update(p, map, in[0].v[0], in[0].v[1]);
	}
	if (!have_in[1])
		return false;
	i = kv_find(map, in[1].x, &found);
	if (p->choice == KV_EXISTS)
		out->x = found ? 1.0 : 0.0;
	else
		out->x = found ? map->buf[2 * i + 1] : p->value;
	return true;
}

static void
kv_visit(const SpParams *p, void *state, SpRing *rings, SpStateVisitor *v)
{
	v->ring(v, "map", &rings[0]);
}

static const char *
kv_check(const SpParams *p, const void *state, const SpRing *rings)
{
	const SpRing *map = &rings[0];

	if (map->count % 2 != 0)
		return "map must hold key, value pairs";
	if (map->count > 0 && map->head != 0)
		return "map must start at its first slot";
	for (int64 i = 0; i < map->count / 2; i++)
	{
		if (isnan(map->buf[2 * i + 1]))
			return "a value in map is NaN";
		if (i > 0 && float8_cmp_internal(map->buf[2 * (i - 1)], map->buf[2 * i]) >= 0)
			return "the keys in map must be distinct and in ascending order";
	}
	return NULL;
}

const SpOpType sp_op_keyed_variable = {
	.name = "KeyedVariable",
	.params = kv_params,
	.nin = 2,
	.in_type = SP_PORT_NUMBER,
	.out_type = SP_PORT_BOOLEAN,
	.nctl_from = kv_nctl,
	.in_type_at = kv_in_type_at,
	.out_type_at = kv_out_type_at,
	.rings = kv_rings,
	.step_some = kv_step_some,
	.visit = kv_visit,
	.check_state = kv_check,
};
