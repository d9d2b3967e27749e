// Issue 28, finding 9 (multipart): a form with more than 100 fields is refused as such
// (400 / 40001 "too many fields"), not read in part and answered "text is required".
import t from 'tap';
import { startServer } from '../helpers/server.js';
import { postMultipart, previewFields, uploadConfig } from './uploads-helpers.js';

const srv = await startServer(t, { config: uploadConfig() });
const { key } = await srv.client({ plan: 'enterprise', balance: '100' });
const filler = (n) => Array.from({ length: n }, (_, i) => [`x${i}`, 'y']);

t.test('101 fields before the real ones: 400 / 40001 too many fields', async (t) => {
  for (const route of ['/voices/preview', '/voices/clone', '/denoise']) {
    const r = await postMultipart(`${srv.api}${route}`, key.key, { fields: [...filler(101), ...Object.entries(previewFields())], files: { file: Buffer.alloc(10) } });
    t.equal(r.status, 400, `${route}: 400`);
    t.equal(r.json?.errorCode, 40001, `${route}: 40001`);
    t.match(r.json?.errorMessage, /too many fields \(at most 100\)/, `${route}: says too many fields`);
  }
});

t.test('100 fields are read: the answer is about the form, not its size', async (t) => {
  const fields = [...Object.entries(previewFields()), ...filler(100 - Object.keys(previewFields()).length)];
  t.equal(fields.length, 100);
  const r = await postMultipart(`${srv.api}/voices/preview`, key.key, { fields, files: { file: Buffer.from('not audio at all, just some text') } });
  t.equal(r.status, 400);
  t.same(r.json, { errorCode: 40001, errorMessage: 'file is required and must be of audio type' }, 'the file is judged, every field was read');
});
