export * from './output-formats.js';
export type { Alignment } from './alignment.js';
