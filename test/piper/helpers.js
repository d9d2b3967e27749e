// Shared by the Piper tests: where the stand-in voices are (random weights; see their README).
export const STANDIN = process.env.SAWT_PIPER_STANDIN ?? '/work/shared/models/piper/standin';
