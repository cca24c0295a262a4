/*
 * sp_json.h
 *	  A small, bounded JSON reader for pipeline specs.
 *
 * segpipe reads its own JSON rather than going through jsonb (or the
 * server's jsonapi) so that object keys keep their order and duplicates are
 * caught, numbers are parsed with float8 semantics (shortest-exact text
 * round-trips bit for bit, "-0" stays negative), errors point at the
 * offending character, and memory stays within a small multiple of the
 * text: a document is an array of 8-byte nodes that point into the text,
 * and strings and numbers are decoded only when asked for.
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
	SPJ_OBJECT,
	SPJ_KEY						/* an object member's name; its value follows */
} SpJsonKind;

/*
 * One value, or one member name, of a document, in pre-order.  A node's
 * subtree (itself, and for a container or a key everything inside) spans
 * 'size' nodes, so the next sibling is node + size.  An object's children
 * are its keys; the value of a key is the node right after it.
 */
typedef struct SpJsonNode
{
	uint32		pos;			/* byte offset of its first character */
	uint32		info;			/* kind, escape flag and subtree size */
} SpJsonNode;

typedef struct SpJsonDoc
{
	const char *text;			/* the text read; nodes point into it */
	const char *what;			/* type name for messages: "pipeline" */
	SpJsonNode *nodes;			/* nodes[0] is the document's value */
	int			n_nodes;
} SpJsonDoc;

/*
 * Read a whole document; malformed input raises ERROR (22P02) naming the
 * character.  Memory: 8 bytes per value and per member name, allocated in
 * CurrentMemoryContext; text must outlive the document.
 */
extern SpJsonDoc *sp_json_parse(const char *text, const char *what);

extern SpJsonKind sp_json_kind(const SpJsonNode *v);
extern const char *sp_json_kind_name(SpJsonKind kind);

/* Children: elements of an array, keys of an object; NULL past the last. */
extern const SpJsonNode *sp_json_first(const SpJsonNode *v);
extern const SpJsonNode *sp_json_next(const SpJsonNode *parent, const SpJsonNode *child);
extern int	sp_json_count(const SpJsonNode *v);

/* The value of an object member, given its key. */
static inline const SpJsonNode *
sp_json_value(const SpJsonNode *key)
{
	return key + 1;
}

/* Member of an object by name, or NULL; obj may be NULL. */
extern const SpJsonNode *sp_json_get(const SpJsonDoc *doc, const SpJsonNode *obj,
									 const char *name);

extern bool sp_json_bool(const SpJsonDoc *doc, const SpJsonNode *v);
extern double sp_json_number(const SpJsonDoc *doc, const SpJsonNode *v);

/* A string or key, unescaped, palloc'd in CurrentMemoryContext. */
extern char *sp_json_string(const SpJsonDoc *doc, const SpJsonNode *v);

/* Length in bytes of a string or key, unescaped.  No allocation. */
extern int	sp_json_string_length(const SpJsonDoc *doc, const SpJsonNode *v);

/*
 * s as a message shows a name taken from the text: whole when it has at most
 * NAMEDATALEN - 1 bytes, else its first characters within that and "...".
 */
extern const char *sp_json_shown(const char *s);

/* Does a string or key equal s?  No allocation. */
extern bool sp_json_string_eq(const SpJsonDoc *doc, const SpJsonNode *v, const char *s);

/* The end of the JSON number that starts at p, or NULL when none does. */
extern const char *sp_json_number_end(const char *p);

#endif							/* SP_JSON_H */
