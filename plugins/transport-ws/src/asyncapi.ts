import { ERRORS, MIN_CHARS, MIN_WORDS, OUTPUT_SAMPLE_RATES, fieldsToJsonSchema, type FieldRules } from '@sawt/core';
import { initFields, LOCATORS_SCHEMA, textFields } from './messages.js';

/** Path of the WebSocket below the server's /api/v1. */
const CHANNEL_ADDRESS = '/websocket/text-to-speech';

/** A client message's payload: `type` fixed to `name`, the rest from the field rules the session validates with. */
function clientPayload(name: string, rules: FieldRules, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const schema = fieldsToJsonSchema(rules) as { properties: Record<string, unknown>; required?: string[] };
  return {
    type: 'object',
    properties: { type: { type: 'string', const: name }, ...schema.properties, ...extra },
    required: ['type', ...(schema.required ?? [])],
  };
}

const ref = (path: string) => ({ $ref: path });
const message = (name: string, title: string, summary: string, payload: Record<string, unknown>, examples?: Array<Record<string, unknown>>) => ({
  name, title, summary, payload, ...(examples ? { examples: examples.map((p) => ({ payload: p })) } : {}),
});

/**
 * The AsyncAPI 3.0 description of WSS /api/v1/websocket/text-to-speech; client message schemas come
 * from the FieldRules that validate them. `origin`: the server's absolute URL (the WebSocket uses ws[s]).
 */
export function buildAsyncApi(origin: string): Record<string, unknown> {
  const url = new URL(origin);
  const codes = [...new Set(Object.values(ERRORS).map((e) => e.code))];
  const ch = '#/channels/textToSpeech/messages';
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Sawt WebSocket text-to-speech',
      version: '1.0.0',
      license: { name: 'GPL-3.0-or-later' },
      description: [
        'Text arrives in chunks; audio chunks come back as they are generated. All messages are JSON text.',
        '',
        '1. Connect with the API key in the `x-api-key` query parameter (or header), or give it as `x_api_key` in `initConnection`.',
        '2. Send `initConnection` first; the server answers `connectionInitialized`.',
        `3. Send \`text\` messages; send \`flush: true\` with the last chunk (the text since the previous flush needs at least ${MIN_WORDS} words and ${MIN_CHARS} characters). Audio messages follow in text order; the last one of a flush carries \`isFinal: true\`.`,
        '4. `clear` drops buffered and queued text and cancels the piece in progress (no answer); `closeConnection` closes (1000) once queued audio is sent.',
        '',
        '',
        'SSML: with `text_type: "ssml"` in `initConnection`, the text messages are fragments of one SSML text, joined and cut where plain text is (sentence ends, the length schedule counted on the text outside markup, try_trigger_generation, flush); each cut closes the elements open there and reopens them for the rest, so every piece is a whole document, and a cut inside a tag, comment or entity moves back before it: a tag split across messages waits for its end. SSML content without `<speak>` is read inside one. Markup is never read aloud nor billed; bad SSML is error 40001 naming the tag and its line:column in the session\'s text (the text messages joined). The text rule of a flush counts the text between the tags; a flush that ends inside a tag is error 40001. `clear` drops the buffered text but keeps the elements open in it. `<mark name="…"/>` times come back in the `marks` of the audio message whose audio reaches them, timed like `alignment`; a `<break>` or `<mark>` with no words after it at a flush is a piece of its own (its silence, its mark at 0 ms; nothing billed). Outside SSML, only `<break time="…"/>` is markup.',
        '`pronunciation_dictionary_locators` in `initConnection` (up to 3, checked there: an unknown, deleted or other account\'s dictionary is error 40401) apply the dictionaries\' rules to every text of the session, each at the version it has at `initConnection` (a dictionary edited during the session does not change its later audio).',
        '',
        'Errors arrive as `error` messages and the connection stays open, except an authentication failure (error 40101, then close 1008).',
        'Each generated piece is charged when its audio was sent; a piece cut short after audio went out (clear, disconnect, a client not reading, the output cap) is charged for the words whose audio was sent, rounded up to the whole word. A flush over 5,000 characters is split into pieces of at most that.',
        'Close codes: 1000 closeConnection or idle timeout, 1001 server shutting down, 1008 authentication failed or client not reading, 1009 message over the hard size cap.',
      ].join('\n'),
    },
    defaultContentType: 'application/json',
    servers: {
      sawt: {
        host: url.host,
        protocol: url.protocol === 'https:' ? 'wss' : 'ws',
        pathname: `${url.pathname.replace(/\/+$/, '')}/api/v1`,
        description: 'The Sawt server; the HTTP API shares host and path prefix.',
        security: [ref('#/components/securitySchemes/apiKeyQuery'), ref('#/components/securitySchemes/apiKeyHeader')],
      },
    },
    channels: {
      textToSpeech: {
        address: CHANNEL_ADDRESS,
        title: 'Text-to-speech session',
        servers: [ref('#/servers/sawt')],
        messages: Object.fromEntries(['initConnection', 'text', 'clear', 'closeConnection', 'connectionInitialized', 'audio', 'error'].map((m) => [m, ref(`#/components/messages/${m}`)])),
        bindings: {
          ws: {
            method: 'GET',
            query: { type: 'object', properties: { 'x-api-key': { type: 'string', description: 'API key (or the x-api-key header, or x_api_key in initConnection)' } } },
          },
        },
      },
    },
    operations: {
      initConnection: {
        action: 'receive', channel: ref('#/channels/textToSpeech'), title: 'Initialize the session', summary: 'Must be the first message: model, voice, settings and output format.',
        messages: [ref(`${ch}/initConnection`)],
        reply: { channel: ref('#/channels/textToSpeech'), messages: [ref(`${ch}/connectionInitialized`), ref(`${ch}/error`)] },
      },
      sendText: {
        action: 'receive', channel: ref('#/channels/textToSpeech'), title: 'Send text', summary: 'Adds text; audio messages follow as it is generated.',
        messages: [ref(`${ch}/text`)],
        reply: { channel: ref('#/channels/textToSpeech'), messages: [ref(`${ch}/audio`), ref(`${ch}/error`)] },
      },
      clear: { action: 'receive', channel: ref('#/channels/textToSpeech'), title: 'Clear the text buffer', messages: [ref(`${ch}/clear`)] },
      closeConnection: { action: 'receive', channel: ref('#/channels/textToSpeech'), title: 'Close the session', messages: [ref(`${ch}/closeConnection`)] },
      audio: { action: 'send', channel: ref('#/channels/textToSpeech'), title: 'Audio chunks', messages: [ref(`${ch}/audio`)] },
      error: { action: 'send', channel: ref('#/channels/textToSpeech'), title: 'Errors', messages: [ref(`${ch}/error`)] },
    },
    components: {
      securitySchemes: {
        apiKeyQuery: { type: 'httpApiKey', name: 'x-api-key', in: 'query', description: 'API key in the query string' },
        apiKeyHeader: { type: 'httpApiKey', name: 'x-api-key', in: 'header', description: 'API key header (or the x_api_key field of initConnection)' },
      },
      messages: {
        initConnection: message('initConnection', 'initConnection', 'Client: start the session.', clientPayload('initConnection', initFields, { pronunciation_dictionary_locators: LOCATORS_SCHEMA }), [
          { type: 'initConnection', voice_id: 'fusha-omar', model_id: 'sawt-mini', voice_settings: { stability: 0.5, speed: 1 }, output_format: 'pcm_16000' },
          { type: 'initConnection', voice_id: 'fusha-ziad', model_id: 'sawt-hts', text_type: 'ssml', pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'DICTIONARY_ID' }] },
        ]),
        text: message('text', 'text', 'Client: a text chunk.', clientPayload('text', textFields), [
          { type: 'text', text: 'مرحبا بكم في خدمة صوت للنطق العربي.', flush: true },
          { type: 'text', text: '<speak>مرحبا بكم <break time="500ms"/> في خدمة <mark name="service"/>صوت.</speak>', flush: true },
        ]),
        clear: message('clear', 'clear', 'Client: drop buffered text (no answer).', clientPayload('clear', {})),
        closeConnection: message('closeConnection', 'closeConnection', 'Client: close once queued audio is sent.', clientPayload('closeConnection', {})),
        connectionInitialized: message('connectionInitialized', 'connectionInitialized', 'Server: initConnection accepted.', {
          type: 'object', required: ['type'], properties: { type: { type: 'string', const: 'connectionInitialized' } },
        }),
        audio: message('audio', 'Audio chunk', 'Server: base64 audio in the connection\'s output_format, in text order.', {
          type: 'object',
          required: ['audio', 'sampleRate'],
          properties: {
            audio: { type: 'string', contentEncoding: 'base64', description: 'The bytes of output_format (default PCM16 LE mono; MP3, Ogg Opus, FLAC, WAV, G.711 as chosen): the messages of a flush, and of the whole connection, concatenate to one valid stream (empty on a final message with nothing left to say)' },
            sampleRate: { type: 'integer', enum: [...OUTPUT_SAMPLE_RATES], description: 'Sample rate of `audio`, from output_format' },
            isFinal: { type: 'boolean', description: 'Present and true on the last audio message of a flush' },
            alignment: {
              type: 'object',
              description: 'Per-character timings of this chunk, in ms from the start of the piece\'s audio',
              required: ['chars', 'charStartTimesMs', 'charDurationsMs'],
              properties: {
                chars: { type: 'array', items: { type: 'string' } },
                charStartTimesMs: { type: 'array', items: { type: 'number' } },
                charDurationsMs: { type: 'array', items: { type: 'number' } },
              },
            },
            marks: {
              type: 'array',
              description: 'SSML (text_type ssml): the <mark>s this message\'s audio reaches, in order, timed like alignment (ms from the start of the piece\'s audio); absent when none',
              items: { type: 'object', required: ['name', 'timeMs'], properties: { name: { type: 'string' }, timeMs: { type: 'integer' } } },
            },
          },
        }),
        error: message('error', 'Error', 'Server: an error; the connection stays open unless it is 40101.', {
          type: 'object',
          required: ['type', 'errorCode', 'errorMessage', 'message'],
          properties: {
            type: { type: 'string', const: 'error' },
            errorCode: { type: 'integer', enum: codes, description: 'As in the HTTP error table' },
            errorMessage: { type: 'string' },
            message: { type: 'string', description: 'The same text as errorMessage' },
          },
        }, [{ type: 'error', errorCode: 40001, errorMessage: 'Send initConnection before text', message: 'Send initConnection before text' }]),
      },
    },
  };
}
