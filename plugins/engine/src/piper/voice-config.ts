/**
 * A Piper voice's `.onnx.json`, read and checked: the fields Piper's runtimes read (audio.sample_rate,
 * espeak.voice, inference, phoneme_type, phoneme_map, phoneme_id_map, num_speakers, speaker_id_map).
 * Every problem is an Error naming the file and the field.
 */
import { readFileSync } from 'node:fs';

export interface PiperVoiceConfig {
  path: string;
  sampleRate: number;
  espeakVoice: string;
  inference: { noiseScale: number; lengthScale: number; noiseW: number };
  /** Phoneme → ids (Piper's "phoneme_id_map"). */
  idMap: Map<string, number[]>;
  /** Phoneme → phonemes, applied before the id map ("phoneme_map"). */
  phonemeMap: Map<string, string[]>;
  numSpeakers: number;
  speakerIdMap: Record<string, number>;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export function readPiperVoiceConfig(path: string): PiperVoiceConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const e = error as NodeJS.ErrnoException;
    throw new Error(e.code === 'ENOENT' ? `Piper voice config ${path} is missing (each .onnx needs its .onnx.json beside it)` : `Piper voice config ${path} is not valid JSON: ${e.message}`);
  }
  const bad = (what: string) => new Error(`Piper voice config ${path}: ${what}`);
  if (typeof raw !== 'object' || raw === null) throw bad('not a JSON object');
  const c = raw as Record<string, any>;
  const sampleRate = c.audio?.sample_rate;
  if (!Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 192000) throw bad('audio.sample_rate must be an integer rate in Hz');
  const type = c.phoneme_type ?? 'espeak';
  if (type !== 'espeak') throw bad(`phoneme_type '${String(type)}' is not supported (only espeak)`);
  const espeakVoice = c.espeak?.voice;
  if (typeof espeakVoice !== 'string' || espeakVoice === '') throw bad('espeak.voice must name an espeak-ng voice');
  const inf = c.inference ?? {};
  const inference = { noiseScale: inf.noise_scale ?? 0.667, lengthScale: inf.length_scale ?? 1, noiseW: inf.noise_w ?? 0.8 };
  if (!Object.values(inference).every((v) => isNumber(v) && v >= 0)) throw bad('inference.noise_scale, length_scale and noise_w must be numbers ≥ 0');
  if (typeof c.phoneme_id_map !== 'object' || c.phoneme_id_map === null) throw bad('phoneme_id_map is missing');
  const idMap = new Map<string, number[]>();
  for (const [phoneme, ids] of Object.entries(c.phoneme_id_map)) {
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((i) => Number.isInteger(i) && i >= 0)) throw bad(`phoneme_id_map['${phoneme}'] must be a list of ids`);
    idMap.set(phoneme, ids as number[]);
  }
  for (const [mark, name] of [['^', 'BOS'], ['_', 'pad'], ['$', 'EOS']] as const) {
    if (!idMap.has(mark)) throw bad(`phoneme_id_map has no '${mark}' (${name}), which every Piper id sequence uses`);
  }
  const phonemeMap = new Map<string, string[]>();
  for (const [from, to] of Object.entries(c.phoneme_map ?? {})) {
    if (!Array.isArray(to) || !to.every((p) => typeof p === 'string')) throw bad(`phoneme_map['${from}'] must be a list of phonemes`);
    phonemeMap.set(from, to as string[]);
  }
  const numSpeakers = c.num_speakers ?? 1;
  if (!Number.isInteger(numSpeakers) || numSpeakers < 1) throw bad('num_speakers must be an integer ≥ 1');
  const speakerIdMap = (c.speaker_id_map ?? {}) as Record<string, number>;
  for (const [name, id] of Object.entries(speakerIdMap)) {
    if (!Number.isInteger(id) || id < 0 || id >= numSpeakers) throw bad(`speaker_id_map['${name}'] = ${String(id)} is not a speaker id below num_speakers (${numSpeakers})`);
  }
  return { path, sampleRate, espeakVoice, inference, idMap, phonemeMap, numSpeakers, speakerIdMap };
}

/** The speaker id of a voice's `speaker` setting (a name in speaker_id_map or an id); 0 when unset. */
export function speakerId(config: PiperVoiceConfig, speaker: string | number | undefined, voiceId: string): number {
  if (speaker === undefined) return 0;
  if (config.numSpeakers === 1) throw new Error(`voice '${voiceId}' names speaker '${speaker}', but ${config.path} has one speaker`);
  const id = typeof speaker === 'number' ? speaker : config.speakerIdMap[speaker];
  if (id === undefined || !Number.isInteger(id) || id < 0 || id >= config.numSpeakers) {
    const names = Object.keys(config.speakerIdMap);
    throw new Error(`voice '${voiceId}' names speaker '${speaker}', which ${config.path} does not have (${names.length ? `speakers: ${names.join(', ')}` : `ids 0–${config.numSpeakers - 1}`})`);
  }
  return id;
}
