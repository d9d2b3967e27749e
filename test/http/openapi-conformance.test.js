// The response checker every test server runs (helpers/openapi-check.js) catches
// what it should: bodies off the schema, undocumented statuses and content types.
// Every other HTTP test file is its real use: each response they provoke is checked.
import t from 'tap';
import { startServer } from '../helpers/server.js';
import { createOpenApiChecker } from '../helpers/openapi-check.js';

const srv = await startServer(t);
const doc = await (await fetch(`${srv.api}/openapi.json`)).json();
const check = createOpenApiChecker(doc);
const json = (o) => Buffer.from(JSON.stringify(o));
const voice = { voice_id: 'v', name: 'V', description: null, gender: 'male', age: 'middle', languages: ['ar'], dialect: ['fusha'], type: null, sample_url: 'http://h/api/v1/voices/v/sample', models: ['sawt-mini'] };

t.test('conforming responses pass', async (t) => {
  t.same(check({ method: 'GET', url: '/api/v1/voices', status: 200, contentType: 'application/json; charset=utf-8', body: json([voice]) }), []);
  t.same(check({ method: 'GET', url: '/api/v1/voices/v/sample', status: 200, contentType: 'audio/wav', body: Buffer.alloc(0) }), []);
  t.same(check({ method: 'POST', url: '/api/v1/text-to-speech/sawt-mini', status: 200, contentType: 'audio/raw;codec=pcm16;rate=24000;channels=1', body: Buffer.alloc(0) }), []);
  t.same(check({ method: 'GET', url: '/api/v1/nope', status: 404, contentType: 'application/json', body: json({ errorCode: 40401, errorMessage: 'x' }) }), []);
});

t.test('mismatches are reported', async (t) => {
  const bad = (r, pattern) => t.match(check(r).join('\n'), pattern);
  bad({ method: 'GET', url: '/api/v1/voices', status: 200, contentType: 'application/json', body: json([{ ...voice, gender: 'robot' }]) }, /does not match the schema/);
  bad({ method: 'GET', url: '/api/v1/voices', status: 200, contentType: 'application/json', body: json([{ ...voice, sample_url: undefined }]) }, /sample_url/);
  bad({ method: 'GET', url: '/api/v1/models', status: 200, contentType: 'application/json', body: json([{ id: 'not-a-uuid', model_id: 'm', model_name: 'M' }]) }, /uuid/);
  bad({ method: 'GET', url: '/api/v1/models', status: 418, contentType: 'application/json', body: json({}) }, /status 418 is not documented/);
  bad({ method: 'GET', url: '/api/v1/models', status: 200, contentType: 'text/html', body: Buffer.from('<html>') }, /content type "text\/html"/);
  bad({ method: 'GET', url: '/api/v1/models', status: 401, contentType: 'application/json', body: json({ error: 'Unauthorized', statusCode: 401 }) }, /errorCode/);
  bad({ method: 'GET', url: '/api/v1/nope', status: 200, contentType: 'application/json', body: json({}) }, /no documented operation/);
  bad({ method: 'POST', url: '/api/v1/voices/clone', status: 200, contentType: 'application/json', body: json({ ...voice, id: '00000000-0000-4000-8000-000000000000', avatar_url: null }) }, /stability/);
});
