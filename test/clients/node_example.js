// test/clients/node_example.js: node-postgres, a spec as an object in, emissions and the pipeline out
const { Client } = require('pg');

// A pipeline's binary form: version, flags, reserved, length, texts.
function pipelineFromWire(buf) {
  const version = buf.readUInt8(0), configLen = buf.readUInt32BE(4);
  if (![1, 2].includes(version) || buf.readUInt8(1) !== 0 || buf.readUInt16BE(2) !== 0)
    throw new Error('not a pipeline format this code knows');
  const doc = JSON.parse(buf.toString('utf8', 8, 8 + configLen)); // the client encoding, UTF8 here
  if (version === 2) doc.state = JSON.parse(buf.toString('utf8', 8 + configLen));
  return doc;
}

async function main() {
  const client = new Client(); // PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE from the environment
  await client.connect();
  try {
    await client.query('CREATE TEMP TABLE readings (ts timestamptz, v float8)');
    await client.query(`INSERT INTO readings VALUES ('2026-03-01 08:00+00', 10),
      ('2026-03-01 16:00+00', 20), ('2026-03-02 08:00+00', 30), ('2026-03-02 16:00+00', 40)`);
    // an object parameter is sent as its JSON text, which ::pipeline reads
    const spec = { type: 'MovingAverage', window_size: 2 };
    const { rows: [{ p }] } = await client.query(
      `SELECT pipeline_agg(ts, v, (ts AT TIME ZONE 'UTC')::date, $1::pipeline ORDER BY ts) AS p
       FROM readings`, [spec]);
    const emitted = await client.query('SELECT * FROM emissions($1::pipeline)', [p]);
    for (const e of emitted.rows)
      console.log('emitted', e.ts.toISOString(), e.key, e.port, e.value);

    const doc = JSON.parse(p); // the text form is JSON: the configuration and "state"
    console.log('open segment', doc.state.key, 'buffered', JSON.stringify(doc.state.buffer));
    // the binary form as bytes: pipeline_send gives what the binary protocol carries
    const { rows: [{ wire }] } = await client.query('SELECT pipeline_send($1::pipeline) AS wire', [p]);
    if (JSON.stringify(pipelineFromWire(wire)) !== JSON.stringify(doc))
      throw new Error('the binary and text forms differ');

    await client.query('CREATE TEMP TABLE sensor_state (sensor text PRIMARY KEY, state pipeline)');
    await client.query("INSERT INTO sensor_state VALUES ('a', $1)", [doc]);
    const { rows: [{ same }] } = await client.query(
      'SELECT state = $1::pipeline AS same FROM sensor_state', [p]);
    console.log('stored equal:', same);
  } finally {
    await client.end();
  }
}

main().catch((err) => { console.error(err.message); process.exit(1); });
