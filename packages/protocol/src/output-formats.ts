// The output formats of the speech routes (HTTP `output_format`, WebSocket `initConnection.output_format`): the one
// table the server and the client read. A name is CODEC_RATE[_KBITS] as ElevenLabs spells them.

/** What the encoder writes: raw PCM16 LE, a WAV, MP3, Ogg Opus, FLAC, or G.711 bytes. */
export type OutputCodec = 'pcm' | 'wav' | 'mp3' | 'opus' | 'flac' | 'ulaw' | 'alaw';

export interface OutputFormatSpec {
  name: string;
  codec: OutputCodec;
  /** Sample rate of the audio (Hz), mono. */
  sampleRate: number;
  /** Bit rate (bit/s) of the lossy codecs; null for the others. */
  bitrate: number | null;
  contentType: string;
  /** File extension of a download. */
  extension: string;
  description: string;
}

/** The rates the engines synthesize at; other formats' rates are resampled from 24 kHz. */
export const SYNTHESIS_RATES = Object.freeze([8000, 16000, 22050, 24000] as const);
export type SynthesisRate = (typeof SYNTHESIS_RATES)[number];

/** The rate of a format that names none (the engines' own). */
export const DEFAULT_SAMPLE_RATE = 24000;

const PCM_RATES = [...SYNTHESIS_RATES, 44100, 48000];

/** The content type of raw PCM16 LE mono at `rate`. */
export const PCM_CONTENT_TYPE = (rate = DEFAULT_SAMPLE_RATE) => `audio/raw;codec=pcm16;rate=${rate};channels=1`;

function spec(name: string, codec: OutputCodec, sampleRate: number, bitrate: number | null, contentType: string, extension: string, description: string): OutputFormatSpec {
  return Object.freeze({ name, codec, sampleRate, bitrate, contentType, extension, description });
}

/** Every output format, in the order documents list them. */
export const OUTPUT_FORMAT_TABLE: readonly OutputFormatSpec[] = Object.freeze([
  ...PCM_RATES.map((r) => spec(`pcm_${r}`, 'pcm', r, null, PCM_CONTENT_TYPE(r), 'pcm', `Raw PCM16 little-endian mono at ${r} Hz, no header`)),
  ...PCM_RATES.map((r) => spec(`wav_${r}`, 'wav', r, null, 'audio/wav', 'wav', `WAV (PCM16 mono) at ${r} Hz; streamed, its header's sizes are 0xFFFFFFFF (unknown length)`)),
  spec('mp3_22050_32', 'mp3', 22050, 32000, 'audio/mpeg', 'mp3', 'MP3 (LAME, CBR) 22050 Hz mono, 32 kbit/s'),
  ...[64, 128, 192].map((k) => spec(`mp3_44100_${k}`, 'mp3', 44100, k * 1000, 'audio/mpeg', 'mp3', `MP3 (LAME, CBR) 44100 Hz mono, ${k} kbit/s`)),
  ...[32, 64, 128].map((k) => spec(`opus_48000_${k}`, 'opus', 48000, k * 1000, 'audio/ogg; codecs=opus', 'opus', `Ogg Opus 48000 Hz mono, ${k} kbit/s`)),
  ...[24000, 44100].map((r) => spec(`flac_${r}`, 'flac', r, null, 'audio/flac', 'flac', `FLAC 16-bit mono at ${r} Hz`)),
  spec('ulaw_8000', 'ulaw', 8000, null, 'audio/basic', 'ulaw', 'G.711 μ-law 8000 Hz mono, no header (Twilio Media Streams)'),
  spec('alaw_8000', 'alaw', 8000, null, 'audio/PCMA;rate=8000', 'alaw', 'G.711 A-law 8000 Hz mono, no header'),
]);

/** The format names, for schemas' enums. */
export const OUTPUT_FORMAT_NAMES: readonly string[] = Object.freeze(OUTPUT_FORMAT_TABLE.map((f) => f.name));

/** Every sample rate a format may have. */
export const OUTPUT_SAMPLE_RATES: readonly number[] = Object.freeze([...new Set(OUTPUT_FORMAT_TABLE.map((f) => f.sampleRate))].sort((a, b) => a - b));

const BY_NAME = new Map(OUTPUT_FORMAT_TABLE.map((f) => [f.name, f]));

/** The format called `name`, or undefined. */
export function findOutputFormat(name: unknown): OutputFormatSpec | undefined {
  return typeof name === 'string' ? BY_NAME.get(name) : undefined;
}

/** The rate to synthesize a format's audio at (its own when an engine makes it, else 24000). */
export function synthesisRate(format: OutputFormatSpec): SynthesisRate {
  return (SYNTHESIS_RATES as readonly number[]).includes(format.sampleRate) ? (format.sampleRate as SynthesisRate) : DEFAULT_SAMPLE_RATE;
}

/**
 * Samples a decoder plays before the first sample of the input: LAME's encoder delay (576) and the
 * MP3 decoder's (529), as the stream carries no LAME tag to trim them (measured with ffmpeg: a
 * burst at 500 ms plays at 525.1 ms at 44.1 kHz, 550.1 ms at 22.05 kHz). Ogg Opus carries its
 * pre-skip in its header and decoders drop it; the other formats start at the first sample.
 */
const MP3_DELAY_SAMPLES = 1105;

/** Milliseconds of audio a player plays before the speech's first sample in `format`. */
export function playedDelayMs(format: OutputFormatSpec): number {
  return format.codec === 'mp3' ? (MP3_DELAY_SAMPLES / format.sampleRate) * 1000 : 0;
}
