declare module '@echogarden/rnnoise-wasm' {
  interface RNNoiseModule {
    HEAPF32: Float32Array;
    _malloc(bytes: number): number;
    _free(ptr: number): void;
    _rnnoise_create(model: number): number;
    _rnnoise_destroy(state: number): void;
    _rnnoise_get_frame_size(): number;
    _rnnoise_process_frame(state: number, out: number, input: number): number;
  }
  const RNNoise: (moduleArg?: Record<string, unknown>) => Promise<RNNoiseModule>;
  export default RNNoise;
}
