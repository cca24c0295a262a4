/*
 * sp_spec_suggest.c
 *	  The spec reader's hints: the valid names closest to a misspelt one,
 *	  and names listed as "a", "b" and "c".
 */
#include "postgres.h"


#include "sp_spec_reader.h"

/* "a", "b" and "c" (conj "and"), or with "or" */
char *
spec_quoted_list(const char *const *names, int n, const char *conj)
{
	StringInfoData buf;

	initStringInfo(&buf);
	for (int i = 0; i < n; i++)
		appendStringInfo(&buf, "%s\"%s\"",
						 i == 0 ? "" : i == n - 1 ? psprintf(" %s ", conj) : ", ",
						 names[i]);
	return buf.data;
}

int
spec_names_length(const char *const *names)
{
	int			n = 0;

	while (names[n])
		n++;
	return n;
}

/*
 * Edit distance between two names, ignoring case: inserting or deleting a
 * character costs 1, swapping two adjacent ones 1, replacing one 2 (as much
 * as deleting it and inserting another).  With insertions cheap, an
 * abbreviation ("MovingAvg") comes closer to its full name ("MovingAverage")
 * than to a name of its own length ("MovingSum").  la and lb are the
 * lengths, at most SUGGEST_MAX_LEN.
 */
static int
name_distance(const char *a, int la, const char *b, int lb)
{
	int			rows[3][SUGGEST_MAX_LEN + 1];
	int		   *prev2 = rows[0],
			   *prev = rows[1],
			   *cur = rows[2];

	for (int j = 0; j <= lb; j++)
		prev[j] = j;
	for (int i = 1; i <= la; i++)
	{
		char		ca = pg_ascii_tolower((unsigned char) a[i - 1]);
		int		   *t;

		cur[0] = i;
		for (int j = 1; j <= lb; j++)
		{
			char		cb = pg_ascii_tolower((unsigned char) b[j - 1]);
			int			d = prev[j - 1] + (ca == cb ? 0 : 2);

			d = Min(d, prev[j] + 1);
			d = Min(d, cur[j - 1] + 1);
			if (i > 1 && j > 1 && ca != cb &&
				ca == pg_ascii_tolower((unsigned char) b[j - 2]) &&
				pg_ascii_tolower((unsigned char) a[i - 2]) == cb)
				d = Min(d, prev2[j - 2] + 1);
			cur[j] = d;
		}
		t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}


void
spec_suggest_init(Suggestion *s, const char *input)
{
	s->input = input;
	s->n = 0;
}

/*
 * Keep name if it is among the closest so far, and close at all: within a
 * third of the longer name's length.  Ties keep the order of consideration.
 */
void
spec_suggest_consider(Suggestion *s, const char *name)
{
	int			la = strnlen(s->input, SUGGEST_MAX_LEN + 1),
				lb = strnlen(name, SUGGEST_MAX_LEN + 1);
	int			d,
				i;

	if (la > SUGGEST_MAX_LEN || lb > SUGGEST_MAX_LEN)
		return;
	d = name_distance(s->input, la, name, lb);
	if (d > Max(la, lb) / 3)
		return;
	for (i = s->n; i > 0 && s->dist[i - 1] > d; i--)
	{
		if (i < SUGGEST_MAX)
		{
			s->names[i] = s->names[i - 1];
			s->dist[i] = s->dist[i - 1];
		}
	}
	if (i < SUGGEST_MAX)
	{
		s->names[i] = name;
		s->dist[i] = d;
		s->n = Min(s->n + 1, SUGGEST_MAX);
	}
}

/* errhint() naming the suggestions, else the fallback hint (may be NULL). */
int
spec_errhint_suggestion(const Suggestion *s, const char *otherwise)
{
	/* an exact match but for case outranks every other */
	int			n = (s->n > 0 && s->dist[0] == 0) ? 1 : s->n;

	if (n > 0)
		return errhint("Did you mean %s?", spec_quoted_list(s->names, n, "or"));
	if (otherwise)
		return errhint("%s", otherwise);
	return 0;
}
