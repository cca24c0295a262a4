-- The pipeline type's text and binary forms (docs/reference.md, "The binary
-- form"; docs/design.md, "The state's text").
\pset format unaligned
\pset null 'null'

-- Text output is the configuration with every default made explicit.
SELECT '{"type": "MovingAverage", "window_size": 10}'::pipeline;
SELECT '{"type": "Identity", "id": "x"}'::pipeline;
-- Members in any order and any spacing give the same canonical text.
SELECT '{ "outputMappings" : {"s": {"o1": "o1"}}, "late": "drop",
          "operators": [{"id": "s", "type": "CumulativeSum"}],
          "id": "p1", "type": "Pipeline" }'::pipeline;
-- Connections are printed with their ports.
SELECT '{"type": "Pipeline", "id": "chain", "output_port_types": ["number", "number"],
  "operators": [{"type": "MovingSum", "id": "ms", "window_size": 4},
                {"type": "StandardDeviation", "id": "sd", "window_size": 2}],
  "connections": [{"from": "ms", "to": "sd"}],
  "entryOperator": "ms", "outputMappings": {"sd": {"o1": "o2"}, "ms": {"o1": "o1"}}}'::pipeline;
-- Strings are escaped on output, and \u escapes are decoded on input.
SELECT '{"type": "Identity", "id": "a \"quoted\" \\ id \u00e9"}'::pipeline;

-- Text round trip: output read back gives the same output.
CREATE TABLE specs (name text, p pipeline);
INSERT INTO specs VALUES
  ('ma', '{"type": "MovingAverage", "window_size": 10}'),
  ('sd', '{"type": "StandardDeviation", "window_size": 1000000}'),
  ('mesh', '{"type": "Pipeline", "output_port_types": ["number", "number"],
    "operators": [{"type": "Identity", "id": "in"}, {"type": "CountNumber", "id": "cnt"}],
    "connections": [{"from": "in", "to": "cnt"}], "entryOperator": "in",
    "outputMappings": {"cnt": {"o1": "o1"}, "in": {"o1": "o2"}}}');
SELECT name, p::text::pipeline::text = p::text AS round_trips FROM specs ORDER BY name;

-- Binary form: a version byte (1), flags (0), reserved (0), the text's
-- length as a 4-byte big-endian integer, then the text.
SELECT name, substring(b FROM 1 FOR 4) AS head,
       (get_byte(b, 4) << 24 | get_byte(b, 5) << 16 | get_byte(b, 6) << 8 | get_byte(b, 7))
         = octet_length(p::text) AS length_ok,
       convert_from(substring(b FROM 9), 'UTF8') = p::text AS text_ok
FROM (SELECT name, p, pipeline_send(p) AS b FROM specs) AS s ORDER BY name;

-- Binary COPY without a file: copy_in(table, stream) feeds the bytes of a
-- binary COPY stream to COPY FROM PROGRAM through printf (octal escapes),
-- so the test writes nothing to disk.  copy_stream(rows) builds the stream:
-- signature, flags, header extension, the rows (a 2-byte field count, then
-- each field as a 4-byte length and its bytes), the trailer.
CREATE FUNCTION copy_in(tbl regclass, stream bytea) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('COPY %s FROM PROGRAM %L (FORMAT binary)', tbl,
                   'printf ''' || (SELECT string_agg(format('\%s%s%s', b >> 6, (b >> 3) & 7, b & 7), '' ORDER BY i)
                                   FROM (SELECT i, get_byte(stream, i) AS b
                                         FROM generate_series(0, length(stream) - 1) AS i) AS x) || '''');
END $$;
CREATE FUNCTION copy_stream(rows bytea[]) RETURNS bytea LANGUAGE sql AS $$
  SELECT '\x5047434f50590aff0d0a00'::bytea || '\x0000000000000000'::bytea
         || coalesce(string_agg(r, ''::bytea ORDER BY n), ''::bytea) || '\xffff'::bytea
  FROM unnest(rows) WITH ORDINALITY AS u(r, n)
$$;
CREATE FUNCTION copy_field(b bytea) RETURNS bytea LANGUAGE sql AS $$
  SELECT int4send(length(b)) || b
$$;

-- Binary round trip: each value's send form goes through COPY ... (FORMAT
-- binary), so pipeline_recv() reads what pipeline_send() wrote.
CREATE TABLE specs_copy (LIKE specs);
SELECT copy_in('specs_copy', copy_stream(array_agg(int2send(2::int2) || copy_field(convert_to(name, 'UTF8'))
                                                     || copy_field(pipeline_send(p)))))
FROM specs;
SELECT s.name, s.p::text = c.p::text AS same
FROM specs s JOIN specs_copy c USING (name) ORDER BY name;

-- Malformed binary input is refused with 22P03 and a clear reason.
-- try_recv() feeds the bytes as one binary COPY field to a pipeline
-- column, so pipeline_recv() sees exactly these bytes.
CREATE FUNCTION try_recv(bytes bytea) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    detail text;
    got text;
BEGIN
    CREATE TEMP TABLE recv_field (p pipeline);
    PERFORM copy_in('recv_field', copy_stream(ARRAY[int2send(1::int2) || copy_field(bytes)]));
    SELECT p::text INTO got FROM recv_field;
    DROP TABLE recv_field;
    RETURN 'ok: ' || got;
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || coalesce(nullif(' (' || detail || ')', ' ()'), '');
END $$;

-- Well-formed: version 1, then 19 (0x13) bytes of text.
SELECT try_recv('\x01000000' || '\x00000013'::bytea || convert_to('{"type":"Identity"}', 'UTF8'));
-- A length that does not match, a version or flags this build does not
-- know, a header cut short, a NUL or invalid UTF-8 in the text, a text
-- that is no spec.
SELECT try_recv('\x01000000' || '\x00000012'::bytea || convert_to('{"type":"Identity"}', 'UTF8'));
SELECT try_recv('\x03000000' || '\x00000013'::bytea || convert_to('{"type":"Identity"}', 'UTF8'));
SELECT try_recv('\x01010000' || '\x00000013'::bytea || convert_to('{"type":"Identity"}', 'UTF8'));
SELECT try_recv('\x01000001' || '\x00000013'::bytea || convert_to('{"type":"Identity"}', 'UTF8'));
SELECT try_recv('\x01000000' || '\x7fffffff'::bytea || convert_to('{"type":"Identity"}', 'UTF8'));
SELECT try_recv('\x01000000' || '\xffffffff'::bytea);
SELECT try_recv('\x010000');
SELECT try_recv('\x');
SELECT try_recv('\x01000000' || '\x00000003'::bytea || '\x7b007d'::bytea);
SELECT try_recv('\x01000000' || '\x00000003'::bytea || '\x7bff7d'::bytea);
SELECT try_recv('\x01000000' || '\x00000004'::bytea || convert_to('null', 'UTF8'));
SELECT try_recv('\x01000000' || '\x00000010'::bytea || convert_to('{"type":"Nope!"}', 'UTF8'));

DROP FUNCTION try_recv(bytea), copy_in(regclass, bytea), copy_stream(bytea[]), copy_field(bytea);
DROP TABLE specs, specs_copy;
