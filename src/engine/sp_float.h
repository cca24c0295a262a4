/*
 * sp_float.h
 *	  PostgreSQL's float8 functions, errors included, for the operators that
 *	  compute them (ops_arith.c defines them; the RPN interpreter of
 *	  sp_rpn.c calls them too, so that an opcode and the operator of the
 *	  same name agree).
 */
#ifndef SP_FLOAT_H
#define SP_FLOAT_H

extern double sp_float8_power(double x, double y);
extern double sp_float8_exp(double x);
extern double sp_float8_ln(double x);
extern double sp_float8_log10(double x);
extern double sp_float8_sin(double x);
extern double sp_float8_cos(double x);
extern double sp_float8_tan(double x);

#endif							/* SP_FLOAT_H */
