/*
 * work.c
 *	  segpipe's work, counted: the code the server runs, outside it, so that
 *	  valgrind's callgrind can count the instructions executed inside one
 *	  function (test/integration/work.py; --toggle-collect names it).
 *
 *	  work read FILE...
 *		Reads each spec text as the pipeline type's text input does
 *		(src/server/pipeline_type.c: the document split from a state, the spec read,
 *		the value built); prints "FILE ok" or "FILE <SQLSTATE>".  Counted:
 *		spec_read_text().
 *
 *	  work partitions FILE PARTITIONS ROWS SEGMENT
 *		Reads the spec in FILE, then runs PARTITIONS partitions of ROWS rows,
 *		each begun as segment_agg begins one (src/server/segment_agg.c: a fresh
 *		context, a run created from the spec), with a new key every SEGMENT
 *		rows; prints the number of emissions.  Counted: run_partitions().
 */
#include "postgres.h"

#include <setjmp.h>
#include <stdio.h>

#include "lib/stringinfo.h"
#include "utils/memutils.h"
#include "sp_codec.h"
#include "sp_engine.h"
#include "sp_spec.h"
#include "sp_state.h"

#include "shim.h"

extern void spec_read_text(const char *text);
extern long run_partitions(const SpConfig *cfg, long partitions, long rows, long segment);

/* the counted parts: not inlined, so that callgrind can name them */
pg_noinline void
spec_read_text(const char *text)
{
	char	   *state;
	char	   *config = sp_text_split(text, &state, ERRCODE_INVALID_TEXT_REPRESENTATION);

	if (state != NULL)
	{
		fprintf(stderr, "work: a text with a state is not a spec\n");
		exit(2);
	}
	(void) sp_value_from_config(sp_spec_read(config));
}

pg_noinline long
run_partitions(const SpConfig *cfg, long partitions, long rows, long segment)
{
	double	   *values = palloc0(sizeof(double) * cfg->n_in);
	long		emitted = 0;

	for (long p = 0; p < partitions; p++)
	{
		MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "partition",
												  ALLOCSET_DEFAULT_SIZES);
		SpRun	   *run = sp_run_create(cfg, cxt);

		for (long r = 0; r < rows; r++)
		{
			for (int i = 0; i < cfg->n_in; i++)
				values[i] = (double) (r % 7);
			emitted += sp_run_row(run, values, r % segment == 0 ? SP_KEY_NEW : SP_KEY_SAME);
		}
		MemoryContextDelete(cxt);
	}
	return emitted;
}

static char *
read_file(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	StringInfoData text;
	char		chunk[65536];
	size_t		n;

	if (f == NULL)
	{
		perror(path);
		exit(2);
	}
	initStringInfo(&text);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		appendBinaryStringInfo(&text, chunk, n);
	fclose(f);
	return text.data;
}

static void
print_sqlstate(const char *what)
{
	int			code = CopyErrorData()->sqlerrcode;
	char		sqlstate[6];

	for (int k = 0; k < 5; k++)
		sqlstate[k] = PGUNSIXBIT(code >> (6 * k));
	sqlstate[5] = '\0';
	printf("%s %s\n", what, sqlstate);
}

int
main(int argc, char **argv)
{
	sigjmp_buf	env;

	if (argc >= 2 && strcmp(argv[1], "read") == 0)
	{
		for (int i = 2; i < argc; i++)
		{
			char	   *text = read_file(argv[i]);

			shim_error_jmp = &env;
			if (sigsetjmp(env, 0) == 0)
			{
				spec_read_text(text);
				printf("%s ok\n", argv[i]);
			}
			else
				print_sqlstate(argv[i]);
			shim_error_jmp = NULL;
			shim_free_all();
		}
		return 0;
	}
	if (argc == 6 && strcmp(argv[1], "partitions") == 0 && atol(argv[5]) > 0)
	{
		char	   *text = read_file(argv[2]);

		shim_error_jmp = &env;
		if (sigsetjmp(env, 0) == 0)
			printf("%ld emitted\n", run_partitions(sp_spec_read(text), atol(argv[3]), atol(argv[4]),
												   atol(argv[5])));
		else
		{
			print_sqlstate(argv[2]);
			return 1;
		}
		return 0;
	}
	fprintf(stderr, "usage: work read FILE... | work partitions FILE PARTITIONS ROWS SEGMENT\n");
	return 2;
}
