-- Every invalid spec is refused when it is read, with a message naming the
-- field, operator or port at fault (docs/reference.md, "The spec"): what is
-- wrong in the message, where in a context line (the operator, connection or
-- output mapping), and the name probably meant in a hint.  try_spec() (from
-- setup.sql) shows the SQLSTATE, message, detail, hint and context of the
-- error, or 'ok'.
\pset format unaligned
\pset null 'null'

-- Malformed JSON: 22P02, with the character where reading stopped.
SELECT try_spec('{"type": "Identity"');
SELECT try_spec('hello');
SELECT try_spec('{"type":"Identity"} x');
-- A duplicate key is named at its second occurrence; keys are compared
-- unescaped, and the first duplicate in the text is the one reported, even
-- when an object inside is checked first.
SELECT try_spec('{"type":"Identity","type":"Identity"}');
SELECT try_spec('{"type":"Identity","\u0074ype":"Identity"}');
SELECT try_spec('{"a":{"b":1,"b":2},"a":3}');
SELECT try_spec('{"a":1,"a":{"b":1,"b":2}}');
-- A long name is shown by its first 63 bytes.
SELECT try_spec('{"' || repeat('k', 70) || '": 1, "' || repeat('k', 70) || '": 2}');
-- The grammar is checked before duplicates are looked for.
SELECT try_spec('{"a":1,"a":2,}');
SELECT try_spec('{"type":"Identity",}');
SELECT try_spec('{"type":"Ident\qity"}');
SELECT try_spec('{"type":"Identity", "id": "a\u0000"}');
SELECT try_spec('{"type":"Identity", "id": "a\ud800"}');
SELECT try_spec('{"type":"Identity", "id": "a\u12"}');
-- Positions count characters, not bytes.
SELECT try_spec('{"type":"Identity","id":"ééé" x}');
SELECT try_spec('{"type":"MovingAverage","window_size":01}');
SELECT try_spec('{"type":"MovingAverage","window_size":1e400}');
SELECT try_spec(repeat('[', 100) || repeat(']', 100));
-- An object of more than 4096 members is refused before its keys are
-- compared: each member "kNNNN":0 and its comma take 10 characters, so
-- member 4097 starts at character 1 + 4096 * 10 + 1 = 40962.
SELECT try_spec('{' || string_agg(format('"k%s":0', lpad(i::text, 4, '0')), ',') || '}')
FROM generate_series(1, 4097) AS i;
-- A document of more than 2,000,000 values is refused as it is read: the
-- array and its first 1,999,999 elements ("0," each) make 2,000,000, so the
-- next element, at character 1 + 1999999 * 2 + 1 = 4000000, is one too many.
SELECT try_spec('[' || repeat('0,', 2000000) || '0]');
SELECT try_spec('');

-- The document must be an object with a type.  An unrecognized field is
-- reported before a missing one, with the closest valid name, else the list
-- of valid names.
SELECT try_spec('[1]');
SELECT try_spec('{}');
SELECT try_spec('{"type": 5}');
SELECT try_spec('{"type": "Pipeline"}');
SELECT try_spec('{"type": "Pipeline", "operators": []}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity"}], "entry": "op1"}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity"}], "entryoperator": "op1"}');
SELECT try_spec('{"operator": [{"type": "Identity"}]}');
SELECT try_spec('{"tpye": "MovingAverage", "window_size": 3}');
SELECT try_spec('{"type": "pipeline", "operators": [{"type": "Identity"}]}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity"}], "late": "ignore"}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity"}], "id": ""}');
-- Ids are names of at most 63 bytes, as the server's identifiers.
SELECT try_spec('{"type": "Pipeline", "id": "' || repeat('é', 32) || '", "operators": [{"type": "Identity"}]}');
SELECT try_spec('{"type": "Identity", "id": "' || repeat('a', 64) || '"}');
SELECT try_spec('{"type": "Identity", "id": "' || repeat('a', 63) || '"}');

-- Port lists: unknown, of a type the entry operator does not take, empty.
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["string"], "operators": [{"type": "Identity"}]}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["numbr"], "operators": [{"type": "Identity"}]}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["number", 1], "operators": [{"type": "Identity"}]}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["vector_number"], "operators": [{"type": "Identity"}]}');
SELECT try_spec('{"type": "Pipeline", "output_port_types": ["vector_boolean"], "operators": [{"type": "Identity"}]}');
SELECT try_spec('{"type": "Pipeline", "output_port_types": [], "operators": [{"type": "Identity"}]}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": "number", "operators": [{"type": "Identity"}]}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": [' || rtrim(repeat('"number", ', 65), ', ') || '], "operators": [{"type": "Identity"}]}');

-- Operators: unknown type, missing, out-of-range, ill-typed or unknown
-- parameters, bad or duplicate ids.  An unrecognized type suggests the
-- closest type names, an exact match but for case first; when none is
-- close, the hint points at the list of operator types.
SELECT try_spec('{"type": "Foo"}');
SELECT try_spec('{"type": "Max"}');
SELECT try_spec('{"type": "Mean", "window_size": 3}');
SELECT try_spec('{"type": "' || repeat('x', 100) || '"}');
SELECT try_spec('{"type": "movingaverage", "window_size": 10}');
SELECT try_spec('{"type": "MovingAvg", "window_size": 10}');
SELECT try_spec('{"type": "Compare", "value": 1}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"id": "a"}]}');
SELECT try_spec('{"type": "MovingAverage"}');
SELECT try_spec('{"type": "MovingAverage", "id": "ma", "window_size": 0}');
SELECT try_spec('{"type": "MovingAverage", "id": "ma", "window_size": -3}');
SELECT try_spec('{"type": "MovingSum", "id": "ms", "window_size": 1000001}');
SELECT try_spec('{"type": "MovingAverage", "id": "ma", "window_size": 2.5}');
SELECT try_spec('{"type": "MovingAverage", "id": "ma", "window_size": "10"}');
SELECT try_spec('{"type": "StandardDeviation", "id": "sd", "window_size": 1}');
-- An unrecognized parameter comes before a missing one.
SELECT try_spec('{"type": "MovingAverage", "windowsize": 10}');
SELECT try_spec('{"type": "MovingAverage", "window_size": 3, "windowsize": 3}');
SELECT try_spec('{"type": "WindowMinMax", "window_size": 3, "mdoe": "min"}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"tpye": "MovingAverage", "window_size": 3}]}');
SELECT try_spec('{"type": "Identity", "window_size": 3}');
SELECT try_spec('{"type": "MovingAverage", "window_size": 3, "factor": 2}');
SELECT try_spec('{"type": "WindowMinMax", "window_size": 3, "mode": "min", "x": 1}');
-- A pipeline's field in an operator says where it belongs: the one-operator
-- shorthand takes the operator's members only, so "late" (or any other
-- field of the pipeline) needs the full form; inside "operators", it goes
-- beside them.  The full form takes it.
SELECT try_spec('{"type": "MovingAverage", "window_size": 3, "late": "drop"}');
SELECT try_spec('{"type": "Identity", "outputMappings": {"op1": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "MaxTracker", "late": "drop"}]}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "MovingAverage", "window_size": 3}], "late": "drop"}');
-- A value given wrong comes before a parameter missing.
SELECT try_spec('{"type": "WindowMinMax", "window_size": 0}');
SELECT try_spec('{"type": "Identity", "id": 5}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, 5]}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "CountNumber", "id": "a"}], "entryOperator": "a"}');
SELECT try_spec('{"type": "Pipeline", "operators": [' || rtrim(repeat('{"type": "Identity"}, ', 257), ', ') || ']}');

-- Entry operator: required with several operators, must exist, must have
-- as many data ports as the pipeline, of the same type.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}]}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}], "entryOperator": "zz"}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "smooth"}], "entryOperator": "smoth"}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["number", "number"], "operators": [{"type": "Identity", "id": "a"}]}');
SELECT try_spec('{"type": "Pipeline", "input_port_types": ["boolean"], "operators": [{"type": "Identity", "id": "a"}]}');

-- Connections: unknown operators, ports they do not have, ports fed twice
-- or never, cycles.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "zz"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "zz", "to": "b"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "b", "fromPort": "o2"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "b", "toPort": "i2"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "b", "toPort": "x1"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "b", "toPort": "i01"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "b", "port": "i1"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "b", "weight": 2}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "ma"}, {"type": "Identity", "id": "stddev"}],
  "connections": [{"from": "ma", "to": "stdev"}], "entryOperator": "ma", "outputMappings": {"stddev": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"to": "b"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "b"}, []], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "b"}, {"from": "a", "to": "b"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "b", "to": "a"}], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [], "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}, {"type": "Identity", "id": "c"}],
  "connections": [{"from": "b", "to": "c"}, {"from": "c", "to": "b"}], "entryOperator": "a", "outputMappings": {"a": {"o1": "o1"}}}');
-- The operator after a cycle is not on it: the cycle named is the real one.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "d"},
  {"type": "Addition", "id": "b"}, {"type": "Identity", "id": "c"}],
  "connections": [{"from": "a", "to": "b"}, {"from": "c", "to": "b", "toPort": "i2"}, {"from": "b", "to": "c"}, {"from": "c", "to": "d"}],
  "entryOperator": "a", "outputMappings": {"d": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}], "connections": {}}');

-- Output mappings: unknown operator, operator port, pipeline port out of
-- range, mapped twice, never mapped, wrong type, missing.
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}], "outputMappings": {"zz": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}], "outputMappings": {"a": {"o2": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}], "outputMappings": {"a": {"o1": "o3"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}], "outputMappings": {"a": {"o1": 1}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}], "outputMappings": {"a": {}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "b"}], "entryOperator": "a", "outputMappings": {"a": {"o1": "o1"}, "b": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "output_port_types": ["number", "number"], "operators": [{"type": "Identity", "id": "a"}],
  "outputMappings": {"a": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "output_port_types": ["number", "number"], "operators": [{"type": "Identity", "id": "a"}]}');
SELECT try_spec('{"type": "Pipeline", "output_port_types": ["boolean"], "operators": [{"type": "Identity", "id": "a"}],
  "outputMappings": {"a": {"o1": "o1"}}}');
SELECT try_spec('{"type": "Pipeline", "operators": [{"type": "Identity", "id": "a"}, {"type": "Identity", "id": "b"}],
  "connections": [{"from": "a", "to": "b"}], "entryOperator": "a"}');

-- Valid specs for contrast: the shorthand, and the full form of the spec's
-- own example.
SELECT try_spec('{"type": "MovingAverage", "window_size": 10}');
SELECT try_spec('{"type": "Pipeline", "id": "daily_ma",
 "input_port_types": ["number"], "output_port_types": ["number"],
 "operators": [{"type": "MovingAverage", "id": "ma", "window_size": 10}],
 "connections": [],
 "entryOperator": "ma",
 "outputMappings": {"ma": {"o1": "o1"}}}');
-- "type" may be left out of a full pipeline spec.
SELECT try_spec('{"operators": [{"type": "CountNumber"}]}');

-- Errors in the cast itself (not caught) show the same message, hint and
-- context, and in terse form the message alone.
SELECT '{"type": "movingsum"}'::pipeline;
\set VERBOSITY terse
SELECT '{"type": "MovingAverage", "id": "ma", "window_size": 0}'::pipeline;
SELECT 'not json'::pipeline;

