/** Characters and their times (ms from the start of the audio), ElevenLabs' alignment shape. */
export interface Alignment {
  chars: string[];
  charStartTimesMs: number[];
  charDurationsMs: number[];
}
