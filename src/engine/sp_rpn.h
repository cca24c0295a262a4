/*
 * sp_rpn.h
 *	  The original library's RPN bytecode: a program of postfix expressions
 *	  over a row's input values, with stateful opcodes, compiled once when a
 *	  spec is read and run once per row.
 *
 * The interpreter does not know where its inputs come from: FusedExpression
 * passes its data ports' values, and an operator over a vector can pass the
 * vector's elements.  It runs one row: every expression, in order, each
 * ending in END, which gives one output value.  The program's state is the
 * state of its stateful opcodes, each kept as an operator's state (a
 * "cell"): the windowed opcodes are the operators of the same name
 * (MA_UPDATE is MovingAverage, ...), so they compute what those compute.
 *
 * A compiled program is valid by construction: sp_rpn_compile() refuses any
 * bytecode whose run could leave the stack, read an input, constant,
 * coefficient or state slot that is not there, or end without its outputs;
 * so sp_rpn_run() checks nothing per instruction, and the only stored
 * values it reads are its cells' states, which their operators' own checks
 * judge when a state is decoded.
 */
#ifndef SP_RPN_H
#define SP_RPN_H

#include "sp_operator.h"

/* Bounds on a program (docs/reference.md, FusedExpression). */
#define SP_RPN_MAX_STACK	64		/* values on the stack at once */
#define SP_RPN_MAX_CODE		16384	/* numbers in a bytecode */
#define SP_RPN_MAX_VALUES	16384	/* constants, coefficients */
#define SP_RPN_MAX_SLOT		65535	/* the original's state slots */

typedef struct SpRpnInsn
{
	uint8		op;				/* the opcode */
	uint8		field;			/* STATE_LOAD: which of the cell's values */
	int32		arg;			/* INPUT, CONST: the index; a stateful
								 * opcode or STATE_LOAD: its cell */
} SpRpnInsn;

/* A stateful opcode's state: an operator's, at state_off in the program's. */
typedef struct SpRpnCell
{
	const SpOpType *type;
	SpParams	params;
	bool		lazy;			/* its output is computed by type->value */
	Size		state_off;
	Size		state_size;
	int			first_ring;		/* its rings: the program's first_ring .. */
	int			n_rings;
	const char *name;			/* "<opcode>@<element>", in the state */
} SpRpnCell;

typedef struct SpRpn
{
	int			n_insns;
	SpRpnInsn  *insns;
	const double *constants;
	int			n_outputs;		/* END opcodes */
	int			n_inputs;		/* INPUT reads in[0 .. n_inputs) */
	int			n_cells;
	SpRpnCell  *cells;
	Size		state_size;		/* the cells' fixed states, MAXALIGNed each */
	int			n_rings;
	int64	   *ring_limits;
} SpRpn;

/* What a spec gives: the bytecode, its constants and coefficients. */
typedef struct SpRpnSource
{
	const double *code;
	int			n_code;
	const double *constants;
	int			n_constants;
	const double *coefficients;
	int			n_coefficients;
	int			n_outputs;		/* END opcodes the bytecode must have */
	const char *outputs_name;	/* what n_outputs is (NULL: "numOutputs") */
	int			max_inputs;		/* INPUT indexes must be below it; -1: any,
								 * the caller checks at run time */
	const char *inputs_name;	/* what max_inputs counts ("numPorts") */

	/*
	 * A Pipeline's segment key (its "segmentBytecode"): one expression of
	 * the opcodes without state (0 to 20, 26 to 34), its constants named
	 * constants_name; false, NULL for FusedExpression.
	 */
	bool		segment_key;
	const char *constants_name;
} SpRpnSource;

/*
 * Compile and check a bytecode, in CurrentMemoryContext; a bytecode that
 * cannot run is refused with 22023, the detail naming the element at fault.
 */
extern const SpRpn *sp_rpn_compile(const SpRpnSource *src);

/*
 * Run one row: in holds n_in values (at least prog->n_inputs: fewer is an
 * error, 22023), out receives prog->n_outputs values.  Returns whether the
 * row emits: false when a value an expression needs was not produced (a
 * window not full yet) or a GATE found its predicate false; the cells
 * advanced either way, and out is then undefined.
 */
extern bool sp_rpn_run(const SpRpn *prog, void *state, SpRing *rings,
					   const double *in, int n_in, double *out);

/* For an operator's SpOpType: rings (limits filled), visit, check, restore. */
extern int	sp_rpn_rings(const SpRpn *prog, int64 *limits);
extern void sp_rpn_visit(const SpRpn *prog, void *state, SpRing *rings, SpStateVisitor *v);
extern const char *sp_rpn_check(const SpRpn *prog, const void *state, const SpRing *rings);
extern void sp_rpn_restore(const SpRpn *prog, void *state, const SpRing *rings);

#endif							/* SP_RPN_H */
