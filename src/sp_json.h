/*
 * sp_json.h
 *	  A small JSON reader for pipeline specs.
 *
 * segpipe reads its own JSON rather than going through jsonb so that object
 * keys keep their order and duplicates are caught, numbers are parsed with
 * float8 semantics (shortest-exact text round-trips bit for bit, "-0" stays
 * negative), and error messages can point at the offending character.
 */
#ifndef SP_JSON_H
#define SP_JSON_H

typedef enum SpJsonKind
{
	SPJ_NULL,
	SPJ_BOOL,
	SPJ_NUMBER,
	SPJ_STRING,
	SPJ_ARRAY,
	SPJ_OBJECT
} SpJsonKind;

typedef struct SpJson SpJson;

struct SpJson
{
	SpJsonKind	kind;
	bool		b;				/* SPJ_BOOL */
	double		num;			/* SPJ_NUMBER */
	char	   *str;			/* SPJ_STRING: NUL-terminated, no embedded NUL */
	int			n;				/* SPJ_ARRAY, SPJ_OBJECT: element count */
	SpJson	  **items;			/* elements, or member values */
	char	  **keys;			/* SPJ_OBJECT: member names, in input order */
};

/* Parse a whole document; malformed input raises ERROR (22P02). */
extern SpJson *sp_json_parse(const char *text, const char *what);

/* Member of an object by name, or NULL. */
extern SpJson *sp_json_get(const SpJson *obj, const char *key);

extern const char *sp_json_kind_name(SpJsonKind kind);

#endif							/* SP_JSON_H */
