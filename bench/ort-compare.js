// npm run bench:ort-compare: the same denoise models run through Sawt's native
// OnnxSession (off the main thread) and through onnxruntime-node from plain JS,
// on identical inputs: time per run and the event loop's worst delay meanwhile.
//  - GTCRN streaming: 625 frames (10 s at 16 kHz), one run per frame, caches fed back.
//  - DeepFilterNet3 encoder: 1000 frames (10 s at 48 kHz) in one run.
// Needs ../shared/models (or SAWT_BENCH_MODELS). Results: bench/results/ort-compare-<date>.json.
import { createRequire } from 'node:module';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { OnnxSession } from '@sawt/native';
import { here, machine, pct, round, writeResults } from './harness.js';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');
const models = process.env.SAWT_BENCH_MODELS ?? path.resolve(here, '../../shared/models');
const gtcrnPath = path.join(models, 'denoise/gtcrn/gtcrn_simple.onnx');
const encPath = path.join(models, 'denoise/dfn3/enc.onnx');

const FRAMES = 625;
const gtcrnShapes = { mix: [1, 257, 1, 2], conv_cache: [2, 1, 16, 16, 33], tra_cache: [2, 3, 1, 1, 16], inter_cache: [2, 1, 33, 16] };
const size = (d) => d.reduce((a, b) => a * b, 1);
const frame = (i) => Float32Array.from({ length: size(gtcrnShapes.mix) }, (_, k) => Math.sin(i * 0.1 + k) * 0.01);

async function measure(name, fn) {
  const eld = monitorEventLoopDelay({ resolution: 1 });
  eld.enable();
  const t0 = performance.now();
  const perRun = await fn();
  const totalMs = performance.now() - t0;
  eld.disable();
  return { name, totalMs: round(totalMs), perRunMs: { p50: round(pct(perRun, 50), 3), p95: round(pct(perRun, 95), 3) }, eventLoopMaxDelayMs: round(eld.max / 1e6) };
}

async function gtcrnSawt() {
  const s = await OnnxSession.create(gtcrnPath, { executionProvider: 'cpu', intraOpThreads: 1 });
  let caches = Object.fromEntries(Object.entries(gtcrnShapes).filter(([k]) => k !== 'mix').map(([k, d]) => [k, { type: 'float32', dims: d, data: new Float32Array(size(d)) }]));
  const times = [];
  for (let i = 0; i < FRAMES; i++) {
    const t = performance.now();
    const out = await s.run({ mix: { type: 'float32', dims: gtcrnShapes.mix, data: frame(i) }, ...caches });
    caches = { conv_cache: { ...caches.conv_cache, data: out.conv_cache_out.data }, tra_cache: { ...caches.tra_cache, data: out.tra_cache_out.data }, inter_cache: { ...caches.inter_cache, data: out.inter_cache_out.data } };
    times.push(performance.now() - t);
  }
  s.release();
  return times;
}

async function gtcrnOrtNode() {
  const s = await ort.InferenceSession.create(gtcrnPath, { intraOpNumThreads: 1 });
  let caches = Object.fromEntries(Object.entries(gtcrnShapes).filter(([k]) => k !== 'mix').map(([k, d]) => [k, new ort.Tensor('float32', new Float32Array(size(d)), d)]));
  const times = [];
  for (let i = 0; i < FRAMES; i++) {
    const t = performance.now();
    const out = await s.run({ mix: new ort.Tensor('float32', frame(i), gtcrnShapes.mix), ...caches });
    caches = { conv_cache: out.conv_cache_out, tra_cache: out.tra_cache_out, inter_cache: out.inter_cache_out };
    times.push(performance.now() - t);
  }
  return times;
}

const T = 1000;
const erb = Float32Array.from({ length: T * 32 }, (_, k) => Math.sin(k) * 0.1);
const spec = Float32Array.from({ length: T * 96 * 2 }, (_, k) => Math.cos(k) * 0.01);
async function encSawt() {
  const s = await OnnxSession.create(encPath, { executionProvider: 'cpu', intraOpThreads: 1 });
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await s.run({ feat_erb: { type: 'float32', dims: [1, 1, T, 32], data: erb }, feat_spec: { type: 'float32', dims: [1, 2, T, 96], data: spec } });
    times.push(performance.now() - t);
  }
  s.release();
  return times;
}
async function encOrtNode() {
  const s = await ort.InferenceSession.create(encPath, { intraOpNumThreads: 1 });
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await s.run({ feat_erb: new ort.Tensor('float32', erb, [1, 1, T, 32]), feat_spec: new ort.Tensor('float32', spec, [1, 2, T, 96]) });
    times.push(performance.now() - t);
  }
  return times;
}

const results = {
  date: new Date().toISOString(),
  machine: machine(),
  note: 'intra-op threads 1 for both; event-loop delay shows whether inference blocks the main thread',
  gtcrnStreaming10s: [await measure('sawt OnnxSession', gtcrnSawt), await measure('onnxruntime-node', gtcrnOrtNode)],
  dfn3Encoder10s: [await measure('sawt OnnxSession', encSawt), await measure('onnxruntime-node', encOrtNode)],
};
writeResults('ort-compare', results);
