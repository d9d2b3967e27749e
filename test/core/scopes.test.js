// Scopes come from the plugins' manifests: their order, `after`, and a scope declared twice.
import t from 'tap';
import { collectScopes, PluginError } from '@sawt/core';

const plugin = (id, ...scopes) => ({ id, scopes: scopes.map((s) => (typeof s === 'string' ? { name: s, description: `${s} endpoints` } : { description: `${s.name} endpoints`, ...s })) });

t.test('scopes are listed in plugin order, a scope with `after` right after that one', async (t) => {
  const r = collectScopes([plugin('http', 'models', 'voices', 'tts', 'preview', 'clone'), plugin('denoise', 'denoise'), plugin('ws', { name: 'tts-ws', after: 'tts' }), plugin('none')]);
  t.same(r.names, ['models', 'voices', 'tts', 'tts-ws', 'preview', 'clone', 'denoise']);
  t.equal(r.has('tts-ws'), true);
  t.equal(r.has('speech'), false);
  t.same(r.get('denoise'), { name: 'denoise', description: 'denoise endpoints' });
  t.same(collectScopes([plugin('ws', { name: 'tts-ws', after: 'tts' }), plugin('x', 'x')]).names, ['tts-ws', 'x'], 'after a scope nobody declares: in plugin order');
  t.same(collectScopes([]).names, []);
});

t.test('two plugins declaring one scope: the boot stops naming both', async (t) => {
  let error;
  try {
    collectScopes([plugin('a', 'greeting'), plugin('b', 'greeting')]);
  } catch (e) {
    error = e;
  }
  t.ok(error instanceof PluginError);
  t.match(error, { code: 'SAWT_ERR_PLUGIN_INVALID', message: /Scope 'greeting' is declared by both plugin 'a' and plugin 'b'/ });
});
