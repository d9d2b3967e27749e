/** Voice cloning (the engine plugin). */
import type { SpeechStream, VoiceInfo } from './engine.js';

/** A cloned voice as the clone endpoint returns it (interface: Cloned voice record). */
export interface ClonedVoiceRecord extends VoiceInfo {
  id: string;
  avatar_url: string | null;
  stability: number;
}

/** Analysis of a reference recording, opaque to transports (versioned JSON, stored with the voice). */
export interface VoiceProfile {
  version: number;
  [key: string]: unknown;
}

export interface VoiceCloning {
  /** Analyzes PCM16LE mono at 24000 Hz; 40001 when it holds too little voiced speech. */
  analyze(pcm: Buffer): Promise<VoiceProfile>;
  /** Base voice speech converted toward the profile, streamed (PCM16LE mono 24000 Hz), 0 ≤ similarity ≤ 1. */
  preview(input: { profile: VoiceProfile; modelId: string; accountId: string; text: string; speed: number; similarity: number; requestId?: string }): Promise<SpeechStream>;
  /** Remembers the settings of a preview of a reference (by its sha256) so that cloning it keeps them. */
  rememberPreview(input: { accountId: string; referenceSha256: string; similarity: number; speed: number }): Promise<void>;
  /**
   * Stores the voice and its sample (PCM16 mono 24 kHz, or a WAV file) and returns its record. With
   * `limit`, counting and inserting are atomic: an account holding `limit.max` clones gets `limit.refuse(held)`.
   */
  create(input: {
    accountId: string; modelId: string; name: string; description: string | null; gender: string | null; age: string | null;
    languages: string[]; dialect: string[]; avatarUrl: string | null; stability: number; text: string;
    profile: VoiceProfile; referenceFile: string; referenceSha256: string; samplePcm?: Buffer; sampleFile?: string;
    limit?: { max: number; refuse: (held: number) => Error };
  }): Promise<ClonedVoiceRecord>;
  /** The stored sample of a cloned voice as WAV; null when it is none (of `accountId`'s). */
  sampleWav(voiceId: string, accountId?: string): Promise<Buffer | null>;
  /** Whether `voiceId` names a cloned voice (of any account): its sample is then private. */
  isCloneId(voiceId: string): boolean;
  /** Cloned voices of an account (every account's when omitted), oldest first. */
  list(accountId?: string): Promise<Array<ClonedVoiceRecord & { account_id: string; created_at: string }>>;
  /** How many cloned voices the account holds. */
  count(accountId: string): Promise<number>;
  /** Removes a cloned voice (record and stored files); with `accountId`, only that account's. False when there was none. */
  delete(voiceId: string, accountId?: string): Promise<boolean>;
}
