/*
 * sp_spec_reader.h
 *	  What the spec reader's files share (private to src/codec/sp_spec*.c):
 *	  the reader, its messages' helpers and the readers of each part.
 *
 *	  sp_spec.c          the entry: a spec or a program
 *	  sp_spec_suggest.c  hints: the valid names closest to a misspelt one
 *	  sp_spec_param.c    members, port types and names, one operator and
 *	                     its parameters, segment bytecode
 *	  sp_spec_mesh.c     a pipeline's operators, connections, order, ports
 *	                     and output mappings
 *	  sp_spec_nested.c   meshes within an operator: nested Pipeline,
 *	                     KeyedPipeline prototype, TriggerSet
 *	  sp_spec_program.c  programs, the original's form
 *	  sp_spec_program_mesh.c  programs with operators outside their Pipeline
 *
 * All validation happens in these files, once, when a spec is read; the
 * engine trusts what it is given.  Messages follow the server's style: the
 * primary message says what is wrong, an error context line says where
 * (which operator, connection or output mapping), and a hint suggests the
 * name that was probably meant.  Within an object, members that do not
 * belong there are reported before members that are missing, so a misspelt
 * name is named rather than reported as absent.
 */
#ifndef SP_SPEC_READER_H
#define SP_SPEC_READER_H

#include "sp_engine.h"
#include "sp_json.h"
#include "sp_spec.h"

#define spec_error(...) \
	ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), __VA_ARGS__))

/*
 * Ids are names, bounded as the server bounds identifiers: they are kept,
 * printed (up to three times each in the canonical text) and compared.
 */
#define SPEC_MAX_ID_LEN (NAMEDATALEN - 1)

typedef struct SpecReader
{
	const SpJsonDoc *doc;
	MemoryContext keep;			/* the caller's: what the configuration keeps */
	SpConfig   *cfg;
	int32	   *by_id;			/* operators in order of id, see index_ids() */
	int			n_feeds;
	int		   *fed_by;			/* per feed: connection feeding it, -1 the pipeline */
} SpecReader;

extern const char *const spec_connection_fields[];

/* sp_spec_param.c: what the configuration keeps, in r->keep */
extern void *spec_keep_alloc0(SpecReader *r, Size size);
extern char *spec_keep_string(SpecReader *r, const SpJsonNode *v);

/* sp_spec_suggest.c */
#define SUGGEST_MAX_LEN 64		/* longer names are never suggested */
#define SUGGEST_MAX 3

typedef struct Suggestion
{
	const char *input;
	int			n;
	const char *names[SUGGEST_MAX];
	int			dist[SUGGEST_MAX];
} Suggestion;

extern char *spec_quoted_list(const char *const *names, int n, const char *conj);
extern int	spec_names_length(const char *const *names);
extern void spec_suggest_init(Suggestion *s, const char *input);
extern void spec_suggest_consider(Suggestion *s, const char *name);
extern int	spec_errhint_suggestion(const Suggestion *s, const char *otherwise);

/* sp_spec_param.c: members */

/* What an object with members to check is. */
typedef enum MemberOwner
{
	OWNER_PIPELINE,
	OWNER_CONNECTION,
	OWNER_OPERATOR,				/* its type's parameters are members too */
	OWNER_SHORTHAND,			/* the same, the operator being the whole spec */
	OWNER_PROGRAM,				/* a program (the original's form) */
	OWNER_PORT_OPERATOR,		/* a program's Input or Output */
	OWNER_PROTOTYPE,			/* a KeyedPipeline's "prototype" */
	OWNER_TRIGGER_OUTPUT		/* a TriggerSet's "outputOperator" */
} MemberOwner;

extern void spec_check_members(SpecReader *r, const SpJsonNode *obj, const char *const *names,
							   MemberOwner owner, const SpOpType *t);
extern const SpJsonNode *spec_string_member(SpecReader *r, const SpJsonNode *obj,
											const char *key, bool required);

/* sp_spec_param.c: port types and port names */
extern int	spec_read_port_types(SpecReader *r, const SpJsonNode *j, const char *field,
								 SpPortType **out);
extern int	spec_parse_port(const char *s, char prefix, int limit);
extern SpPortType spec_op_in_type(const SpOperator *op, int port);
extern SpPortType spec_op_out_type(const SpOperator *op, int port);
extern int	spec_op_ndata(const SpOperator *op);
extern char *spec_op_port_name(const SpOperator *op, int port);

/* sp_spec_param.c: one operator */

/* Where an error arises while one operator is read. */
typedef struct OperatorPlace
{
	int			index;
	const char *id;				/* NULL until known */
	const SpOpType *type;		/* NULL until known */
} OperatorPlace;

extern void spec_operator_context(void *arg);
extern void spec_read_operator(SpecReader *r, SpOperator *op, const SpJsonNode *j, int index,
							   bool single);
extern void spec_read_segment_bytecode(SpecReader *r, const SpJsonNode *pipe);
extern void spec_refuse_top_level_bytecode(const SpConfig *cfg);

/* sp_spec_nested.c */
extern void spec_read_nested(SpecReader *r, SpOperator *op, const SpJsonNode *j, bool has_id);
extern void spec_read_prototype(SpecReader *r, SpOperator *op, const SpJsonNode *j);
extern void spec_read_trigger_set(SpecReader *r, SpOperator *op, const SpJsonNode *j);

/* sp_spec_mesh.c */
extern SpConfig *spec_read_pipeline(SpecReader *r, const SpJsonNode *doc);
extern void spec_read_operators(SpecReader *r, const SpJsonNode *pipe, const SpJsonNode *single,
								bool program);
extern void spec_wire(SpecReader *r, const SpJsonNode *cj, int c, int slot, int from_i, int to_i);
extern void spec_read_connections(SpecReader *r, const SpJsonNode *j);
extern void spec_order_operators(SpecReader *r);
extern void spec_check_input_entry(SpecReader *r);
extern void spec_check_fed(SpecReader *r, const char *where);
extern int	spec_require_op(SpecReader *r, const char *id, const char *field);
extern int	spec_find_op(const SpecReader *r, const char *id);
extern void spec_connection_context(void *arg);

/* sp_spec_program.c */
extern SpConfig *spec_read_program(SpecReader *r, const SpJsonNode *doc);

/* sp_spec_program.c: the program's own operators, at most one of each */
typedef enum ProgramRole
{
	ROLE_INPUT,
	ROLE_PIPELINE,
	ROLE_OUTPUT,
	N_ROLES
} ProgramRole;

extern const char *const spec_role_names[];

typedef struct ProgramReader
{
	const SpJsonNode *node[N_ROLES];	/* NULL when absent */
	const char *id[N_ROLES];
	int			nports[N_ROLES];	/* Input, Output: their ports */
	SpPortType *types[N_ROLES];
	int		   *input_to;		/* per Input port: the Pipeline data port it
								 * feeds, SP_MAX_PORTS for c1, -1 none */
	int		   *output_from;	/* per Output port: the Pipeline output port
								 * feeding it, -1 none */
	int			n_outside;		/* operators outside the Pipeline */
} ProgramReader;

extern int	spec_program_port(const char *s, char *kind, int limit);

/* sp_spec_program_mesh.c: a program with operators outside its Pipeline */
extern SpConfig *spec_read_program_mesh(SpecReader *r, ProgramReader *p, const SpJsonNode *doc);

#endif							/* SP_SPEC_READER_H */
