/** Boot errors: each names the plugin (and service) at fault. Operators see these, not API clients. */
export type PluginErrorCode =
  | 'SAWT_ERR_PLUGIN_NOT_FOUND'
  | 'SAWT_ERR_PLUGIN_LOAD'
  | 'SAWT_ERR_PLUGIN_INVALID'
  | 'SAWT_ERR_PLUGIN_OPTIONS'
  | 'SAWT_ERR_PLUGIN_MISSING_PROVIDER'
  | 'SAWT_ERR_PLUGIN_DUPLICATE_PROVIDER'
  | 'SAWT_ERR_PLUGIN_CYCLE'
  | 'SAWT_ERR_PLUGIN_REGISTER'
  | 'SAWT_ERR_PLUGIN_START'
  | 'SAWT_ERR_CONFIG';

export class PluginError extends Error {
  constructor(
    readonly code: PluginErrorCode,
    message: string,
    readonly pluginId?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'PluginError';
  }
}
