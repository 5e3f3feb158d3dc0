/** @internal Injection token of the resolved dashboard options. */
export const ECHOMQ_DASHBOARD_OPTIONS = 'ECHOMQ:DASHBOARD_OPTIONS';

/**
 * The request header every change must carry (any value). A cross-site form cannot set it, and a
 * cross-site script that sets it needs a CORS preflight the app does not grant.
 */
export const DASHBOARD_ACTION_HEADER = 'x-echomq-action';

/** @internal Lanes listed per snapshot (the ones with most pending). */
export const SNAPSHOT_LANES = 50;
/** @internal Lanes of the snapshot whose head gets a position and wait estimate. */
export const SNAPSHOT_POSITIONS = 10;
/** @internal Ring lanes listed per snapshot (the next ones served). */
export const SNAPSHOT_RING = 20;
/** @internal Tenants listed per snapshot (the ones with most pending, and those of the listed lanes). */
export const SNAPSHOT_TENANTS = 20;
/** @internal Lanes of the fairness view read by their service in the last minute (the ones served most). */
export const SNAPSHOT_SHARES = 20;
/** @internal Lanes of the fairness view read by their head's age (the longest waits), beside those served most. */
export const SNAPSHOT_OLDEST = 10;
/** @internal Dead letters listed per snapshot (the latest). */
export const SNAPSHOT_DEAD = 20;
/** @internal How often the live stream looks for changes while someone watches. */
export const FEED_POLL_MS = 500;
/** @internal Frames of the live stream are at least this far apart (changes in between coalesce). */
export const FEED_COALESCE_MS = 1_500;
/** @internal How long the page waits for its queue's first frame to draw it with the page (else it is fetched). */
export const FIRST_FRAME_WAIT_MS = 1_000;
/** @internal Spacing and length of the kept history of totals (for the rate chart). */
export const HISTORY_STEP_MS = 2_000;
export const HISTORY_POINTS = 150;
/** @internal Lanes one search request looks through at most (it returns a cursor to go on). */
export const SEARCH_SCAN_LANES = 5_000;
/** @internal Characters of a payload shown in the page. */
export const PAYLOAD_PREVIEW_CHARS = 200;
