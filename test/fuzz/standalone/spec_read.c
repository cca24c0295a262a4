/*
 * spec_read.c
 *	  Reads spec texts outside the server, as the pipeline type's text input
 *	  does (src/pipeline_type.c: the document split from a state, the spec
 *	  read, the value built), so that the work of reading can be counted:
 *	  test/integration/spec_memory.py runs it under valgrind's callgrind,
 *	  which counts the instructions executed inside spec_read_text() only.
 *
 *	  spec_read FILE...    prints "FILE ok" or "FILE <SQLSTATE>" for each
 */
#include "postgres.h"

#include <setjmp.h>
#include <stdio.h>

#include "lib/stringinfo.h"
#include "sp_codec.h"
#include "sp_spec.h"
#include "sp_state.h"

#include "shim.h"

extern void spec_read_text(const char *text);

/* the counted part: not inlined, so that callgrind can name it */
pg_noinline void
spec_read_text(const char *text)
{
	char	   *state;
	char	   *config = sp_state_split_document(text, &state,
												 ERRCODE_INVALID_TEXT_REPRESENTATION);

	if (state != NULL)
	{
		fprintf(stderr, "spec_read: a text with a state is not a spec\n");
		exit(2);
	}
	(void) sp_value_from_config(sp_spec_read(config));
}

int
main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
	{
		FILE	   *f = fopen(argv[i], "rb");
		StringInfoData text;
		char		chunk[65536];
		size_t		n;
		sigjmp_buf	env;

		if (f == NULL)
		{
			perror(argv[i]);
			return 2;
		}
		initStringInfo(&text);
		while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
			appendBinaryStringInfo(&text, chunk, n);
		fclose(f);

		shim_error_jmp = &env;
		if (sigsetjmp(env, 0) == 0)
		{
			spec_read_text(text.data);
			printf("%s ok\n", argv[i]);
		}
		else
		{
			int			code = CopyErrorData()->sqlerrcode;
			char		sqlstate[6];

			for (int k = 0; k < 5; k++)
				sqlstate[k] = PGUNSIXBIT(code >> (6 * k));
			sqlstate[5] = '\0';
			printf("%s %s\n", argv[i], sqlstate);
		}
		shim_error_jmp = NULL;
		shim_free_all();
	}
	return 0;
}
