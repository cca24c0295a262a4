/*
 * sp_key.c
 *	  Control keys of any SQL type: looking up the equality, keeping keys.
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "sp_key.h"

/*
 * The equality functions whose result is plain equality of the values, so
 * that the Datums (or the bytes) can be compared without calling them.
 */
static SpKeyCompare
compare_kind(const SpKeyType *kt)
{
	switch (kt->eq.fn_oid)
	{
		case F_BOOLEQ:
			return SP_KEYCMP_BOOL;
		case F_CHAREQ:
			return SP_KEYCMP_CHAR;
		case F_INT2EQ:
			return SP_KEYCMP_INT16;
		case F_INT4EQ:
		case F_DATE_EQ:
		case F_OIDEQ:
		case F_ENUM_EQ:
			return SP_KEYCMP_INT32;
		case F_FLOAT4EQ:
			return SP_KEYCMP_FLOAT4;
		case F_INT8EQ:
		case F_TIMESTAMP_EQ:
		case F_TIMESTAMPTZ_EQ:
		case F_TIME_EQ:
			return kt->typbyval ? SP_KEYCMP_INT64 : SP_KEYCMP_CALL;
		case F_FLOAT8EQ:
			return kt->typbyval ? SP_KEYCMP_FLOAT8 : SP_KEYCMP_CALL;
		case F_BYTEAEQ:
			return SP_KEYCMP_BYTES;
		case F_TEXTEQ:
			/*
			 * texteq compares bytes under a deterministic collation; without
			 * a collation it raises its own error, so let it.
			 */
			if (OidIsValid(kt->collation) &&
				get_collation_isdeterministic(kt->collation))
				return SP_KEYCMP_BYTES;
			return SP_KEYCMP_CALL;
		default:
			return SP_KEYCMP_CALL;
	}
}

void
sp_key_type_init(SpKeyType *kt, Oid type, Oid collation, MemoryContext cxt)
{
	TypeCacheEntry *tc;

	/* a polymorphic argument whose type the call does not tell */
	if (!OidIsValid(type))
		ereport(ERROR,
				(errcode(ERRCODE_INDETERMINATE_DATATYPE),
				 errmsg("could not determine the key's data type")));
	tc = lookup_type_cache(type, TYPECACHE_EQ_OPR_FINFO);
	if (!OidIsValid(tc->eq_opr_finfo.fn_oid))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an equality operator for type %s",
						format_type_be(type)),
				 errdetail("A key's type must have a default btree or hash operator class.")));
	kt->type = type;
	kt->collation = collation;
	kt->typlen = tc->typlen;
	kt->typbyval = tc->typbyval;
	fmgr_info_copy(&kt->eq, &tc->eq_opr_finfo, cxt);
	kt->cmp = compare_kind(kt);
}

bool
sp_key_equal_call(SpKeyType *kt, Datum a, Datum b)
{
	return DatumGetBool(FunctionCall2Coll(&kt->eq, kt->collation, a, b));
}

void
sp_key_state_init(SpKeyState *ks, SpKeyType *kt, MemoryContext cxt)
{
	memset(ks, 0, sizeof(SpKeyState));
	ks->kt = kt;
	ks->cxt = cxt;
}

/*
 * A by-reference key, copied into the state's context.  A varlena is
 * detoasted first, so that the kept key never points into a table's TOAST
 * data and never needs detoasting again.
 */
static Datum
key_copy(SpKeyState *ks, Datum key)
{
	MemoryContext old = MemoryContextSwitchTo(ks->cxt);
	Datum		copy;

	if (ks->kt->typlen == -1)
	{
		struct varlena *v = PG_DETOAST_DATUM_PACKED(key);

		/* detoasting makes a fresh copy here; a plain value still needs one */
		copy = (Pointer) v == DatumGetPointer(key) ?
			datumCopy(key, false, -1) : PointerGetDatum(v);
	}
	else
		copy = datumCopy(key, false, ks->kt->typlen);
	MemoryContextSwitchTo(old);
	return copy;
}

static void
key_forget_closed(SpKeyState *ks)
{
	if (ks->has_closed && !ks->kt->typbyval)
		pfree(DatumGetPointer(ks->closed));
	ks->has_closed = false;
}

void
sp_key_replace(SpKeyState *ks, Datum key)
{
	key_forget_closed(ks);
	ks->has_closed = ks->has_key;
	ks->closed = ks->key;
	ks->key = ks->kt->typbyval ? key : key_copy(ks, key);
	ks->has_key = true;
}

void
sp_key_close(SpKeyState *ks)
{
	key_forget_closed(ks);
	ks->has_closed = ks->has_key;
	ks->closed = ks->key;
	ks->has_key = false;
}
