/** Where the server runs and how it logs and measures: services core itself provides. */

export interface RuntimeSettings {
  host: string;
  port: number;
  dataDir: string;
  /** SAWT_MODELS_DIR: the operator's model files, looked up first; `sawt models pull` writes here. */
  modelsDir: string;
  /** The installation's bundled `models/`, looked up after modelsDir (null: none; undefined: the default). */
  bundledModelsDir?: string | null;
  configPath: string;
  /** Directory the config file lives in; relative plugin paths resolve from here. */
  configDir: string;
  /** This machine's name among the nodes sharing a database (SAWT_NODE_ID, default the host name). */
  nodeId: string;
}

export interface Logger {
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
  debug(obj: object | string, msg?: string): void;
  child(bindings: Record<string, unknown>): Logger;
}

export interface MetricsGaugeReading {
  labels: Record<string, string>;
  value: number;
}

/** The service's Prometheus metrics: transports and plugins record, GET /metrics renders. */
export interface Metrics {
  /** One answered HTTP request; `route` is the route template (e.g. /api/v1/text-to-speech/:model_id), never the raw path. */
  observeRequest(r: { method: string; route: string; status: number; seconds: number }): void;
  /** Time to the first audio chunk of a synthesis; transport: 'http', 'ws', 'preview'. */
  observeFirstAudio(model: string, transport: string, seconds: number): void;
  /** A synthesis delivered in full: its characters, audio length and wall time (the real-time factor). */
  observeSynthesis(s: { model: string; transport: string; chars: number; audioSeconds: number; elapsedSeconds: number }): void;
  observeDenoise(audioSeconds: number, elapsedSeconds: number): void;
  /** An error answer sent to a client (errorCode), by transport ('http', 'ws'). */
  countRefusal(code: number, transport: string): void;
  /** A gauge read at scrape time (open reservations, live sessions, engine jobs…); adding a name again replaces it. */
  addGauge(g: { name: string; help: string; labelNames?: string[]; read: () => number | MetricsGaugeReading[] }): void;
  /** The Prometheus text exposition. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** What the primary of `sawt serve --workers N` runs for its workers on a plugin's behalf (billing's limits). */
export interface ClusterPrimaryDuty {
  /** Set in every worker's environment. */
  workerEnv: Record<string, string>;
  /** Starts serving the workers from the primary; returns the function that stops it. */
  serve(): () => void;
}
