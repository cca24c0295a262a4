/*
 * sp_sort.h
 *	  A stable merge sort of indexes, O(n log n) whatever the input: the spec
 *	  reader sorts hostile input (object keys, operator ids), where a
 *	  quicksort could be driven quadratic.
 */
#ifndef SP_SORT_H
#define SP_SORT_H

/* Negative, zero or positive as item x sorts before, with or after item y. */
typedef int (*SpIndexCmp) (const void *arg, int32 x, int32 y);

/*
 * Sort a[0..n) by cmp; buf has room for n.  Returns whichever of a and buf
 * holds the result.
 */
extern int32 *sp_sort_indexes(int32 *a, int32 *buf, int n, SpIndexCmp cmp, const void *arg);

#endif							/* SP_SORT_H */
