import cluster from 'node:cluster';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Metrics, MetricsGaugeReading } from './services/index.js';

/** First-audio latency buckets (seconds): a streamed sentence is expected in 50–500 ms. */
const LATENCY_BUCKETS = [0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2.5, 5, 10];
/** Real-time factor: processing seconds per second of audio (below 1: faster than real time). */
const RTF_BUCKETS = [0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 2, 5];
const DENOISE_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The service's Prometheus metrics (prom-client), one registry per booted app so
 * that several apps in one process (tests) do not share counts. Names follow
 * Prometheus conventions: `_total` counters, `_seconds` durations, base units.
 */
export class PromMetrics implements Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly requestSeconds: Histogram<'method' | 'route'>;
  private readonly firstAudio: Histogram<'model' | 'transport'>;
  private readonly rtf: Histogram<'model' | 'transport'>;
  private readonly audioSeconds: Counter<'model' | 'transport'>;
  private readonly characters: Counter<'model' | 'transport'>;
  private readonly denoise: Histogram;
  private readonly denoiseAudio: Counter;
  private readonly refusals: Counter<'code' | 'transport'>;

  constructor(opts: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'sawt_http_requests_total', help: 'HTTP requests answered, by method, route template and status (499: the client left first).', labelNames: ['method', 'route', 'status'], registers });
    this.requestSeconds = new Histogram({ name: 'sawt_http_request_duration_seconds', help: 'Time from request to the end of the response, by method and route template.', labelNames: ['method', 'route'], buckets: REQUEST_BUCKETS, registers });
    this.firstAudio = new Histogram({ name: 'sawt_first_audio_seconds', help: 'Time from the request (HTTP) or the text piece (WebSocket) to its first audio chunk, by model and transport.', labelNames: ['model', 'transport'], buckets: LATENCY_BUCKETS, registers });
    this.rtf = new Histogram({ name: 'sawt_synthesis_real_time_factor', help: 'Synthesis wall time divided by the audio duration, per completed synthesis (includes waiting for a slow reader).', labelNames: ['model', 'transport'], buckets: RTF_BUCKETS, registers });
    this.audioSeconds = new Counter({ name: 'sawt_synthesis_audio_seconds_total', help: 'Seconds of audio synthesized and delivered.', labelNames: ['model', 'transport'], registers });
    this.characters = new Counter({ name: 'sawt_synthesis_characters_total', help: 'Billable characters of delivered syntheses.', labelNames: ['model', 'transport'], registers });
    this.denoise = new Histogram({ name: 'sawt_denoise_duration_seconds', help: 'Wall time of a denoise request, from the upload complete to the last byte of the answer.', buckets: DENOISE_BUCKETS, registers });
    this.denoiseAudio = new Counter({ name: 'sawt_denoise_audio_seconds_total', help: 'Seconds of audio denoised and delivered.', registers });
    this.refusals = new Counter({ name: 'sawt_refusals_total', help: 'Error answers sent to clients, by errorCode and transport (http, ws).', labelNames: ['code', 'transport'], registers });
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'sawt_' });
    // In a worker of `sawt serve --workers N`, this registry is what the primary collects: prom-client
    // answers its requests from the registries named here, once an AggregatorRegistry was made.
    if (cluster.isWorker) {
      AggregatorRegistry.setRegistries([this.registry]);
      workerListening ??= new AggregatorRegistry();
    }
  }

  observeRequest(r: { method: string; route: string; status: number; seconds: number }): void {
    this.requests.inc({ method: r.method, route: r.route, status: String(r.status) });
    this.requestSeconds.observe({ method: r.method, route: r.route }, r.seconds);
  }

  observeFirstAudio(model: string, transport: string, seconds: number): void {
    this.firstAudio.observe({ model, transport }, seconds);
  }

  observeSynthesis(s: { model: string; transport: string; chars: number; audioSeconds: number; elapsedSeconds: number }): void {
    const labels = { model: s.model, transport: s.transport };
    this.characters.inc(labels, s.chars);
    if (s.audioSeconds <= 0) return;
    this.audioSeconds.inc(labels, s.audioSeconds);
    this.rtf.observe(labels, s.elapsedSeconds / s.audioSeconds);
  }

  observeDenoise(audioSeconds: number, elapsedSeconds: number): void {
    this.denoise.observe(elapsedSeconds);
    this.denoiseAudio.inc(audioSeconds);
  }

  countRefusal(code: number, transport: string): void {
    this.refusals.inc({ code: String(code), transport });
  }

  addGauge(g: { name: string; help: string; labelNames?: string[]; read: () => number | MetricsGaugeReading[] }): void {
    if (this.registry.getSingleMetric(g.name)) this.registry.removeSingleMetric(g.name);
    const labelNames = g.labelNames ?? [];
    new Gauge({
      name: g.name,
      help: g.help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        const v = g.read();
        if (typeof v === 'number') this.set(v);
        else for (const r of v) this.set(r.labels, r.value);
      },
    });
  }

  /**
   * The Prometheus text of this process or, in a worker of a primary that serves cluster metrics
   * (serveClusterMetrics), of every worker: counters and histograms summed, so that /metrics
   * counts every request whichever worker answers the scrape.
   */
  async render(): Promise<{ contentType: string; body: string }> {
    if (cluster.isWorker && process.env[CLUSTER_METRICS_ENV] === '1' && process.send) {
      try {
        return { contentType: this.registry.contentType, body: await askPrimary() };
      } catch (e) {
        const body = await this.registry.metrics();
        return { contentType: this.registry.contentType, body: `# sawt: the workers' metrics could not be gathered (${(e as Error).message}); this worker's (pid ${process.pid}) alone\n${body}` };
      }
    }
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Set in the workers' environment by a primary that answers their metrics requests. */
export const CLUSTER_METRICS_ENV = 'SAWT_CLUSTER_METRICS';
const REQUEST = 'sawt:metrics-request';
const ANSWER = 'sawt:metrics-answer';
/** The primary waits this long for each worker (prom-client's own limit); the worker a little longer. */
const ASK_TIMEOUT_MS = 7000;
let asked = 0;
/** Made in a worker for its side effect: prom-client's listener for the primary's requests. */
let workerListening: object | undefined;

interface MetricsMessage { type?: string; id?: number; body?: string; error?: string }

function askPrimary(): Promise<string> {
  const id = ++asked;
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      process.off('message', onMessage);
    };
    const onMessage = (m: MetricsMessage) => {
      if (m?.type !== ANSWER || m.id !== id) return;
      done();
      if (m.error !== undefined) reject(new Error(m.error));
      else resolve(m.body ?? '');
    };
    const timer = setTimeout(() => (done(), reject(new Error('the primary did not answer'))), ASK_TIMEOUT_MS);
    process.on('message', onMessage);
    process.send!({ type: REQUEST, id } satisfies MetricsMessage);
  });
}

/**
 * In the primary of `sawt serve --workers N`: answers a worker's request for the metrics of all
 * workers (prom-client's AggregatorRegistry collects each worker's registry over the IPC channel
 * and sums them). The workers must be forked with CLUSTER_METRICS_ENV=1. Returns the stop function.
 */
export function serveClusterMetrics(): () => void {
  const aggregator = new AggregatorRegistry();
  const onMessage = (worker: import('node:cluster').Worker, m: MetricsMessage) => {
    if (m?.type !== REQUEST) return;
    const send = (answer: MetricsMessage) => {
      if (worker.isConnected()) worker.send({ type: ANSWER, id: m.id, ...answer });
    };
    aggregator.clusterMetrics().then((body) => send({ body }), (e: Error) => send({ error: e.message }));
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}
