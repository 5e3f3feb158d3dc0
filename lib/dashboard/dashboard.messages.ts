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
export function invalidGuard(): string {
  return 'EchoMqDashboardModule.forRoot: guard must be a class implementing CanActivate (e.g. `guard: AdminGuard`).';
}

/** @internal Boot error: a bad queue list. */
export function invalidQueues(): string {
  return 'EchoMqDashboardModule.forRoot: queues must be an array of queue names.';
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
