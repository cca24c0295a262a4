/*
 * maintain_tables.c
 *	  The shapes of the tables of maintained results (maintain_tables.h).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_type.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"

#include "maintain_catalog.h"
#include "maintain_tables.h"

PG_FUNCTION_INFO_V1(segpipe_table_definition);

typedef enum ColumnKind
{
	MC_SENSOR,					/* as the readings' sensor column: type, typmod, collation */
	MC_TS,
	MC_KEY,						/* the key expression's type */
	MC_PORT,
	MC_VALUE,
	MC_STATE					/* the extension's pipeline */
} ColumnKind;

typedef struct Column
{
	const char *name;			/* NULL: the sensor column's own name */
	ColumnKind	kind;
	bool		not_null;
} Column;

typedef struct Shape
{
	const char *label;			/* segpipe_table_definition()'s kind */
	const Column *cols;
	int			ncols;
	int			npk;			/* the first npk columns are the primary key */
} Shape;

/* (a primary key column is NOT NULL by the key; the state table says no more) */
static const Column state_cols[] = {{NULL, MC_SENSOR, false}, {"state", MC_STATE, true}};
static const Column results_cols[] = {{NULL, MC_SENSOR, true}, {"ts", MC_TS, true}, {"key", MC_KEY, false},
{"port", MC_PORT, true}, {"value", MC_VALUE, false}};
static const Column ckpt_cols[] = {{NULL, MC_SENSOR, true}, {"ts", MC_TS, true}, {"state", MC_STATE, true}};
static const Column hb_cols[] = {{NULL, MC_SENSOR, true}, {"ts", MC_TS, true}, {"key", MC_KEY, false}};

static const Shape shapes[MT_N] = {
	[MT_STATE] = {"state", state_cols, lengthof(state_cols), 1},
	[MT_RESULTS] = {"results", results_cols, lengthof(results_cols), 0},
	[MT_CHECKPOINT] = {"checkpoint", ckpt_cols, lengthof(ckpt_cols), 2},
	[MT_HEARTBEAT] = {"heartbeat", hb_cols, lengthof(hb_cols), 2},
};

static Oid
column_type(ColumnKind kind, Oid part_type, Oid key_type, Oid pipeline_type)
{
	switch (kind)
	{
		case MC_SENSOR:
			return part_type;
		case MC_TS:
			return TIMESTAMPTZOID;
		case MC_KEY:
			return key_type;
		case MC_PORT:
			return INT4OID;
		case MC_VALUE:
			return FLOAT8OID;
		case MC_STATE:
			return pipeline_type;
	}
	pg_unreachable();
}

bool
maintain_table_has_shape(Relation rel, MaintainTable t, const char *part_name, Oid part_type,
						 Oid key_type, Oid pipeline_type, AttrNumber *part_att, AttrNumber *state_att)
{
	const Shape *s = &shapes[t];
	TupleDesc	desc = RelationGetDescr(rel);
	int			c = 0;

	*part_att = *state_att = InvalidAttrNumber;
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute att = TupleDescAttr(desc, i);
		const Column *col;

		if (att->attisdropped)
			continue;
		if (c == s->ncols)
			return false;
		col = &s->cols[c++];
		if (strcmp(NameStr(att->attname), col->name ? col->name : part_name) != 0 ||
			att->atttypid != column_type(col->kind, part_type, key_type, pipeline_type))
			return false;
		if (col->kind == MC_SENSOR)
			*part_att = att->attnum;
		else if (col->kind == MC_STATE)
			*state_att = att->attnum;
	}
	return c == s->ncols;
}

/*
 * segpipe_table_definition(kind, sensor_from, sensor, key_type, spec):
 * what goes between the parentheses of CREATE TABLE for the table of that
 * kind ('state', 'results', 'checkpoint', 'heartbeat') of a set-up whose
 * sensor column is column sensor of sensor_from (its readings, or its state
 * table), type, typmod and collation, with that key type; the state column
 * of the state table defaults to spec.  Every type is named by its schema.
 */
Datum
segpipe_table_definition(PG_FUNCTION_ARGS)
{
	text	   *kind_t;
	Oid			readings;
	Name		sensor;
	Oid			key_type = PG_ARGISNULL(3) ? InvalidOid : PG_GETARG_OID(3);
	char	   *kind;
	const Shape *s = NULL;
	HeapTuple	tup;
	Form_pg_attribute att;
	char	   *sensor_sql;
	char	   *pipeline_sql = format_type_be_qualified(maintain_pipeline_type());
	StringInfoData b;
	Oid			out;
	bool		isvarlena;

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
		PG_RETURN_NULL();
	kind_t = PG_GETARG_TEXT_PP(0);
	readings = PG_GETARG_OID(1);
	sensor = PG_GETARG_NAME(2);
	kind = text_to_cstring(kind_t);
	for (int t = 0; t < MT_N; t++)
		if (strcmp(kind, shapes[t].label) == 0)
			s = &shapes[t];
	if (s == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no table of maintained results is of kind \"%s\"", kind),
				 errhint("The kinds are \"state\", \"results\", \"checkpoint\" and \"heartbeat\".")));
	tup = SearchSysCacheAttName(readings, NameStr(*sensor));
	if (!HeapTupleIsValid(tup))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist", NameStr(*sensor),
						get_rel_name(readings) ? get_rel_name(readings) : "?")));
	att = (Form_pg_attribute) GETSTRUCT(tup);
	sensor_sql = format_type_extended(att->atttypid, att->atttypmod,
									  FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
	if (OidIsValid(att->attcollation) && att->attcollation != get_typcollation(att->atttypid))
	{
		HeapTuple	ct = SearchSysCache1(COLLOID, ObjectIdGetDatum(att->attcollation));
		Form_pg_collation coll;

		if (!HeapTupleIsValid(ct))
			elog(ERROR, "cache lookup failed for collation %u", att->attcollation);
		coll = (Form_pg_collation) GETSTRUCT(ct);
		sensor_sql = psprintf("%s COLLATE %s", sensor_sql,
							  quote_qualified_identifier(get_namespace_name(coll->collnamespace),
														 NameStr(coll->collname)));
		ReleaseSysCache(ct);
	}
	ReleaseSysCache(tup);

	initStringInfo(&b);
	for (int c = 0; c < s->ncols; c++)
	{
		const Column *col = &s->cols[c];

		if (c > 0)
			appendStringInfoString(&b, ", ");
		appendStringInfo(&b, "%s ", quote_identifier(col->name ? col->name : NameStr(*sensor)));
		switch (col->kind)
		{
			case MC_SENSOR:
				appendStringInfoString(&b, sensor_sql);
				break;
			case MC_KEY:
				if (!OidIsValid(key_type))
					ereport(ERROR,
							(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
							 errmsg("the %s table needs the key's type", s->label)));
				appendStringInfoString(&b, format_type_be_qualified(key_type));
				break;
			case MC_STATE:
				appendStringInfoString(&b, pipeline_sql);
				break;
			default:
				appendStringInfoString(&b, format_type_be_qualified(column_type(col->kind, InvalidOid,
																				 InvalidOid, InvalidOid)));
				break;
		}
		if (col->not_null)
			appendStringInfoString(&b, " NOT NULL");
		/* a new sensor starts from the spec */
		if (col->kind == MC_STATE && s == &shapes[MT_STATE])
		{
			if (PG_ARGISNULL(4))
				ereport(ERROR,
						(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
						 errmsg("the state table needs the spec")));
			getTypeOutputInfo(maintain_pipeline_type(), &out, &isvarlena);
			appendStringInfo(&b, " DEFAULT %s::%s",
							 quote_literal_cstr(OidOutputFunctionCall(out, PG_GETARG_DATUM(4))), pipeline_sql);
		}
	}
	if (s->npk > 0)
	{
		appendStringInfoString(&b, ", PRIMARY KEY (");
		for (int c = 0; c < s->npk; c++)
			appendStringInfo(&b, "%s%s", c > 0 ? ", " : "",
							 quote_identifier(s->cols[c].name ? s->cols[c].name : NameStr(*sensor)));
		appendStringInfoChar(&b, ')');
	}
	PG_RETURN_TEXT_P(cstring_to_text(b.data));
}
