import path from 'node:path';
import { definePlugin, ModelFiles, tokens, type FromSchema, type Logger, type ModelCatalog, type ModelDownload, type SpeechBackendRegistry, type SpeechSynthesizer, type TextPipeline, type VoiceCatalog, type VoiceCloning } from '@sawt/core';
import { BuiltinVoiceCatalog, ConfiguredModelCatalog, downloadSchema, modelSchema, voiceSchema, type VoiceConfig } from './catalog.js';
import { EspeakBackend, HtsBackend, phonesFor, type EngineBackend } from './backends.js';
import { BackendHandOff } from './frontend/ready-input.js';
import { PiperBackend } from './piper/backend.js';
import { loadPiperModels, piperFiles } from './piper/setup.js';
import { espeakInstances, htsParameters, pcmInFlight, phonemize } from '@sawt/native';
import { Diacritizer, type DiacritizerFiles } from './frontend/diacritize.js';
import { BUILTIN_DIALECTS_DIR, loadDialects, type Dialect } from './frontend/dialects.js';
import { EngineTextPipeline } from './frontend/pipeline.js';
import { EngineSynthesizer } from './synthesizer.js';
import { CloningSynthesizer, VoiceCloningService } from './clone/service.js';
import { CloneStore, cloningMigrations, VoiceCatalogWithClones } from './clone/store.js';
import { textToLabels, textToPhones } from './hts/labels.js';

const DIACRITIZER_FILES: DiacritizerFiles = {
  model: 'tashkeel/libtashkeel-2024-01-04.onnx',
  inputMap: 'tashkeel/input_id_map.json',
  targetMap: 'tashkeel/target_id_map.json',
};

// The bundled diacritizer's public home: libtashkeel at the commit of 2024-01-04
// (sha256 of all three checked against that commit's blobs).
const LIBTASHKEEL = 'https://raw.githubusercontent.com/mush42/libtashkeel/340ea67305ca71bf12ab7d6e3a54ef3be0162972/libtashkeel_base/data';
const DIACRITIZER_DOWNLOADS: ModelDownload[] = [
  { file: DIACRITIZER_FILES.model, url: `${LIBTASHKEEL}/ort/model.onnx`, sha256: '5bb276f14bb1a13984f76eb24ccc5b9215a51687fd3f919f31d3720bb6e7e41f' },
  { file: DIACRITIZER_FILES.inputMap, url: `${LIBTASHKEEL}/input_id_map.json`, sha256: '727a49aa3c7e939dc06f32b27c2e06c4c4bbef596dce4bf51276261ca736c3c3' },
  { file: DIACRITIZER_FILES.targetMap, url: `${LIBTASHKEEL}/target_id_map.json`, sha256: '6da34024bfd4c0ff54f7598bb74d5a00405144d746afe72c141fceeaba21ed30' },
];

/** A config section whose keys all have defaults (absent: every default). */
const section = <const P extends object>(properties: P) => ({ type: 'object', default: {}, properties }) as const;
const firstChunkChars = { type: 'integer', minimum: 0, maximum: 1000, default: 40 } as const;

const configSchema = {
  type: 'object',
  required: ['models', 'voices'],
  properties: {
    defaultModel: { type: 'string', default: 'sawt-mini' },
    executionProvider: { enum: ['cpu', 'cuda'], default: 'cpu' },
    // Measured: 200 ms pieces bring the first audio of a 200-character text from
    // ~17 ms (whole first sentence) to ~1 ms after synthesis starts.
    chunkMs: { type: 'integer', minimum: 0, maximum: 5000, default: 200 },
    segment: section({ maxChars: { type: 'integer', minimum: 20, default: 240 }, firstMaxChars: { type: 'integer', minimum: 10, default: 120 } }),
    models: { type: 'array', minItems: 1, items: modelSchema },
    voices: { type: 'array', minItems: 1, items: voiceSchema },
    // The libtashkeel diacritizer (bundled): files in the models layout (optional; text is read as written without it).
    diacritizer: section({
      files: {
        type: 'object',
        default: DIACRITIZER_FILES,
        required: ['model', 'inputMap', 'targetMap'],
        properties: { model: { type: 'string' }, inputMap: { type: 'string' }, targetMap: { type: 'string' } },
      },
      downloads: { type: 'array', default: DIACRITIZER_DOWNLOADS, items: downloadSchema },
      maxConcurrent: { type: 'integer', minimum: 1, maximum: 16, default: 2 },
      // Diacritized segments kept for reuse (repeated phrases skip the model); 0: no cache.
      cacheEntries: { type: 'integer', minimum: 0, maximum: 1000000, default: 1000 },
    }),
    // Pronunciation lexicon: word → replacement text or [[espeak phonemes]]; applied before diacritization.
    lexicon: { type: 'object', default: {}, additionalProperties: { type: 'string' } },
    // Latin-script words in Arabic text: acronym letter names and operator entries (word → Arabic text or English respelling).
    latin: section({
      letterNames: { enum: ['arabic', 'english'], default: 'arabic' },
      lexicon: { type: 'object', default: {}, additionalProperties: { type: 'string' } },
    }),
    // Extra folders of dialect rule files (relative to the config file); same-named dialects replace the built-in ones.
    dialectDirs: { type: 'array', default: [], items: { type: 'string' } },
    // Voice cloning: built-in voices a clone is made from (per model, the closest in log-F0 is chosen).
    cloning: section({ baseVoices: { type: 'array', minItems: 1, items: { type: 'string' }, default: ['fusha-omar', 'fusha-layla', 'fusha-ziad', 'fusha-sami', 'neural-kareem'] } }),
    // Piper voices (engine `piper`): ONNX threads per run (at most 2 runs at once: the addon's run queue),
    // sentence silence, the first-chunk cut.
    piper: section({
      threads: { type: 'integer', minimum: 1, maximum: 64, default: 2 },
      sentenceSilenceMs: { type: 'integer', minimum: 0, maximum: 5000, default: 200 },
      firstChunkChars,
    }),
    // espeak-ng is not thread-safe: each instance is a private copy of the library with its own
    // thread, so sawt-mini uses this many cores. Measured (bench:latency): 2 on 2 cores.
    espeak: section({ instances: { type: 'integer', minimum: 1, maximum: 8, default: 2 } }),
    hts: section({
      // Engines (each a worker thread with its own HTS_Engine) per voice file.
      threads: { type: 'integer', minimum: 1, maximum: 64, default: 2 },
      // A request's first clause longer than this is cut at a word boundary and its first part
      // spoken as an utterance of its own (0: no cut): HTS plans a whole utterance before its first
      // sample. The price: a phrase boundary there (the first part ends as an utterance, with a short
      // pause and a final fall, and the rest starts a new intonation phrase). Measured (sawt-hts, a
      // 175-character text with a 78-character first clause, 3 interleaved pairs of 12 requests on a
      // shared 2-core machine): first byte p50 139 → 118 ms, p95 631 → 386 ms.
      firstChunkChars,
      // Label front-end fixes of Festival's defects (each measurable on its own).
      labels: section({
        waslElision: { type: 'boolean', default: true },
        allahLongVowel: { type: 'boolean', default: true },
        arabicPunctuation: { type: 'boolean', default: true },
      }),
    }),
  },
} as const;

export type EngineOptions = FromSchema<typeof configSchema>;

export default definePlugin({
  id: 'engine',
  provides: [tokens.models, tokens.voices, tokens.synthesizer, tokens.textPipeline, tokens.voiceCloning, tokens.speechBackends],
  deps: { database: tokens.database, blobStore: tokens.blobStore, metrics: tokens.metrics },
  configSchema,
  async register(ctx, { database, blobStore, metrics }) {
    const { options, runtime } = ctx;
    const files = ModelFiles.of(runtime);
    // A Piper model needs its .onnx.json beside the .onnx: listed only when both are present.
    for (const m of options.models) if (m.engine === 'piper') m.files = piperFiles(m);
    const models = new ConfiguredModelCatalog(options.models, files, options.defaultModel);
    const htsModel = options.models.find((m) => m.engine === 'hts' && m.files?.length);
    const htsVoice = htsModel ? files.find(htsModel.files![0]!) : null;
    const dialects = loadDialects([BUILTIN_DIALECTS_DIR, ...options.dialectDirs.map((d) => path.resolve(runtime.configDir ?? '.', d))]);
    const hts = new HtsBackend(htsVoice, options.chunkMs, options.hts.threads, dialects);
    const piper = new PiperBackend(options.piper, options.chunkMs, (o, m) => ctx.logger.warn(o, m));
    const builtin = [new EspeakBackend(options.chunkMs), hts, piper];
    // A voice is a persona, a model an engine: a voice speaks on every offered model whose engine has its
    // parameters (its `models`, when set, narrow that). Voices that speak on no offered model (e.g. a Piper
    // voice without its files) are not offered.
    const engineOf = (id: string) => options.models.find((m) => m.model_id === id)?.engine;
    for (const v of options.voices) {
      for (const id of v.models ?? []) {
        const engine = engineOf(id);
        if (engine && !builtin.find((b) => b.engine === engine)?.acceptsVoice(v)) ctx.logger.warn({ voice: v.voice_id, model: id, engine }, 'voice names a model whose engine it has no parameters for; it does not speak on it');
      }
    }
    const backendOf = (modelId: string): EngineBackend | undefined => synthesizer.backends.get(models.get(modelId)?.engine ?? '');
    const speaksOn = (v: VoiceConfig): string[] => models.list()
      .filter((m) => m.available && (!v.models || v.models.includes(m.model_id)) && backendOf(m.model_id)?.acceptsVoice(v))
      .map((m) => m.model_id);
    const voices: BuiltinVoiceCatalog = new BuiltinVoiceCatalog(speaksOn);
    const phoneModels = {
      phonesOf: (id: string): 'espeak' | 'hts' | undefined => (models.get(id) ? phonesFor(backendOf(id)?.input ?? 'text') : undefined),
      known: () => models.list().map((m) => m.model_id),
      htsPhones: (text: string, dialect: Dialect | undefined) => textToPhones(text, options.hts.labels, dialect?.hasHtsRules ? (p) => dialect.applyHts(p) : undefined),
    };
    const pipeline = new EngineTextPipeline({ segment: options.segment, diacritizer: null, dialects, lexicon: options.lexicon, latin: options.latin, models: phoneModels });
    const handOff = new BackendHandOff({ labelOptions: options.hts.labels, dialects, piperConfig: (id) => piper.loaded(id)?.config, piperFirstChars: options.piper.firstChunkChars, htsFirstChars: options.hts.firstChunkChars });
    // The built-in back ends register as a plugin's do (tokens.speechBackends).
    const synthesizer: EngineSynthesizer = new EngineSynthesizer(models, voices, pipeline.frontEnd, handOff);
    for (const b of builtin) synthesizer.add(b);
    voices.add(options.voices.filter((v) => speaksOn(v).length > 0));
    models.resolveDefaultVoices(voices, (model, voice, own) => ctx.logger.warn({ model, voice, voices: own }, 'default_voice_id does not speak on its model; the first voice that does is the default'));
    for (const m of models.list()) {
      if (m.available) continue;
      const wanted = options.models.find((c) => c.model_id === m.model_id)?.files ?? [];
      const missing = files.missing(wanted);
      // An optional download not installed at all (sawt-neural on a fresh clone) is no fault; a partial install is.
      if (m.downloads.length && missing.length === wanted.length) ctx.logger.info({ model: m.model_id }, `model not installed; not offered (\`sawt models pull ${m.model_id}\` fetches it)`);
      else ctx.logger.warn({ model: m.model_id, missing: missing.map((f) => files.searched(f)) }, 'model files missing; model not offered');
    }
    models.addPart({ name: 'diacritizer', files: Object.values(options.diacritizer.files), downloads: options.diacritizer.downloads });
    const noDiacritizer = () => {
      for (const m of models.list()) {
        if (models.wantsDiacritics(m.model_id)) models.addNote(m.model_id, `(Diacritizer not installed: text without diacritics is read with missing vowels; \`sawt models pull diacritizer\` puts ${options.diacritizer.files.model} and its id maps in SAWT_MODELS_DIR.)`);
      }
    };
    // The diacritizer's files: SAWT_MODELS_DIR first, then bundled.
    const { model, inputMap, targetMap } = options.diacritizer.files;
    const missingDiacritizer = files.missing(Object.values(options.diacritizer.files));
    const diacritizerFiles = missingDiacritizer.length ? null : { model: files.find(model)!, inputMap: files.find(inputMap)!, targetMap: files.find(targetMap)! };
    if (!diacritizerFiles) {
      ctx.logger.warn({ missing: missingDiacritizer.map((f) => files.searched(f)) }, 'diacritizer files missing; undiacritized text is read as written (fewer vowels)');
      noDiacritizer();
    }
    for (const v of options.voices) {
      for (const d of v.dialect) if (!dialects.has(d)) ctx.logger.warn({ voice: v.voice_id, dialect: d }, 'voice dialect has no rules file; read as written');
    }
    ctx.provide<ModelCatalog>(tokens.models, models);
    database.addMigrations(ctx.pluginId, cloningMigrations);
    // Base voices of a model that is not offered (e.g. sawt-hts without its voice file) are skipped.
    for (const id of options.cloning.baseVoices) if (!options.voices.some((v) => v.voice_id === id)) throw new Error(`cloning.baseVoices names '${id}', which is not a configured voice`);
    ctx.provide<SpeechBackendRegistry>(tokens.speechBackends, synthesizer);
    const clones = new CloneStore(database, blobStore, ctx.logger);
    const cloning = new VoiceCloningService(synthesizer, voices, clones, { baseVoiceIds: options.cloning.baseVoices, defaultModelId: () => models.defaultModelId() });
    ctx.provide<VoiceCatalog>(tokens.voices, new VoiceCatalogWithClones(voices, clones));
    ctx.provide<TextPipeline>(tokens.textPipeline, pipeline);
    ctx.provide<VoiceCloning>(tokens.voiceCloning, cloning);
    ctx.provide<SpeechSynthesizer>(tokens.synthesizer, new CloningSynthesizer(synthesizer, cloning));
    metrics.addGauge({
      name: 'sawt_engine_jobs', help: 'Synthesis jobs started and not finished, per engine: running, waiting for a native thread, or waiting for their reader.', labelNames: ['engine'],
      read: () => synthesizer.jobsInFlight().map((j) => ({ labels: { engine: j.engine }, value: j.jobs })),
    });
    metrics.addGauge({
      name: 'sawt_engine_pcm_bytes', help: 'Synthesized audio held in native memory (chunks made and not yet freed by the garbage collector); it should fall back after traffic.',
      read: () => pcmInFlight().bytes,
    });
    return {
      async start() {
        // Every plugin has added its back ends by now: a configured model must have one.
        const unknown = options.models.find((m) => !synthesizer.backends.has(m.engine));
        if (unknown) throw new Error(`model '${unknown.model_id}' names engine '${unknown.engine}', which no back end provides (known: ${[...synthesizer.backends.keys()].join(', ')})`);
        // Before espeak's first use (it takes effect once per process).
        espeakInstances(options.espeak.instances);
        // espeak-ng loads its Arabic data on first use (~13 ms): pay that at boot, not on the first request.
        await phonemize('مرحبا', 'ar');
        // The diacritizer's ONNX session (~0.3 s) and the HTS pool (one engine per worker thread, ~0.1 s each)
        // load here, not at registration: commands that only read the catalog (sawt models pull/verify) skip them.
        await Promise.all([
          // Piper voice files load here; a broken one (config, id map, inputs, CUDA) stops the start.
          loadPiperModels(piper, files, options, (o, m) => ctx.logger.info(o, m)),
          diacritizerFiles && loadDiacritizer(ctx.logger, diacritizerFiles, options).then((d) => (d ? pipeline.useDiacritizer(d) : noDiacritizer())),
          hts.voicePath && htsParameters({ voicePath: hts.voicePath, utterances: [textToLabels('نَعَمْ')[0]!], threads: options.hts.threads }),
        ]);
      },
      stop() {
        pipeline.release();
        piper.release();
      },
    };
  },
});

async function loadDiacritizer(logger: Logger, files: DiacritizerFiles, options: EngineOptions): Promise<Diacritizer | null> {
  try {
    const d = await Diacritizer.load('/', files, { executionProvider: options.executionProvider, maxConcurrent: options.diacritizer.maxConcurrent, cacheEntries: options.diacritizer.cacheEntries });
    logger.info({ model: files.model, graphRewrite: d.graphRewrite }, 'diacritizer loaded');
    return d;
  } catch (error) {
    // CUDA asked for and not usable: the server refuses to start (the message names what is missing).
    if ((error as { code?: string }).code === 'SAWT_ENGINE_CUDA_UNAVAILABLE') throw new Error(`diacritizer: ${(error as Error).message}`, { cause: error });
    logger.error({ err: error, model: files.model }, 'diacritizer failed to load; undiacritized text is read as written');
    return null;
  }
}

export { TextFrontEnd } from './frontend/index.js';
export { Diacritizer, stripDiacritics, shaddaFirst } from './frontend/diacritize.js';
export { Dialect, loadDialects, BUILTIN_DIALECTS_DIR } from './frontend/dialects.js';
export { Lexicon } from './frontend/lexicon.js';
export { LatinReader } from './frontend/latin/index.js';
export { htsSpanPhones } from './frontend/latin/phone-span.js';
export { EngineTextPipeline } from './frontend/pipeline.js';
export { segmentText } from './frontend/segment.js';
export { normalizeText } from './frontend/normalize.js';
export { HTS_QUALITY_DEFAULTS, HTS_OUTPUT_EQ } from './backends.js';
export { firstChunk } from './frontend/ready-input.js';
export { outputEqOffset, addOffsets } from './hts/output-eq.js';
export { piperSentences, phonemeIds } from './piper/phonemes.js';
export { readPiperVoiceConfig } from './piper/voice-config.js';
export { piperChunks, wordsBySentence } from './piper/stream.js';
export { textToLabels, textToPhones, textToUtterances, wordPhones, DEFAULT_LABEL_OPTIONS, FESTIVAL_LABEL_OPTIONS, type LabelOptions, type PhoneRewrite, type HtsUtterance, type HtsWord } from './hts/labels.js';
export { alphaForWarp, eqToMelCepstrum, htsVoiceToward, keepLoudness, melCepstrumGainDb, warpFrequency, TRAINED_ALPHA, HTS_RATE, MCEP_LENGTH, type SpeakerMapping } from './hts/voice-mapping.js';
export { baseSpeed, calibrate, closestBase, conversionAt, f0Mapping, logF0Center, mapOnto, rateRatio, speakerMapping, RunningF0, CLONE_RATE, MIN_CALIBRATION_FRAMES, MAX_CALIBRATION_FRAMES, type AnalyzedBase, type BaseMapping, type F0Target, type StoredProfile } from './clone/profile-math.js';
