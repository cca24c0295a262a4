/*
 * sp_sort.c
 *	  Bottom-up stable merge sort of indexes.
 */
#include "postgres.h"

#include "sp_sort.h"

int32 *
sp_sort_indexes(int32 *a, int32 *buf, int n, SpIndexCmp cmp, const void *arg)
{
	int32	   *b = buf;

	for (int width = 1; width < n; width *= 2)
	{
		int32	   *t;

		for (int lo = 0; lo < n; lo += 2 * width)
		{
			int			mid = Min(lo + width, n),
						hi = Min(lo + 2 * width, n),
						i = lo,
						j = mid,
						k = lo;

			/* take from the right run only when strictly smaller: stable */
			while (i < mid && j < hi)
				b[k++] = cmp(arg, a[j], a[i]) < 0 ? a[j++] : a[i++];
			while (i < mid)
				b[k++] = a[i++];
			while (j < hi)
				b[k++] = a[j++];
		}
		t = a;
		a = b;
		b = t;
	}
	return a;
}
