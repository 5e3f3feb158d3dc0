/** @internal Boot error: a writable dashboard without a guard. */
export function writableWithoutGuard(): string {
  return 'EchoMqDashboardModule.forRoot({ readOnly: false }) lets anyone who reaches the page pause lanes, change '
    + 'weights and retry jobs, so it needs a guard: add `guard: YourAuthGuard` (a Nest CanActivate class that '
    + 'checks the caller), or leave `readOnly` at its default (true).';
}

/** @internal Boot error: a path the page cannot be served at. */
export function invalidPath(path: unknown): string {
  return `EchoMqDashboardModule.forRoot: path must look like '/echomq' (letters, digits, '-', '_', '.', '/'), got ${JSON.stringify(path)}.`;
}

/** @internal Boot error: a guard that is not a class. */
export function invalidGuard(guard: unknown): string {
  return 'EchoMqDashboardModule.forRoot: guard must be a class implementing CanActivate, the class itself '
    + `(e.g. \`guard: AdminGuard\`), not an instance of it; got ${shown(guard)}.`;
}

/** @internal Boot error: a bad queue list. */
export function invalidQueues(queues: unknown): string {
  return 'EchoMqDashboardModule.forRoot: queues must be an array of queue names (non-empty strings, e.g. '
    + `\`queues: ['emails']\`), or left out to show the queues of the app's @LaneConsumer classes; got ${shown(queues)}.`;
}

/** @internal Boot error: the page's files are not where the package ships them. */
export function missingAssets(dir: string): string {
  return `EchoMqDashboardModule: the page's files are missing from ${dir}. They ship in the package (dist/dashboard/ui): `
    + 'reinstall @echomq/nestjs, and if the app is bundled (webpack, esbuild), keep @echomq/nestjs out of the bundle '
    + `(an external) or copy that folder to ${dir}.`;
}

/** A value as a message shows it: JSON where it has one, else its kind. */
function shown(value: unknown): string {
  if (typeof value === 'function') return `a function (${value.name || 'anonymous'})`;
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && value.constructor !== Object) {
    return `an instance of ${value.constructor?.name || 'an anonymous class'}`;
  }
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** @internal API error: a queue the dashboard does not show. */
export function unknownQueue(queue: unknown): string {
  return `The dashboard does not show queue ${JSON.stringify(queue)}.`;
}

/** @internal API error: a change while the dashboard is read-only. */
export function readOnlyRefusal(): string {
  return 'The dashboard is read-only (EchoMqDashboardModule.forRoot({ readOnly: true })): changes are refused.';
}

/** @internal API error: a change without the action header. */
export function missingActionHeader(header: string): string {
  return `A change needs the request header ${header} (the page sends it; a cross-site form cannot).`;
}
