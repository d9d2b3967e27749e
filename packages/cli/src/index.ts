export { main, buildProgram } from './program.js';
export type { Flags } from './args.js';
