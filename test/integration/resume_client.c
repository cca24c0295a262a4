/*
 * resume_client.c
 *	  test/integration/resume.py's client in libpq's binary mode: every stored state of
 *	  table st (stream int, p pipeline) goes to the client as a binary
 *	  result and back to the server as a binary parameter of type pipeline.
 *
 *	  resume_client 'conninfo'
 *
 * Checks, failing with exit status 1 and a message:
 *	- each value arrives in binary (result format 1, type pipeline), laid
 *	  out as the wire form (format version, zero flags, configuration
 *	  length within the message), and equal to pipeline_send() of it;
 *	- sent back as a binary parameter it is stored as the same value:
 *	  pipeline_send() of the stored value equals the bytes sent;
 *	- the text form sent as a binary parameter is refused with 22P03 (the
 *	  parameter really is read as binary).
 * Prints "<values> values, <bytes> bytes" on success.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libpq-fe.h>

static PGconn *conn;

static void
die(const char *what, PGresult *res)
{
	fprintf(stderr, "resume_client: %s%s%s\n", what, res ? ": " : "",
			res ? PQresultErrorMessage(res) : "");
	PQfinish(conn);
	exit(1);
}

static PGresult *
check(PGresult *res, ExecStatusType want, const char *what)
{
	if (PQresultStatus(res) != want)
		die(what, res);
	return res;
}

/* version, flags, reserved, configuration length: as pipeline_recv reads them */
static void
check_wire_form(const unsigned char *b, int len, int stream)
{
	uint32_t	config_len;
	char		msg[160];

	snprintf(msg, sizeof(msg), "stream %d: the binary value is not in the wire form", stream);
	if (len < 8 || (b[0] != 1 && b[0] != 2) || b[1] != 0 || b[2] != 0 || b[3] != 0)
		die(msg, NULL);
	memcpy(&config_len, b + 4, 4);
	config_len = ntohl(config_len);
	if (b[0] == 1 ? config_len != (uint32_t) len - 8 : config_len >= (uint32_t) len - 8)
		die(msg, NULL);
	if (b[8] != '{' || b[8 + config_len - 1] != '}')
		die(msg, NULL);
}

int
main(int argc, char **argv)
{
	PGresult   *res;
	int			n;
	long		bytes = 0;
	unsigned int pipeline_oid;
	const Oid	int4_oid = 23;

	if (argc != 2)
	{
		fprintf(stderr, "usage: resume_client conninfo\n");
		return 2;
	}
	conn = PQconnectdb(argv[1]);
	if (PQstatus(conn) != CONNECTION_OK)
		die(PQerrorMessage(conn), NULL);
	res = check(PQexec(conn, "SELECT 'pipeline'::regtype::oid"), PGRES_TUPLES_OK, "type lookup");
	pipeline_oid = (unsigned int) strtoul(PQgetvalue(res, 0, 0), NULL, 10);
	PQclear(res);
	check(PQexec(conn, "BEGIN"), PGRES_COMMAND_OK, "BEGIN");
	{
		Oid			types[2] = {pipeline_oid, int4_oid};

		check(PQprepare(conn, "put", "UPDATE st SET p = $1 WHERE stream = $2 RETURNING pipeline_send(p)",
						2, types), PGRES_COMMAND_OK, "prepare");
	}

	/* every value and its pipeline_send(), all columns in binary */
	res = check(PQexecParams(conn, "SELECT stream, p, pipeline_send(p) FROM st ORDER BY stream",
							 0, NULL, NULL, NULL, NULL, 1),
				PGRES_TUPLES_OK, "fetching the states");
	n = PQntuples(res);
	if (PQfformat(res, 1) != 1 || PQftype(res, 1) != pipeline_oid)
		die("the states do not arrive as binary values of type pipeline", NULL);
	for (int i = 0; i < n; i++)
	{
		int32_t		stream_be;
		const char *value = PQgetvalue(res, i, 1);
		int			len = PQgetlength(res, i, 1);
		const char *params[2];
		int			lengths[2];
		const int	formats[2] = {1, 1};
		PGresult   *put;
		char		msg[160];

		if (PQgetisnull(res, i, 1))
			continue;
		memcpy(&stream_be, PQgetvalue(res, i, 0), 4);
		check_wire_form((const unsigned char *) value, len, (int) ntohl(stream_be));
		snprintf(msg, sizeof(msg), "stream %d", (int) ntohl(stream_be));
		if (PQgetlength(res, i, 2) != len || memcmp(PQgetvalue(res, i, 2), value, len) != 0)
			die(strcat(msg, ": the binary result differs from pipeline_send()"), NULL);
		params[0] = value;
		lengths[0] = len;
		params[1] = PQgetvalue(res, i, 0);
		lengths[1] = 4;
		put = check(PQexecPrepared(conn, "put", 2, params, lengths, formats, 1),
					PGRES_TUPLES_OK, msg);
		if (PQntuples(put) != 1 || PQgetlength(put, 0, 0) != len ||
			memcmp(PQgetvalue(put, 0, 0), value, len) != 0)
			die(strcat(msg, ": the value sent as a binary parameter is stored as another"), NULL);
		PQclear(put);
		bytes += len;
	}
	PQclear(res);
	check(PQexec(conn, "COMMIT"), PGRES_COMMAND_OK, "COMMIT");

	/* the text form, sent as binary, must be refused: the parameter is binary */
	res = check(PQexec(conn, "SELECT p::text FROM st WHERE p IS NOT NULL LIMIT 1"),
				PGRES_TUPLES_OK, "fetching a text form");
	if (PQntuples(res) == 1)
	{
		const char *params[1] = {PQgetvalue(res, 0, 0)};
		int			lengths[1] = {PQgetlength(res, 0, 0)};
		const int	formats[1] = {1};
		Oid			types[1] = {pipeline_oid};
		PGresult   *bad = PQexecParams(conn, "SELECT $1", 1, types, params, lengths, formats, 1);
		const char *code = PQresultErrorField(bad, PG_DIAG_SQLSTATE);

		if (PQresultStatus(bad) != PGRES_FATAL_ERROR || code == NULL || strcmp(code, "22P03") != 0)
			die("the text form sent as a binary parameter was not refused with 22P03", bad);
		PQclear(bad);
	}
	PQclear(res);
	PQfinish(conn);
	printf("%d values, %ld bytes\n", n, bytes);
	return 0;
}
