/** Settings every plugin may read; the gateway fills them from the environment. */
export interface AppConfig {
  host: string;
  port: number;
  /** Absolute base URL used to build links (next/previous, file URLs). */
  publicUrl?: string;
  dataDir: string;
  rateLimit: { perSecond: number; perDay: number };
  tokenLifetimeSeconds: number;
  /** Folder whose files the download endpoint lists as the offline tool's binaries. */
  toolDir: string;
  toolVersion: string;
  /**
   * @deprecated Declare typed settings on the plugin (`settings: defineSettings(...)`) and inject
   * them; this bag (the environment without FILIGRANE_MASTER_KEY and DATABASE_URL) goes away.
   */
  extra: Record<string, string | undefined>;
}
