import type { CanActivate, Type } from '@nestjs/common';

/** Options of `EchoMqDashboardModule.forRoot`. */
export interface EchoMqDashboardOptions {
  /**
   * Where the page is served, relative to the app's global prefix; its JSON is under `${path}/api/…`.
   * @default '/echomq'
   */
  path?: string;
  /**
   * The queues the page shows (and the only ones its API reads or changes).
   * @default the queues of the application's `@LaneConsumer` providers
   */
  queues?: string[];
  /**
   * With `true` the page has no controls and the API refuses every change with 403.
   * @default true
   */
  readOnly?: boolean;
  /**
   * A Nest guard (a `CanActivate` class) that every API call and the live stream must pass; required
   * with `readOnly: false`. It is resolved in the dashboard's module, so its dependencies must come
   * from global modules. The page passes its own query string on to every API call, so a guard may
   * check a token in the page's URL; cookies and `Authorization` headers work as usual.
   */
  guard?: Type<CanActivate>;
}

/** @internal The options with their defaults applied. */
export interface ResolvedDashboardOptions {
  path: string;
  queues: string[] | null;
  readOnly: boolean;
  guard: Type<CanActivate> | null;
}
