-- Prototypes: the original's templates of operators with ${param}
-- references and defaults, expanded into the spec they stand for (which is
-- what is stored).  The original's test scenarios, ported: a program's
-- operators are its Input, one Pipeline and an Output, so the scenarios
-- whose instances sit between an Input and an Output put them in a
-- Pipeline.  Expected values by hand.
\pset format unaligned
\pset null 'null'

-- adjustableMA: MovingAverage(window) into Scale(scale), scale 1 by
-- default.  window 3 and scale 2 over 3, 6, 9: MA 6, scaled 12.
CREATE TABLE protos AS SELECT $$"prototypes": {
    "adjustableMA": {
      "parameters": [
        {"name": "window", "type": "number"},
        {"name": "scale", "type": "number", "default": 1.0}
      ],
      "operators": [
        {"type": "MovingAverage", "id": "ma", "window_size": "${window}"},
        {"type": "Scale", "id": "scale", "value": "${scale}"}
      ],
      "connections": [{"from": "ma", "to": "scale"}],
      "entry": {"operator": "ma"},
      "output": {"operator": "scale"}
    }
  }$$::text AS p;
SELECT format('{%s, "operators": [{"id": "ma_instance", "prototype": "adjustableMA", "parameters": {"window": 3, "scale": 2.0}}],
               "entryOperator": "ma_instance", "outputMappings": {"ma_instance": {"o1": "o1"}}}', p)::pipeline
FROM protos;
SELECT trace(format('{%s, "operators": [{"id": "ma_instance", "prototype": "adjustableMA", "parameters": {"window": 3, "scale": 2.0}}],
                     "entryOperator": "ma_instance", "outputMappings": {"ma_instance": {"o1": "o1"}}}', p)::pipeline,
             '{3, 6, 9}')
FROM protos;
-- The default scale, 1: the same averages unscaled; two instances side by
-- side, each with ids of its own, chained by a connection between the
-- instances (from the first's output operator to the second's entry).
-- MA(2) of 3, 6, 9, 12: 4.5, 7.5, 10.5, then MA(2) of those times 10: 60, 90.
SELECT format('{%s, "operators": [{"id": "a", "prototype": "adjustableMA", "parameters": {"window": 2}},
                                  {"id": "b", "prototype": "adjustableMA", "parameters": {"window": 2, "scale": 10}}],
               "connections": [{"from": "a", "to": "b"}],
               "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}', p)::pipeline
FROM protos;
SELECT trace(format('{%s, "operators": [{"id": "a", "prototype": "adjustableMA", "parameters": {"window": 2}},
                                        {"id": "b", "prototype": "adjustableMA", "parameters": {"window": 2, "scale": 10}}],
                     "connections": [{"from": "a", "to": "b"}],
                     "entryOperator": "a", "outputMappings": {"b": {"o1": "o1"}}}', p)::pipeline,
             '{3, 6, 9, 12}')
FROM protos;

-- What an instance may get wrong: a required parameter left out, a value of
-- another type, a parameter the prototype does not declare, a reference to
-- none, a prototype that does not exist.
SELECT try_spec(format('{%s, "operators": [{"id": "m", "prototype": "adjustableMA"}], "entryOperator": "m"}', p)) FROM protos;
SELECT try_spec(format('{%s, "operators": [{"id": "m", "prototype": "adjustableMA", "parameters": {"window": "not_a_number"}}], "entryOperator": "m"}', p)) FROM protos;
SELECT try_spec(format('{%s, "operators": [{"id": "m", "prototype": "adjustableMA", "parameters": {"window": 3, "size": 3}}], "entryOperator": "m"}', p)) FROM protos;
SELECT try_spec(format('{%s, "operators": [{"id": "m", "prototype": "adjustableMA", "parameters": {"window": 3}}], "entryOperator": "m"}',
                       replace(p, '"${scale}"', '"${scal}"'))) FROM protos;
SELECT try_spec(format('{%s, "operators": [{"id": "m", "prototype": "adjustableMa", "parameters": {"window": 3}}], "entryOperator": "m"}', p)) FROM protos;
SELECT try_spec(format('{%s, "operators": [{"id": "m", "prototype": "adjustableMA", "parameters": {"window": 3}, "type": "MovingAverage"}], "entryOperator": "m"}', p)) FROM protos;
-- A value a parameter passes on must still suit the operator.
SELECT try_spec(format('{%s, "operators": [{"id": "m", "prototype": "adjustableMA", "parameters": {"window": 2.5}}], "entryOperator": "m"}', p)) FROM protos;
-- A prototype may not contain itself.
SELECT try_spec('{"prototypes": {"loop": {"operators": [{"id": "again", "prototype": "loop"}], "entry": {"operator": "again"}, "output": {"operator": "again"}}},
  "operators": [{"id": "x", "prototype": "loop"}], "entryOperator": "x"}');
-- A "${...}" outside an instance is only a string.
SELECT try_spec('{"type": "MovingAverage", "window_size": "${window}"}');

-- The original's Pipeline prototype: a prototype holding a Pipeline
-- (MovingAverage(ma_window) into StandardDeviation(std_window), 3 by
-- default), instantiated in a program as proc1, whose connections to proc1
-- (c1 included) reach the Pipeline, called proc1::pipeline.  Values 3t on
-- rows 1..5 with key 1, then key 2: averages 6, 9, 12, deviation 3.
CREATE TABLE proc AS SELECT $${
  "prototypes": {
    "complexProcessor": {
      "parameters": [
        {"name": "ma_window", "type": "number"},
        {"name": "std_window", "type": "number", "default": 3}
      ],
      "operators": [
        {
          "type": "Pipeline",
          "id": "pipeline",
          "input_port_types": ["number"],
          "output_port_types": ["number"],
          "operators": [
            {"type": "MovingAverage", "id": "ma", "window_size": "${ma_window}"},
            {"type": "StandardDeviation", "id": "std", "window_size": "${std_window}"}
          ],
          "connections": [
            {"from": "ma", "to": "std", "fromPort": "o1", "toPort": "i1"}
          ],
          "entryOperator": "ma",
          "outputMappings": {
            "std": {"o1": "o1"}
          }
        }
      ],
      "connections": [],
      "entry": {"operator": "pipeline"},
      "output": {"operator": "pipeline"}
    }
  },
  "operators": [
    {"type": "Input", "id": "input1", "portTypes": ["number", "number"]},
    {
      "id": "proc1",
      "prototype": "complexProcessor",
      "parameters": {"ma_window": 3}
    },
    {"type": "Output", "id": "output1", "portTypes": ["number"]}
  ],
  "connections": [
    {"from": "input1", "to": "proc1", "fromPort": "o1", "toPort": "i1"},
    {"from": "input1", "to": "proc1", "fromPort": "o2", "toPort": "c1"},
    {"from": "proc1", "to": "output1", "fromPort": "o1", "toPort": "i1"}
  ],
  "entryOperator": "input1",
  "output": {
    "output1": ["o1"]
  }
}$$::text AS spec;
SELECT spec::pipeline FROM proc;
SELECT t, segment_agg(3.0 * t, CASE WHEN t <= 5 THEN 1 ELSE 2 END, (SELECT spec FROM proc)::pipeline) OVER (ORDER BY t)
FROM generate_series(1, 6) AS t;

-- The original's invalid nested parameter: a reference to a parameter the
-- prototype does not have, two Pipelines deep, is refused.
SELECT try_spec($${
  "prototypes": {
    "nestedProcessor": {
      "parameters": [{"name": "outer_window", "type": "number"}],
      "operators": [{
        "type": "Pipeline", "id": "outer",
        "input_port_types": ["number"], "output_port_types": ["number"],
        "operators": [{
          "type": "Pipeline", "id": "inner",
          "input_port_types": ["number"], "output_port_types": ["number"],
          "operators": [{"type": "MovingAverage", "id": "ma", "window_size": "${nonexistent_param}"}],
          "connections": [], "entryOperator": "ma", "outputMappings": {"ma": {"o1": "o1"}}}],
        "connections": [], "entryOperator": "inner", "outputMappings": {"inner": {"o1": "o1"}}}],
      "connections": [],
      "entry": {"operator": "outer"},
      "output": {"operator": "outer"}
    }
  },
  "operators": [
    {"type": "Input", "id": "input1", "portTypes": ["number"]},
    {"id": "proc1", "prototype": "nestedProcessor", "parameters": {"outer_window": 3}},
    {"type": "Output", "id": "output1", "portTypes": ["number"]}
  ],
  "connections": [{"from": "input1", "to": "proc1"}, {"from": "proc1", "to": "output1"}],
  "entryOperator": "input1",
  "output": {"output1": ["o1"]}
}$$);

-- The original's nested prototypes: dualMA holds two simpleMA instances,
-- passing its own parameters on ("${window1}"), its connection naming the
-- inner operators as "ma1::ma".  Windows 2 and 3 over 2, 4, 6, 8, 10: the
-- first averages 3, 5, 7, 9, the second 5 and 7, as in the original.
CREATE TABLE dual AS SELECT $${
  "prototypes": {
    "simpleMA": {
      "parameters": [{"name": "window", "type": "number"}],
      "operators": [{"type": "MovingAverage", "id": "ma", "window_size": "${window}"}],
      "connections": [],
      "entry": {"operator": "ma"},
      "output": {"operator": "ma"}
    },
    "dualMA": {
      "parameters": [{"name": "window1", "type": "number"}, {"name": "window2", "type": "number"}],
      "operators": [
        {"id": "ma1", "prototype": "simpleMA", "parameters": {"window": "${window1}"}},
        {"id": "ma2", "prototype": "simpleMA", "parameters": {"window": "${window2}"}}
      ],
      "connections": [{"from": "ma1::ma", "to": "ma2::ma"}],
      "entry": {"operator": "ma1::ma"},
      "output": {"operator": "ma2::ma"}
    }
  },
  "type": "Pipeline",
  "operators": [{"id": "nested_ma", "prototype": "dualMA", "parameters": {"window1": 2, "window2": 3}}],
  "entryOperator": "nested_ma",
  "outputMappings": {"nested_ma": {"o1": "o1"}}
}$$::text AS spec;
SELECT spec::pipeline FROM dual;
SELECT trace((SELECT spec FROM dual)::pipeline, '{2, 4, 6, 8, 10}');
-- An inline prototype, as the original allows: the object in place of the name.
SELECT trace('{"type": "Pipeline", "operators": [{"id": "x", "prototype": {
    "parameters": [{"name": "k", "type": "number", "default": 4}],
    "operators": [{"type": "Add", "id": "add", "value": "${k}"}],
    "entry": {"operator": "add"}, "output": {"operator": "add"}}}],
  "entryOperator": "x", "outputMappings": {"x": {"o1": "o1"}}}', '{1, 2}');
-- Array and boolean parameters.
SELECT trace('{"type": "Pipeline", "prototypes": {"f": {
    "parameters": [{"name": "c", "type": "array"}, {"name": "b", "type": "boolean", "default": true}],
    "operators": [{"type": "FiniteImpulseResponse", "id": "fir", "coeff": "${c}"},
                  {"type": "ConstantNumberToBoolean", "id": "k", "value": "${b}"},
                  {"type": "BooleanToNumber", "id": "n"}],
    "connections": [{"from": "fir", "to": "k"}, {"from": "k", "to": "n"}],
    "entry": {"operator": "fir"}, "output": {"operator": "n"}}},
  "operators": [{"id": "x", "prototype": "f", "parameters": {"c": [1, 2]}},
                {"id": "y", "prototype": "f", "parameters": {"c": [0.5], "b": false}}],
  "connections": [{"from": "x", "to": "y"}],
  "entryOperator": "x", "outputMappings": {"y": {"o1": "o1"}}}', '{1, 2, 3}');
